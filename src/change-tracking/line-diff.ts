/**
 * @module change-tracking/line-diff
 * The line diff behind changeTracking's `git-diff` mode (change-tracking/diff.ts) and the change excerpts a model
 * is sent (change-tracking/excerpts.ts): git-style hunks of two texts, bounded for a server that runs it on its
 * event loop (every other request waits while it runs).
 *
 * Myers' diff (jsdiff) costs about the square of the edits: here 1,600 edits took 0.27 s, 3,200 took 1.0 s, 4,000
 * took 1.7–1.9 s, and two pages of 8,000 lines that all changed over 30 s. So:
 * 1. The lines both versions share at their start and end are set aside first (keeping the context lines the hunks
 *    show): a change in one place of a long page is diffed as that place alone.
 * 2. The exact diff of the rest runs under a time bound ({@link DIFF_TIMEOUT_MS}), however many edits it finds.
 * 3. When it cannot finish in time, or when it certainly could not ({@link DIFF_MAX_EDITS_LOWER_BOUND}: the lines one
 *    version has more often than the other, which every diff must delete or add, are already that many), the part
 *    between the shared start and end is one hunk replacing its old lines with its new ones, with the usual context
 *    around it: "this passage was rewritten", still located on the page.
 */
import { structuredPatch, type StructuredPatchHunk } from "diff";

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

/** jsdiff's marker after a line that ends its text without a newline (git writes the same). */
export const NO_NEWLINE_MARKER = "\\ No newline at end of file";

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

/** `line` as a hunk writes it: `sign` and the line without its `\n`, then the marker if it had none. */
function pushLine(out: string[], sign: " " | "-" | "+", line: string): void {
  if (line.endsWith("\n")) out.push(sign + line.slice(0, -1));
  else out.push(sign + line, NO_NEWLINE_MARKER);
}

/**
 * One hunk replacing `a[changeStart, a.length - shared)` with `b[changeStart, b.length - shared)`, with the shared
 * lines around it from `from` before and up to `context` after (jsdiff's layout: `\ No newline…` marks, and
 * `-1,0` for an empty old side).
 */
function replacement(a: readonly string[], b: readonly string[], from: number, changeStart: number, shared: number, context: number): StructuredPatchHunk {
  const lines: string[] = [];
  for (let i = from; i < changeStart; i++) pushLine(lines, " ", a[i]!);
  for (let i = changeStart; i < a.length - shared; i++) pushLine(lines, "-", a[i]!);
  for (let i = changeStart; i < b.length - shared; i++) pushLine(lines, "+", b[i]!);
  const after = Math.min(shared, context);
  for (let i = a.length - shared; i < a.length - shared + after; i++) pushLine(lines, " ", a[i]!);
  const oldLines = a.length - shared + after - from;
  const newLines = b.length - shared + after - from;
  return { oldStart: from + 1, oldLines, newStart: from + 1, newLines, lines };
}

/**
 * The hunks of the line diff of two texts, as jsdiff's `structuredPatch` gives them, with `contextLines` of context
 * (none when the texts are equal). Bounded in time as the module says: past `timeoutMs`, one hunk replacing the
 * changed part (tests on a loaded machine give it more).
 */
export function lineDiffHunks(previous: string, current: string, contextLines: number, timeoutMs = DIFF_TIMEOUT_MS): StructuredPatchHunk[] {
  const a = splitLines(previous);
  const b = splitLines(current);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  if (head === a.length && head === b.length) return [];
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  // The diff sees the changed part with its context lines: its hunks are then those of the whole texts, moved down.
  const from = Math.max(0, head - contextLines);
  const to = Math.max(0, tail - contextLines);
  const oldPart = a.slice(from, a.length - to);
  const newPart = b.slice(from, b.length - to);
  if (!editsAtLeast(oldPart, newPart, DIFF_MAX_EDITS_LOWER_BOUND)) {
    const patch = structuredPatch("previous", "current", oldPart.join(""), newPart.join(""), undefined, undefined, { context: contextLines, timeout: timeoutMs });
    if (patch) return from === 0 ? patch.hunks : patch.hunks.map((h) => ({ ...h, oldStart: h.oldStart + from, newStart: h.newStart + from }));
  }
  return [replacement(a, b, from, head, tail, contextLines)];
}
