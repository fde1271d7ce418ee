/**
 * @module change-tracking/diff-warnings
 * What a bounded `git-diff` left out (change-tracking/diff-bounds.ts), and the warnings that tell the client, each
 * saying why for its case: a diff cut because the page changed too much is not one whose first change is a single
 * line longer than the diff holds, and a change shown with no context at all is a patch plain `git apply` does not
 * take (docs/llm.md's one exception).
 */

/** Hunk lines (context, deleted, added) `diff.text` and `diff.json` show at most; the rest is cut with a warning. */
export const DIFF_MAX_LINES = 10_000;
/**
 * Characters of hunk lines `diff.text` holds at most (and so about as many of content in `diff.json`, which adds
 * ~60 bytes of JSON per line: ~1.6 MB for the two at both bounds).
 */
export const DIFF_MAX_TEXT_CHARS = 1_000_000;

/** How much of a cut diff is shown: hunk lines shown and in all (at full context), without `\ No newline` marks. */
export interface DiffCut {
  shownLines: number;
  totalLines: number;
  /**
   * Set when the first change left out is left out whole because one of its lines is too long for the diff by itself
   * (with its hunk's header, more characters than the diff holds): `lineChars` is that line's length. Absent when the
   * changes together were more than the bounds.
   */
  longLine?: { lineChars: number };
}

/** Context lines left out so that the changes next to them fit (each hunk keeps as many on each side). */
export interface ContextLeftOut {
  lines: number;
  chars: number;
  /**
   * Hunks shown with no context line at all that plain `git apply` does not place (change-tracking/hunks.ts
   * placedByPlainGit): their neighbouring lines are too long for the diff. Absent when there are none.
   */
  bareHunks?: number;
}

const BOUNDS = `at most ${DIFF_MAX_LINES} lines and ${DIFF_MAX_TEXT_CHARS} characters`;

/** The warning of a diff that was cut, saying why: too many changes, or a change with a line too long for it. */
export function diffCutWarning(cut: DiffCut): string {
  const long = cut.longLine;
  if (long && cut.shownLines === 0) {
    return `The changeTracking diff shows none of its ${cut.totalLines} lines (${BOUNDS}): its first change has a line of ${long.lineChars} characters, too long for the diff by itself.`;
  }
  if (long) {
    return `The changeTracking diff is cut to its first ${cut.shownLines} of ${cut.totalLines} lines (${BOUNDS}): its next change has a line of ${long.lineChars} characters, too long for the diff by itself.`;
  }
  return `The changeTracking diff is cut to its first ${cut.shownLines} of ${cut.totalLines} lines (${BOUNDS}): the page changed too much to show in full.`;
}

/** The warning of a diff shown with less context than usual around some of its changes (and none around some). */
export function contextLeftOutWarning(left: ContextLeftOut, context: number): string {
  const one = left.lines === 1;
  const text = `The changeTracking diff shows fewer than ${context} lines of context around some changes: ${left.lines} unchanged ${one ? "line" : "lines"} next to them (${left.chars} characters) ${one ? "is" : "are"} left out to keep within its bounds (${BOUNDS}).`;
  const bare = left.bareHunks ?? 0;
  if (bare === 0) return text;
  return `${text} ${bare} ${bare === 1 ? "hunk has" : "hunks have"} no context line at all, the lines next to ${bare === 1 ? "its changes" : "their changes"} being too long for the diff: GNU patch and git apply --unidiff-zero apply the diff by its line numbers, plain git apply refuses them or, for added lines, puts them at the page's end.`;
}
