/**
 * @module change-tracking/shared-edits
 * One edit script per scrape. changeTracking's two modes both read the line diff of the same two versions: the
 * `git-diff` mode for its hunks (change-tracking/diff.ts), the `json` mode without a schema for the change excerpts a
 * model is sent (change-tracking/excerpts.ts, through llm/client.ts describeChange). The diff is the costly part,
 * bounded at {@link DIFF_TIMEOUT_MS} on the event loop: run once for each mode, a page that needs the whole bound
 * stalled the server's other requests twice as long (1.2 s instead of 0.63 s for a reordered page of 1.9 MB).
 *
 * The format opens a scope for the pair it compares ({@link withSharedEdits}); within it, the first reader computes
 * the script and the others get it. Outside a scope (or for another pair), {@link sharedEdits} computes it. The
 * scope ends with the format's render, so nothing outlives the scrape.
 */
import { DIFF_TIMEOUT_MS, lineEdits, type LineEdits } from "./line-diff.ts";

/** A pair of versions whose script is shared while its scope is open. */
interface Scope {
  previous: string;
  current: string;
  edits?: LineEdits;
}

/** The scopes open now, one per scrape comparing its versions (a handful: one per scrape running). */
const open: Scope[] = [];

/**
 * Runs `fn` with the edit script of `previous` and `current` shared: computed at most once, by the first
 * {@link sharedEdits} of that pair inside it.
 */
export async function withSharedEdits<T>(previous: string, current: string, fn: () => Promise<T>): Promise<T> {
  const scope: Scope = { previous, current };
  open.push(scope);
  try {
    return await fn();
  } finally {
    open.splice(open.indexOf(scope), 1);
  }
}

/**
 * The edit script of `previous` and `current` (change-tracking/line-diff.ts): the one a scope open for this pair
 * computed already, else computed now (and kept by that scope when there is one).
 */
export function sharedEdits(previous: string, current: string): LineEdits {
  // Compared by value: a string of another length differs at once, and one of the same length at its first difference.
  const scope = open.find((s) => s.previous === previous && s.current === current);
  if (!scope) return lineEdits(previous, current, DIFF_TIMEOUT_MS);
  return (scope.edits ??= lineEdits(previous, current, DIFF_TIMEOUT_MS));
}
