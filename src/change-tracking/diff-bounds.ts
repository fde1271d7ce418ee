/**
 * @module change-tracking/diff-bounds
 * How much of a diff changeTracking's `git-diff` mode shows (change-tracking/diff.ts). A page rewritten throughout
 * is a diff as long as both versions, and `diff.json` makes each line an object as well: a 750 KB page made a 57 MB
 * response, stalled the server's other requests 0.9–1.8 s and peaked at 2.0 GB of memory; 500,000 changed table
 * rows, 144 MB and 4.5 s. The result is also stored for `GET /v2/scrape/{id}`. A diff that long is no longer read as
 * a diff, so it is cut, with a warning saying how much is shown.
 *
 * Whatever is left out, the text stays a patch GNU patch and `git apply` accept (change-tracking/hunks.ts says what
 * they need), built from the edit script rather than by trimming hunks:
 * - A hunk whose changes fit but whose context does not (an unchanged paragraph of a megabyte next to a price that
 *   changed) is shown with less context, the same number of lines on each side: its changes are what matters.
 * - When the changes themselves do not fit, the diff is cut: whole hunks while they fit, then the first changes of
 *   the next, followed by context lines of the previous version from where the kept changes stop, so that the text
 *   turns the previous version into an intermediate one. In a passage replaced at length (deleted lines, then added
 *   ones) the room left is shared between the two sides, so that the start of the new version shows, not only the
 *   old one's.
 */
import type { StructuredPatchHunk } from "diff";
import { hunkRanges, hunksOf, NO_NEWLINE_MARKER } from "./hunks.ts";
import type { Edit, LineEdits } from "./line-diff.ts";

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
}

/** Context lines left out so that the changes next to them fit (each hunk keeps as many on each side). */
export interface ContextLeftOut {
  lines: number;
  chars: number;
}

/** Room left, in lines and characters of hunk lines. */
export interface Room {
  lines: number;
  chars: number;
}

/** What a bounded diff shows: its hunks, and what was left out, if anything. */
export interface BoundedHunks {
  hunks: StructuredPatchHunk[];
  /** Changes were left out: the diff shows its first ones. */
  cut?: DiffCut;
  /** Context was left out around changes that are shown. */
  contextLeftOut?: ContextLeftOut;
}

/** The warning of a diff that was cut. */
export function diffCutWarning(cut: DiffCut): string {
  return `The changeTracking diff is cut to its first ${cut.shownLines} of ${cut.totalLines} lines (at most ${DIFF_MAX_LINES} lines and ${DIFF_MAX_TEXT_CHARS} characters): the page changed too much to show in full.`;
}

/** The warning of a diff shown with less context than usual around some of its changes. */
export function contextLeftOutWarning(left: ContextLeftOut, context: number): string {
  return `The changeTracking diff shows fewer than ${context} lines of context around some changes: ${left.lines} unchanged ${left.lines === 1 ? "line" : "lines"} next to them (${left.chars} characters) ${left.lines === 1 ? "is" : "are"} left out to keep within its bounds (at most ${DIFF_MAX_LINES} lines and ${DIFF_MAX_TEXT_CHARS} characters).`;
}

/** Characters a header takes in the text, at most (`@@ -l,n +l,n @@` with 10-digit numbers). */
const HEADER_CHARS = 60;

/** Characters `line` (with its `\n`, or the last of its version without one) takes in the text, with its sign. */
function lineChars(line: string): number {
  return line.endsWith("\n") ? line.length + 1 : line.length + 3 + NO_NEWLINE_MARKER.length;
}

/** Whether `cost` is within `room`. */
const within = (cost: Room, room: Room) => cost.lines <= room.lines && cost.chars <= room.chars;
/** `x + y`, as a new room. */
const plus = (x: Room, y: Room): Room => ({ lines: x.lines + y.lines, chars: x.chars + y.chars });
/** `x - y`, as a new room. */
const minus = (x: Room, y: Room): Room => ({ lines: x.lines - y.lines, chars: x.chars - y.chars });

/**
 * Adds the lines `lines[from, to)` to `cost`; false (and stops reading) once it is past `limit`: a run of a million
 * lines costs only what fits.
 */
function addLines(cost: Room, lines: readonly string[], from: number, to: number, limit: Room = { lines: Infinity, chars: Infinity }): boolean {
  for (let i = from; i < to; i++) {
    cost.lines++;
    cost.chars += lineChars(lines[i]!);
    if (!within(cost, limit)) return false;
  }
  return true;
}

/** How many of `lines[from, to)` fit in `cap` from the first, and what they cost. */
function take(lines: readonly string[], from: number, to: number, cap: Room): { count: number; cost: Room } {
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
function addHunks(cost: Room, d: LineEdits, edits: readonly Edit[], context: number, limit?: Room): boolean {
  const { a, b } = d;
  for (const r of hunkRanges(edits, context)) {
    const first = edits[r.first]!;
    const last = edits[r.last]!;
    cost.chars += HEADER_CHARS;
    if (!addLines(cost, a, first.aStart - Math.min(context, first.aStart), first.aStart, limit)) return false;
    for (let k = r.first; k <= r.last; k++) {
      const e = edits[k]!;
      const next = k < r.last ? edits[k + 1]!.aStart : Math.min(a.length, last.aEnd + context);
      if (!addLines(cost, a, e.aStart, e.aEnd, limit) || !addLines(cost, b, e.bStart, e.bEnd, limit) || !addLines(cost, a, e.aEnd, next, limit)) return false;
    }
  }
  return limit === undefined || within(cost, limit);
}

/** The cost of the hunks of `edits` with `context` lines of context, if it is within `limit`. */
function hunksCost(d: LineEdits, edits: readonly Edit[], context: number, limit: Room): Room | undefined {
  const cost = { lines: 0, chars: 0 };
  return addHunks(cost, d, edits, context, limit) ? cost : undefined;
}

/**
 * The most context, up to `context` lines, with which the hunks of `edits` (one hunk at `context`) fit in `room`, and
 * their cost; undefined when even their changes alone do not fit. With no context, a hunk that is neither at the start
 * nor at the end of the page applies with GNU patch by its line numbers (`git apply` needs `--unidiff-zero`): only
 * for a change whose neighbouring lines are each too long for the diff.
 */
function contextThatFits(d: LineEdits, edits: readonly Edit[], context: number, room: Room): { context: number; cost: Room } | undefined {
  const full = hunksCost(d, edits, context, room);
  if (full) return { context, cost: full };
  const bare = hunksCost(d, edits, 0, room);
  if (!bare) return undefined;
  for (let c = context - 1; c > 0; c--) {
    const cost = hunksCost(d, edits, c, room);
    if (cost) return { context: c, cost };
  }
  return { context: 0, cost: bare };
}

/**
 * The part of edit `e` that fits in `avail` (less `lead`, the hunk lines before it), followed by `context` lines of
 * the previous version from where its kept deleted lines stop: its deleted side gets half the room (or all the added
 * side leaves it), its added side the rest. Undefined when none of its lines fit.
 */
function partOf(d: LineEdits, e: Edit, context: number, lead: Room, avail: Room): { edit: Edit; cost: Room } | undefined {
  const { a, b } = d;
  const trailing = (at: number): Room => {
    const cost = { lines: 0, chars: 0 };
    addLines(cost, a, at, Math.min(a.length, at + context));
    return cost;
  };
  // The room the lines after the kept part take depends on where it stops: reserved, and checked after.
  let reserve = trailing(e.aStart);
  for (let attempt = 0; attempt < 3; attempt++) {
    const budget = minus(minus(avail, lead), reserve);
    if (budget.lines <= 0 || budget.chars <= 0) return undefined;
    const adds = { lines: 0, chars: 0 };
    addLines(adds, b, e.bStart, e.bEnd, budget);
    const delCap = { lines: Math.max(Math.floor(budget.lines / 2), budget.lines - adds.lines), chars: Math.max(Math.floor(budget.chars / 2), budget.chars - adds.chars) };
    const dels = take(a, e.aStart, e.aEnd, { lines: Math.min(delCap.lines, budget.lines), chars: Math.min(delCap.chars, budget.chars) });
    let added = take(b, e.bStart, e.bEnd, minus(budget, dels.cost));
    // A line without a newline is the last of its version: no line of the previous version may follow it.
    if (added.count > 0 && !b[e.bStart + added.count - 1]!.endsWith("\n") && e.aStart + dels.count < a.length) {
      added = take(b, e.bStart, e.bStart + added.count - 1, minus(budget, dels.cost));
    }
    if (dels.count + added.count === 0) return undefined;
    const after = trailing(e.aStart + dels.count);
    const edit = { aStart: e.aStart, aEnd: e.aStart + dels.count, bStart: e.bStart, bEnd: e.bStart + added.count };
    if (within(after, reserve)) return { edit, cost: plus(plus(lead, dels.cost), added.cost) };
    reserve = { lines: Math.max(reserve.lines, after.lines), chars: Math.max(reserve.chars, after.chars) };
  }
  return undefined;
}

/**
 * The first changes of `edits` that fit in `room` with `context` lines of context, as edits (the last maybe cut
 * short); consumes the room. The lines after the last kept change are the previous version's lines from there.
 */
function keptEdits(d: LineEdits, edits: readonly Edit[], context: number, room: Room): Edit[] {
  const { a, b } = d;
  const kept: Edit[] = [];
  // The kept edits' hunks, less the context after the last one (it depends on where they stop).
  let used = { lines: 0, chars: 0 };
  const trailing = (at: number): Room => {
    const cost = { lines: 0, chars: 0 };
    addLines(cost, a, at, Math.min(a.length, at + context));
    return cost;
  };
  for (const e of edits) {
    const prev = kept[kept.length - 1];
    const lead = { lines: 0, chars: 0 };
    if (!prev || e.aStart - prev.aEnd > 2 * context) {
      if (prev) addLines(lead, a, prev.aEnd, prev.aEnd + context);
      lead.chars += HEADER_CHARS;
      addLines(lead, a, e.aStart - Math.min(context, e.aStart), e.aStart);
    } else addLines(lead, a, prev.aEnd, e.aStart);
    const avail = minus(room, used);
    const whole = { ...lead };
    if (addLines(whole, a, e.aStart, e.aEnd, avail) && addLines(whole, b, e.bStart, e.bEnd, avail) && within(plus(whole, trailing(e.aEnd)), avail)) {
      kept.push(e);
      used = plus(used, whole);
      continue;
    }
    const part = partOf(d, e, context, lead, avail);
    if (part) {
      kept.push(part.edit);
      used = plus(used, part.cost);
    }
    break;
  }
  if (kept.length > 0) Object.assign(room, minus(room, plus(used, trailing(kept[kept.length - 1]!.aEnd))));
  return kept;
}

/** Hunk lines in `hunks`, without `\ No newline` marks (found natively: a hunk may have a million lines). */
function countLines(hunks: readonly StructuredPatchHunk[]): number {
  let n = 0;
  for (const h of hunks) {
    n += h.lines.length;
    for (let i = h.lines.indexOf(NO_NEWLINE_MARKER); i >= 0; i = h.lines.indexOf(NO_NEWLINE_MARKER, i + 1)) n--;
  }
  return n;
}

/** Hunk lines of the whole diff with `context` lines of context (counted, not built). */
function totalLines(d: LineEdits, context: number): number {
  const cost = { lines: 0, chars: 0 };
  addHunks(cost, d, d.edits, context);
  return cost.lines;
}

/**
 * The hunks of `d` with `context` lines of context within `bounds` (lines and characters of hunk lines), and what
 * was left out when they did not fit.
 */
export function boundedHunks(d: LineEdits, context: number, bounds: Room): BoundedHunks {
  const room = { ...bounds };
  const out: StructuredPatchHunk[] = [];
  let contextLeftOut: ContextLeftOut | undefined;
  for (const r of hunkRanges(d.edits, context)) {
    const edits = d.edits.slice(r.first, r.last + 1);
    const fit = contextThatFits(d, edits, context, room);
    if (fit) {
      out.push(...hunksOf({ a: d.a, b: d.b, edits }, fit.context));
      Object.assign(room, minus(room, fit.cost));
      if (fit.context < context) {
        // The unchanged lines the full context would show and these hunks do not (their headers aside).
        const full = { lines: 0, chars: 0 };
        addHunks(full, d, edits, context);
        const headers = (hunkRanges(edits, context).length - hunkRanges(edits, fit.context).length) * HEADER_CHARS;
        contextLeftOut = plus(contextLeftOut ?? { lines: 0, chars: 0 }, { lines: full.lines - fit.cost.lines, chars: full.chars - fit.cost.chars - headers });
      }
      continue;
    }
    for (let c = context; c >= 0; c--) {
      const trial = { ...room };
      const kept = keptEdits(d, edits, c, trial);
      if (kept.length === 0) continue;
      out.push(...hunksOf({ a: d.a, b: d.b, edits: kept }, c));
      break;
    }
    const bounded: BoundedHunks = { hunks: out, cut: { shownLines: countLines(out), totalLines: totalLines(d, context) } };
    if (contextLeftOut) bounded.contextLeftOut = contextLeftOut;
    return bounded;
  }
  return contextLeftOut ? { hunks: out, contextLeftOut } : { hunks: out };
}
