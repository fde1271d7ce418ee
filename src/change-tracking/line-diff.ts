/**
 * @module change-tracking/line-diff
 * The line diff behind changeTracking's `git-diff` mode (change-tracking/diff.ts) and the change excerpts a model
 * is sent (change-tracking/excerpts.ts): the edit script of two texts, as edits on their whole line arrays
 * (change-tracking/hunks.ts makes git-style hunks of it), bounded for a server that runs it on its event loop (every
 * other request waits while it runs).
 *
 * Myers' diff (jsdiff) costs about the square of the edits: here 1,600 edits took 0.27 s, 3,200 took 1.0 s, 4,000
 * took 1.7–1.9 s, and two pages of 8,000 lines that all changed over 30 s. So:
 * 1. The lines both versions share at their start and end are set aside first: a change in one place of a long page
 *    is diffed as that place alone. The edits found are then moved back onto the whole versions, and the hunks take
 *    their context from the whole versions: a hunk built from the changed part alone lost its trailing context when
 *    jsdiff slid an insertion of a repeated line (a blank line, `---`) to the part's end, and GNU patch and
 *    `git apply` take a hunk with leading context but none trailing as anchored at the end of the file.
 * 2. The exact diff of the rest runs under a time bound ({@link DIFF_TIMEOUT_MS}), however many edits it finds.
 * 3. When it cannot finish in time, or when it certainly could not ({@link DIFF_MAX_EDITS_LOWER_BOUND}: the lines one
 *    version has more often than the other, which every diff must delete or add, are already that many), the part
 *    between the shared start and end is one edit replacing its old lines with its new ones: "this passage was
 *    rewritten", still located on the page.
 */
import { diffArrays } from "diff";
import type { StructuredPatchHunk } from "diff";
import { hunksOf } from "./hunks.ts";

/**
 * How long the exact diff may run, in ms; past it, the changed part is reported as one replacement. Long enough for
 * a diff of about 2,000 edits on this class of machine (2 cores), short enough that one diff stalls the server's
 * other requests half a second at most (a page rewritten throughout does not wait for it: see
 * {@link DIFF_MAX_EDITS_LOWER_BOUND}).
 */
export const DIFF_TIMEOUT_MS = 500;

/**
 * Edits that certainly take longer than {@link DIFF_TIMEOUT_MS} (4,000 took 1.7–1.9 s, well over three times the
 * bound): when the lines that must be deleted or added are at least this many, the replacement is reported at once
 * instead of after spinning for the whole bound.
 */
export const DIFF_MAX_EDITS_LOWER_BOUND = 4_000;

export { NO_NEWLINE_MARKER } from "./hunks.ts";

/** One edit of a script: `a[aStart, aEnd)` replaced by `b[bStart, bEnd)`; one side may be empty, not both. */
export interface Edit {
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

/**
 * Two versions' lines (each with its `\n`, the last may lack one: {@link splitLines}) and the edits turning the first
 * into the second, in order, never adjacent: between two edits, and around them, the lines are equal on both sides.
 */
export interface LineEdits {
  a: readonly string[];
  b: readonly string[];
  edits: readonly Edit[];
}

/** Lines with their `\n` (the last may lack one), as jsdiff splits them; none for empty text. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n").map((line) => `${line}\n`);
  const last = lines.pop() as string;
  if (last !== "\n") lines.push(last.slice(0, -1));
  return lines;
}

/**
 * Whether any diff of `a` and `b` has at least `edits` edits (deleted plus added lines): a line that one side has
 * more often than the other is deleted or added that many times over, so `a.length + b.length - 2 × matched` (lines
 * of `b` paired with an equal line of `a`) is a lower bound. Linear, unlike the diff, and it stops as soon as the
 * lines of `b` left could no longer bring the bound under `edits` (a page rewritten throughout: after `edits / 2`).
 */
export function editsAtLeast(a: readonly string[], b: readonly string[], edits: number): boolean {
  if (Math.abs(a.length - b.length) >= edits) return true;
  const counts = new Map<string, number>();
  for (const line of a) counts.set(line, (counts.get(line) ?? 0) + 1);
  let matched = 0;
  for (let i = 0; i < b.length; i++) {
    const n = counts.get(b[i]!);
    if (n) {
      counts.set(b[i]!, n - 1);
      matched++;
    } else if (a.length + b.length - 2 * (matched + b.length - 1 - i) >= edits) return true;
  }
  return a.length + b.length - 2 * matched >= edits;
}

/**
 * The edits of jsdiff's exact diff of `a[from, aTo)` and `b[from, bTo)`, on the whole arrays; undefined when it did
 * not finish within `timeoutMs`.
 */
function exactEdits(a: readonly string[], b: readonly string[], from: number, aTo: number, bTo: number, timeoutMs: number): Edit[] | undefined {
  const changes = diffArrays(a.slice(from, aTo), b.slice(from, bTo), { timeout: timeoutMs });
  if (!changes) return undefined;
  const edits: Edit[] = [];
  let i = from;
  let j = from;
  let open: Edit | undefined;
  for (const c of changes) {
    const n = c.count ?? c.value.length;
    if (!c.added && !c.removed) {
      i += n;
      j += n;
      open = undefined;
      continue;
    }
    if (!open) {
      open = { aStart: i, aEnd: i, bStart: j, bEnd: j };
      edits.push(open);
    }
    if (c.removed) open.aEnd = i += n;
    else open.bEnd = j += n;
  }
  return edits;
}

/**
 * The edit script of two texts, bounded in time as the module says: past `timeoutMs`, one edit replacing the part
 * between the lines the two share at their start and end (tests on a loaded machine give it more). No edits when
 * the texts are equal.
 */
export function lineEdits(previous: string, current: string, timeoutMs = DIFF_TIMEOUT_MS): LineEdits {
  const a = splitLines(previous);
  const b = splitLines(current);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  if (head === a.length && head === b.length) return { a, b, edits: [] };
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const aTo = a.length - tail;
  const bTo = b.length - tail;
  const exact = editsAtLeast(a.slice(head, aTo), b.slice(head, bTo), DIFF_MAX_EDITS_LOWER_BOUND) ? undefined : exactEdits(a, b, head, aTo, bTo, timeoutMs);
  return { a, b, edits: exact ?? [{ aStart: head, aEnd: aTo, bStart: head, bEnd: bTo }] };
}

/**
 * The hunks of the line diff of two texts, in jsdiff's `structuredPatch` shape, with `contextLines` of context taken
 * from the whole texts (none when the texts are equal).
 */
export function lineDiffHunks(previous: string, current: string, contextLines: number, timeoutMs = DIFF_TIMEOUT_MS): StructuredPatchHunk[] {
  return hunksOf(lineEdits(previous, current, timeoutMs), contextLines);
}
