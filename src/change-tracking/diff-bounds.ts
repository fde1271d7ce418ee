/**
 * @module change-tracking/diff-bounds
 * How much of a diff changeTracking's `git-diff` mode shows (change-tracking/diff.ts). A page rewritten throughout
 * is a diff as long as both versions, and `diff.json` makes each line an object as well: a 750 KB page made a 57 MB
 * response, stalled the server's other requests 0.9–1.8 s and peaked at 2.0 GB of memory; 500,000 changed table
 * rows, 144 MB and 4.5 s. The result is also stored for `GET /v2/scrape/{id}`. A diff that long is no longer read as
 * a diff, so it is cut, with a warning saying how much is shown.
 *
 * Whatever is left out, the text stays a patch GNU patch and plain `git apply` accept (change-tracking/hunks.ts says
 * what they need), built from the edit script rather than by trimming hunks, with one exception (below):
 * - A hunk whose changes fit but whose context does not (an unchanged paragraph of a megabyte next to a price that
 *   changed) is shown with less context: the widest that fits, the same number of lines on each side, then none
 *   before and one after ({@link AFTER_ONLY}): its changes are what matters. The exception (docs/llm.md): when a line
 *   next to the change is too long to be its context (with the change, more than the diff holds), its changes are
 *   shown with no context at all ({@link NO_CONTEXT}), which GNU patch and `git apply --unidiff-zero` apply by their
 *   line numbers and plain `git apply` does not (in the middle of the page it takes such a hunk as anchored at the
 *   end). The warning counts such hunks (change-tracking/diff-warnings.ts).
 * - When the changes themselves do not fit, the diff is cut: whole hunks while they fit, then the first changes of
 *   the next, followed by context lines of the previous version from where the kept changes stop, so that the text
 *   turns the previous version into an intermediate one. In a passage replaced at length (deleted lines, then added
 *   ones) the room left is shared between the two sides, so that the start of the new version shows, not only the
 *   old one's. The warning says whether the changes were too many or one of their lines too long by itself.
 */
import type { StructuredPatchHunk } from "diff";
import type { ContextLeftOut, DiffCut } from "./diff-warnings.ts";
import { AFTER_ONLY, buildHunk, hunkRanges, hunksOf, NO_CONTEXT, NO_NEWLINE_MARKER, placedByPlainGit, sidesOf, type HunkContext } from "./hunks.ts";
import { addHunks, addLines, HEADER_CHARS, hunksCost, lineChars, minus, plus, take, within, type Room } from "./diff-cost.ts";
import type { Edit, LineEdits } from "./line-diff.ts";

export type { Room } from "./diff-cost.ts";
export { contextLeftOutWarning, DIFF_MAX_LINES, DIFF_MAX_TEXT_CHARS, diffCutWarning, type ContextLeftOut, type DiffCut } from "./diff-warnings.ts";

/** What a bounded diff shows: its hunks, and what was left out, if anything. */
export interface BoundedHunks {
  hunks: StructuredPatchHunk[];
  /** Changes were left out: the diff shows its first ones. */
  cut?: DiffCut;
  /** Context was left out around changes that are shown. */
  contextLeftOut?: ContextLeftOut;
}

/**
 * The contexts a hunk of `context` lines on each side may be narrowed to, widest first: as many lines on each side,
 * down to one, then {@link AFTER_ONLY}. A narrower level is not always cheaper (two changes one hunk shares at one
 * line each side are two hunks, with two headers, at the line after only), so each is tried. {@link NO_CONTEXT} is
 * apart: only for a line too long to be context ({@link withoutContext}).
 */
function narrowings(context: number): HunkContext[] {
  const out: HunkContext[] = [];
  for (let c = context; c > 0; c--) out.push(sidesOf(c));
  out.push(AFTER_ONLY);
  return out;
}

/** Whether `level` is narrower than `context` lines on each side. */
const narrowed = (level: HunkContext, context: number) => level.before < context || level.after < context;

/**
 * The cost of the hunks of `edits` without context, if they fit in `room` and may be shown so: when plain `git apply`
 * places each of them anyway (at the page's end), or when a line they would take as the context after a change
 * ({@link AFTER_ONLY}) is too long to be context: with them, it would not fit even in an empty diff (`bounds`). The
 * latter is docs/llm.md's one exception to plain `git apply`: a price between two paragraphs of a megabyte is shown.
 * Not for a room that earlier hunks have filled, nor for many moderate lines that fill it together: their diff is cut
 * instead, and stays a patch plain `git apply` takes.
 */
function withoutContext(d: LineEdits, edits: readonly Edit[], room: Room, bounds: Room): Room | undefined {
  const bare = hunksCost(d, edits, NO_CONTEXT, room);
  if (!bare) return undefined;
  for (const r of hunkRanges(edits, AFTER_ONLY)) {
    const at = edits[r.last]!.aEnd;
    if (at < d.a.length && lineChars(d.a[at]!) + bare.chars > bounds.chars) return bare;
  }
  const placed = hunkRanges(edits, NO_CONTEXT).every((r) => placedByPlainGit(buildHunk(d.a, d.b, edits, r, NO_CONTEXT), d.a.length));
  return placed ? bare : undefined;
}

/**
 * The most context, up to `context` lines on each side, with which the hunks of `edits` (one hunk at `context`) fit in
 * `room`, and their cost; else none, when a line next to them is too long to be context ({@link withoutContext});
 * else undefined. Each level is tried, widest first: each costs at most the room (it stops counting past it).
 */
function contextThatFits(d: LineEdits, edits: readonly Edit[], context: number, room: Room, bounds: Room): { context: HunkContext; cost: Room } | undefined {
  for (const level of narrowings(context)) {
    const cost = hunksCost(d, edits, level, room);
    if (cost) return { context: level, cost };
  }
  const bare = withoutContext(d, edits, room, bounds);
  return bare ? { context: NO_CONTEXT, cost: bare } : undefined;
}

/**
 * The part of edit `e` that fits in `avail` (less `lead`, the hunk lines before it), followed by `context` lines of
 * the previous version from where its kept deleted lines stop: its deleted side gets half the room (or all the added
 * side leaves it), its added side the rest. Undefined when none of its lines fit.
 */
function partOf(d: LineEdits, e: Edit, context: HunkContext, lead: Room, avail: Room): { edit: Edit; cost: Room } | undefined {
  const { a, b } = d;
  const trailing = (at: number): Room => {
    const cost = { lines: 0, chars: 0 };
    addLines(cost, a, at, Math.min(a.length, at + context.after));
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
    let dels = take(a, e.aStart, e.aEnd, { lines: Math.min(delCap.lines, budget.lines), chars: Math.min(delCap.chars, budget.chars) });
    let added = take(b, e.bStart, e.bEnd, minus(budget, dels.cost));
    // A line without a newline is the last of its version: no line of the previous version may follow it.
    if (added.count > 0 && !b[e.bStart + added.count - 1]!.endsWith("\n") && e.aStart + dels.count < a.length) {
      added = take(b, e.bStart, e.bStart + added.count - 1, minus(budget, dels.cost));
    }
    // The added side taking none of its share (its first line too long), the deleted side may have it all.
    if (added.count === 0) dels = take(a, e.aStart, e.aEnd, budget);
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
function keptEdits(d: LineEdits, edits: readonly Edit[], context: HunkContext, room: Room): Edit[] {
  const { a, b } = d;
  const kept: Edit[] = [];
  // The kept edits' hunks, less the context after the last one (it depends on where they stop).
  let used = { lines: 0, chars: 0 };
  const trailing = (at: number): Room => {
    const cost = { lines: 0, chars: 0 };
    addLines(cost, a, at, Math.min(a.length, at + context.after));
    return cost;
  };
  for (const e of edits) {
    const prev = kept[kept.length - 1];
    const lead = { lines: 0, chars: 0 };
    if (!prev || e.aStart - prev.aEnd > context.before + context.after) {
      if (prev) addLines(lead, a, prev.aEnd, prev.aEnd + context.after);
      lead.chars += HEADER_CHARS;
      addLines(lead, a, e.aStart - Math.min(context.before, e.aStart), e.aStart);
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

/** Hunk lines of the whole diff with `context` lines of context on each side (counted, not built). */
function totalLines(d: LineEdits, context: number): number {
  const cost = { lines: 0, chars: 0 };
  addHunks(cost, d, d.edits, sidesOf(context));
  return cost.lines;
}

/**
 * The first change of a diff cut there with nothing of it shown, when that is because one of its lines is too long
 * for the diff by itself (with a hunk's header, more than `bounds` holds): that line's length, for the warning.
 */
function longLineOf(d: LineEdits, e: Edit, bounds: Room): DiffCut["longLine"] {
  const line = e.aEnd > e.aStart ? d.a[e.aStart]! : d.b[e.bStart];
  if (line === undefined || HEADER_CHARS + lineChars(line) <= bounds.chars) return undefined;
  return { lineChars: line.endsWith("\n") ? line.length - 1 : line.length };
}

/**
 * The hunks of `d` with `context` lines of context within `bounds` (lines and characters of hunk lines), and what
 * was left out when they did not fit.
 */
export function boundedHunks(d: LineEdits, context: number, bounds: Room): BoundedHunks {
  const room = { ...bounds };
  const out: StructuredPatchHunk[] = [];
  let leftOut: Room | undefined;
  /** Counts the unchanged lines the hunks of `edits` show at full context and not at `level` (headers aside). */
  const narrowedTo = (edits: readonly Edit[], level: HunkContext, cost: Room) => {
    const full = { lines: 0, chars: 0 };
    addHunks(full, d, edits, sidesOf(context));
    const headers = (hunkRanges(edits, context).length - hunkRanges(edits, level).length) * HEADER_CHARS;
    leftOut = plus(leftOut ?? { lines: 0, chars: 0 }, { lines: full.lines - cost.lines, chars: full.chars - cost.chars - headers });
  };
  let cut: DiffCut | undefined;
  for (const r of hunkRanges(d.edits, context)) {
    const edits = d.edits.slice(r.first, r.last + 1);
    const fit = contextThatFits(d, edits, context, room, bounds);
    if (fit) {
      out.push(...hunksOf({ a: d.a, b: d.b, edits }, fit.context));
      Object.assign(room, minus(room, fit.cost));
      if (narrowed(fit.context, context)) narrowedTo(edits, fit.context, fit.cost);
      continue;
    }
    let shown = false;
    for (const level of [...narrowings(context), NO_CONTEXT]) {
      const kept = keptEdits(d, edits, level, { ...room });
      if (kept.length === 0) continue;
      // Without context only when a line is too long to be context, not to squeeze a change into the last lines.
      if (level === NO_CONTEXT && !withoutContext(d, kept, room, bounds)) break;
      out.push(...hunksOf({ a: d.a, b: d.b, edits: kept }, level));
      if (narrowed(level, context)) {
        const cost = { lines: 0, chars: 0 };
        addHunks(cost, d, kept, level);
        narrowedTo(kept, level, cost);
      }
      shown = true;
      break;
    }
    cut = { shownLines: countLines(out), totalLines: totalLines(d, context) };
    const long = shown ? undefined : longLineOf(d, edits[0]!, bounds);
    if (long) cut.longLine = long;
    break;
  }
  const bounded: BoundedHunks = { hunks: out };
  if (cut) bounded.cut = cut;
  const bare = out.filter((h) => !placedByPlainGit(h, d.a.length)).length;
  if (bare > 0) leftOut ??= { lines: 0, chars: 0 };
  if (leftOut) bounded.contextLeftOut = bare > 0 ? { ...leftOut, bareHunks: bare } : { ...leftOut };
  return bounded;
}
