/**
 * @module change-tracking/hunks
 * Git-style hunks of an edit script (change-tracking/line-diff.ts), in jsdiff's `structuredPatch` shape, with their
 * context lines taken from the whole versions.
 *
 * What makes a hunk apply with GNU patch and plain `git apply` (no `--unidiff-zero`; checked by
 * test/formats/change-tracking-patch.test.ts and change-tracking-git-apply.test.ts):
 * - its line numbers are right, and its context lines are the lines of the previous version around its changes;
 * - it has at least as many context lines after its changes as before them, unless it ends at the previous
 *   version's last line: GNU patch takes a hunk with fewer lines of context after than before as anchored at the end
 *   of the file (and one with fewer before as anchored at its start, where it starts at the first line);
 * - it has at least one context line after its changes, unless it ends at the last line: `git apply` takes a hunk
 *   with none after as anchored at the end of the file (a hunk with no context at all, in the middle of the page,
 *   applies only with `git apply --unidiff-zero`); one with none before is placed by its line numbers, as GNU patch
 *   places it;
 * - a line that ends its version without a newline is followed by `\ No newline at end of file`, as git writes it.
 * So a hunk takes `context` lines on each side where the version has them, as `diff -u` does; with less room
 * (change-tracking/diff-bounds.ts) it takes fewer, as many on each side, then {@link AFTER_ONLY}: none before, one
 * after. The one exception, documented in docs/llm.md: a change whose neighbouring lines are too long for the diff
 * has no room even for that, and is shown with {@link NO_CONTEXT} rather than not at all ({@link placedByPlainGit}
 * says which such hunks plain `git apply` refuses or misplaces).
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

/** Lines of context a hunk takes before and after its changes (fewer where the version starts or ends). */
export interface HunkContext {
  before: number;
  after: number;
}

/**
 * The least context a hunk may have and still apply with plain `git apply` and GNU patch: none before its changes,
 * one line after (none only where the version ends).
 */
export const AFTER_ONLY: Readonly<HunkContext> = { before: 0, after: 1 };

/**
 * No context at all: the last resort for a change whose neighbouring lines are too long for the diff (a price between
 * two paragraphs of a megabyte), which matters more than plain `git apply` (GNU patch and `git apply --unidiff-zero`
 * place such a hunk by its line numbers).
 */
export const NO_CONTEXT: Readonly<HunkContext> = { before: 0, after: 0 };

/** `context` as lines before and after: a number is as many on each side. */
export function sidesOf(context: number | HunkContext): HunkContext {
  return typeof context === "number" ? { before: context, after: context } : context;
}

/** The edits one hunk shows, `edits[first..last]` (inclusive). */
export interface EditRange {
  first: number;
  last: number;
}

/**
 * How `edits` group into hunks with `context` lines of context: two edits share a hunk when the lines between them
 * are at most the context after one and before the other (they would meet), as `diff -u` groups them.
 */
export function hunkRanges(edits: readonly Edit[], context: number | HunkContext): EditRange[] {
  const { before, after } = sidesOf(context);
  const ranges: EditRange[] = [];
  for (let i = 0; i < edits.length; i++) {
    const open = ranges[ranges.length - 1];
    if (open && edits[i]!.aStart - edits[open.last]!.aEnd <= before + after) open.last = i;
    else ranges.push({ first: i, last: i });
  }
  return ranges;
}

/**
 * The hunk showing `edits[first..last]` with up to `context` lines of the previous version (`a`) before and after
 * (a number: as many on each side): fewer only where the version starts or ends. `oldStart`/`newStart` count from 1; a side with no lines names the
 * line after which the other's go, as git writes it (`-0,0` for an empty previous version; `-5,0` for lines added
 * after line 5 by a hunk without context, which jsdiff's `-6,0` would put one line lower).
 */
export function buildHunk(a: readonly string[], b: readonly string[], edits: readonly Edit[], range: EditRange, context: number | HunkContext): StructuredPatchHunk {
  const sides = sidesOf(context);
  const first = edits[range.first]!;
  const last = edits[range.last]!;
  const before = Math.min(sides.before, first.aStart);
  const after = Math.min(sides.after, a.length - last.aEnd);
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
export function hunksOf(d: LineEdits, context: number | HunkContext): StructuredPatchHunk[] {
  return hunkRanges(d.edits, context).map((r) => buildHunk(d.a, d.b, d.edits, r, context));
}

/**
 * Whether plain `git apply` (no `--unidiff-zero`) places `h` where its line numbers say, in a previous version of
 * `previousLines` lines. A hunk with context is placed by it (this module gives it the line after its changes). One
 * with none git anchors at the end of the file, and also at its start when it names line 0 or 1: it refuses or
 * misplaces one that does not end at the last line (a line added with no context it adds at the end), and a line
 * added after the first line (`@@ -1,0 …`), which it takes as added before it.
 */
export function placedByPlainGit(h: Pick<StructuredPatchHunk, "oldStart" | "oldLines" | "lines">, previousLines: number): boolean {
  if (h.lines.some((l) => l.startsWith(" "))) return true;
  const oldEnd = h.oldLines > 0 ? h.oldStart - 1 + h.oldLines : h.oldStart;
  if (oldEnd !== previousLines) return false;
  return !(h.oldLines === 0 && h.oldStart === 1);
}
