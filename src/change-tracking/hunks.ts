/**
 * @module change-tracking/hunks
 * Git-style hunks of an edit script (change-tracking/line-diff.ts), in jsdiff's `structuredPatch` shape, with their
 * context lines taken from the whole versions.
 *
 * What makes a hunk apply with GNU patch and `git apply` (checked by test/formats/change-tracking-patch.test.ts):
 * - its line numbers are right, and its context lines are the lines of the previous version around its changes;
 * - it has as many context lines after its changes as before them, unless it starts at the first line (it may have
 *   fewer before) or ends at the last (fewer after): GNU patch takes a hunk with fewer lines of context after than
 *   before as anchored at the end of the file, and one with fewer before as anchored at its start; `git apply` takes
 *   one with none after as anchored at the end;
 * - a line that ends its version without a newline is followed by `\ No newline at end of file`, as git writes it.
 * So a hunk takes `context` lines on each side where the version has them, as `diff -u` does.
 */
import type { StructuredPatchHunk } from "diff";
import type { Edit, LineEdits } from "./line-diff.ts";

/** jsdiff's marker after a line that ends its text without a newline (git writes the same). */
export const NO_NEWLINE_MARKER = "\\ No newline at end of file";

/** `line` as a hunk writes it: `sign` and the line without its `\n`, then the marker if it had none. */
export function pushLine(out: string[], sign: " " | "-" | "+", line: string): void {
  if (line.endsWith("\n")) out.push(sign + line.slice(0, -1));
  else out.push(sign + line, NO_NEWLINE_MARKER);
}

/** The edits one hunk shows, `edits[first..last]` (inclusive). */
export interface EditRange {
  first: number;
  last: number;
}

/**
 * How `edits` group into hunks with `context` lines of context: two edits share a hunk when the lines between them
 * are at most two contexts (the context after one would meet the context before the other), as `diff -u` groups them.
 */
export function hunkRanges(edits: readonly Edit[], context: number): EditRange[] {
  const ranges: EditRange[] = [];
  for (let i = 0; i < edits.length; i++) {
    const open = ranges[ranges.length - 1];
    if (open && edits[i]!.aStart - edits[open.last]!.aEnd <= 2 * context) open.last = i;
    else ranges.push({ first: i, last: i });
  }
  return ranges;
}

/**
 * The hunk showing `edits[first..last]` with up to `context` lines of the previous version (`a`) on each side:
 * fewer only where the version starts or ends. `oldStart`/`newStart` count from 1; a side with no lines names the
 * line after which the other's go, as git writes it (`-0,0` for an empty previous version; `-5,0` for lines added
 * after line 5 by a hunk without context, which jsdiff's `-6,0` would put one line lower).
 */
export function buildHunk(a: readonly string[], b: readonly string[], edits: readonly Edit[], range: EditRange, context: number): StructuredPatchHunk {
  const first = edits[range.first]!;
  const last = edits[range.last]!;
  const before = Math.min(context, first.aStart);
  const after = Math.min(context, a.length - last.aEnd);
  const lines: string[] = [];
  for (let i = first.aStart - before; i < first.aStart; i++) pushLine(lines, " ", a[i]!);
  for (let k = range.first; k <= range.last; k++) {
    const e = edits[k]!;
    for (let i = e.aStart; i < e.aEnd; i++) pushLine(lines, "-", a[i]!);
    for (let j = e.bStart; j < e.bEnd; j++) pushLine(lines, "+", b[j]!);
    const next = k < range.last ? edits[k + 1]!.aStart : last.aEnd + after;
    for (let i = e.aEnd; i < next; i++) pushLine(lines, " ", a[i]!);
  }
  const oldLines = last.aEnd + after - (first.aStart - before);
  const newLines = last.bEnd + after - (first.bStart - before);
  return {
    oldStart: first.aStart - before + (oldLines > 0 ? 1 : 0),
    oldLines,
    newStart: first.bStart - before + (newLines > 0 ? 1 : 0),
    newLines,
    lines,
  };
}

/**
 * The hunks of an edit script with `context` lines of context (git's default is 3). The script may be a prefix of
 * a longer one, its last edit cut short (change-tracking/diff-bounds.ts): the hunks then turn the previous version
 * into the one those edits make, the context after the last one being the previous version's lines that follow it.
 */
export function hunksOf(d: LineEdits, context: number): StructuredPatchHunk[] {
  return hunkRanges(d.edits, context).map((r) => buildHunk(d.a, d.b, d.edits, r, context));
}
