/**
 * @module change-tracking/shared-edits
 * One edit script per scrape. changeTracking's two modes both read the line diff of the same two versions: the
 * `git-diff` mode for its hunks (change-tracking/diff.ts), the `json` mode without a schema for the change excerpts a
 * model is sent (change-tracking/excerpts.ts, through llm/client.ts describeChange). The diff is the costly part,
 * bounded at {@link DIFF_TIMEOUT_MS} on the event loop: run once for each mode, a page that needs the whole bound
 * stalled the server's other requests twice as long (1.2 s instead of 0.63 s for a reordered page of 1.9 MB).
 *
 * The format makes one {@link PairEdits} for the pair it compares and hands it to both modes; the first that asks
 * computes the script, the other gets the same one. It lives as long as the format's render, nothing longer, and
 * concurrent scrapes never see each other's.
 */
import { DIFF_TIMEOUT_MS, lineEdits, type LineEdits } from "./line-diff.ts";

/** The edit script of one pair of versions: computed when first asked for, then kept. */
export type PairEdits = () => LineEdits;

/** The {@link PairEdits} of `previous` and `current`. */
export function editsOnce(previous: string, current: string): PairEdits {
  let edits: LineEdits | undefined;
  return () => (edits ??= lineEdits(previous, current, DIFF_TIMEOUT_MS));
}
