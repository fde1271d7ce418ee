/**
 * @module change-tracking/diff-cost
 * What hunks cost in a `git-diff`'s text, in lines and characters (change-tracking/diff-bounds.ts keeps them within
 * its bounds): counted from the edit script without building them, and only as far as a limit, so that a run of a
 * million lines costs only what fits.
 */
import { hunkRanges, NO_NEWLINE_MARKER, type HunkContext } from "./hunks.ts";
import type { Edit, LineEdits } from "./line-diff.ts";

/** Room left, in lines and characters of hunk lines. */
export interface Room {
  lines: number;
  chars: number;
}

/** Characters a header takes in the text, at most (`@@ -l,n +l,n @@` with 10-digit numbers). */
export const HEADER_CHARS = 60;

/** Characters `line` (with its `\n`, or the last of its version without one) takes in the text, with its sign. */
export function lineChars(line: string): number {
  return line.endsWith("\n") ? line.length + 1 : line.length + 3 + NO_NEWLINE_MARKER.length;
}

/** Whether `cost` is within `room`. */
export const within = (cost: Room, room: Room) => cost.lines <= room.lines && cost.chars <= room.chars;
/** `x + y`, as a new room. */
export const plus = (x: Room, y: Room): Room => ({ lines: x.lines + y.lines, chars: x.chars + y.chars });
/** `x - y`, as a new room. */
export const minus = (x: Room, y: Room): Room => ({ lines: x.lines - y.lines, chars: x.chars - y.chars });

/**
 * Adds the lines `lines[from, to)` to `cost`; false (and stops reading) once it is past `limit`: a run of a million
 * lines costs only what fits.
 */
export function addLines(cost: Room, lines: readonly string[], from: number, to: number, limit: Room = { lines: Infinity, chars: Infinity }): boolean {
  for (let i = from; i < to; i++) {
    cost.lines++;
    cost.chars += lineChars(lines[i]!);
    if (!within(cost, limit)) return false;
  }
  return true;
}

/** How many of `lines[from, to)` fit in `cap` from the first, and what they cost. */
export function take(lines: readonly string[], from: number, to: number, cap: Room): { count: number; cost: Room } {
  const cost = { lines: 0, chars: 0 };
  let i = from;
  for (; i < to; i++) {
    const chars = lineChars(lines[i]!);
    if (cost.lines + 1 > cap.lines || cost.chars + chars > cap.chars) break;
    cost.lines++;
    cost.chars += chars;
  }
  return { count: i - from, cost };
}

/** What the hunks of `edits` with `context` lines of context cost; false once past `limit`. */
export function addHunks(cost: Room, d: LineEdits, edits: readonly Edit[], context: HunkContext, limit?: Room): boolean {
  const { a, b } = d;
  for (const r of hunkRanges(edits, context)) {
    const first = edits[r.first]!;
    const last = edits[r.last]!;
    cost.chars += HEADER_CHARS;
    if (!addLines(cost, a, first.aStart - Math.min(context.before, first.aStart), first.aStart, limit)) return false;
    for (let k = r.first; k <= r.last; k++) {
      const e = edits[k]!;
      const next = k < r.last ? edits[k + 1]!.aStart : Math.min(a.length, last.aEnd + context.after);
      if (!addLines(cost, a, e.aStart, e.aEnd, limit) || !addLines(cost, b, e.bStart, e.bEnd, limit) || !addLines(cost, a, e.aEnd, next, limit)) return false;
    }
  }
  return limit === undefined || within(cost, limit);
}

/** The cost of the hunks of `edits` with `context` lines of context, if it is within `limit`. */
export function hunksCost(d: LineEdits, edits: readonly Edit[], context: HunkContext, limit: Room): Room | undefined {
  const cost = { lines: 0, chars: 0 };
  return addHunks(cost, d, edits, context, limit) ? cost : undefined;
}
