/**
 * @module change-tracking/diff-bounds
 * How much of a diff changeTracking's `git-diff` mode shows (change-tracking/diff.ts). A page rewritten throughout
 * is a diff as long as both versions, and `diff.json` makes each line an object as well: a 750 KB page made a 57 MB
 * response, stalled the server's other requests 0.9–1.8 s and peaked at 2.0 GB of memory; 500,000 changed table
 * rows, 144 MB and 4.5 s. The result is also stored for `GET /v2/scrape/{id}`. A diff that long is no longer read as
 * a diff, so it is cut, with a warning saying how much is shown.
 *
 * The cut keeps the text a valid patch: whole hunks while they fit, then the start of the first that does not, its
 * header counting only the lines kept. In a passage replaced at length (deleted lines, then added ones) the room
 * left is shared between the two sides, so that the start of the new version shows, not only the old one's.
 */
import type { StructuredPatchHunk } from "diff";
import { NO_NEWLINE_MARKER } from "./line-diff.ts";

/** Hunk lines (context, deleted, added) `diff.text` and `diff.json` show at most; the rest is cut with a warning. */
export const DIFF_MAX_LINES = 10_000;
/**
 * Characters of hunk lines `diff.text` holds at most (and so about as many of content in `diff.json`, which adds
 * ~60 bytes of JSON per line: ~1.6 MB for the two at both bounds).
 */
export const DIFF_MAX_TEXT_CHARS = 1_000_000;

/** How much of a cut diff is shown: hunk lines shown and in all, without `\ No newline` marks. */
export interface DiffCut {
  shownLines: number;
  totalLines: number;
}

/** Room left, in lines and characters. */
export interface Room {
  lines: number;
  chars: number;
}

/** The warning of a diff that was cut. */
export function diffCutWarning(cut: DiffCut): string {
  return `The changeTracking diff is cut to its first ${cut.shownLines} of ${cut.totalLines} lines (at most ${DIFF_MAX_LINES} lines and ${DIFF_MAX_TEXT_CHARS} characters): the page changed too much to show in full.`;
}

/** Characters a header takes in the text, at most (`@@ -l,n +l,n @@` with 10-digit numbers). */
const HEADER_CHARS = 60;

/** Room left, and how much of it a run of lines may take at most. */
type Cap = Room;

/**
 * Takes lines of `lines` from `from` while they fit `room` (and `cap`, when given), each line with the `\ No newline`
 * mark that follows it; consumes the room, and returns the index after the last line taken. Lines are read one by
 * one, so a hunk of a million lines costs only what is kept of it.
 */
function takeLines(lines: readonly string[], from: number, to: number, room: Room, out: string[], cap: Cap = room): number {
  let taken = 0;
  let chars = 0;
  let i = from;
  while (i < to) {
    const marker = i + 1 < lines.length && lines[i + 1] === NO_NEWLINE_MARKER;
    const size = lines[i]!.length + 1 + (marker ? NO_NEWLINE_MARKER.length + 1 : 0);
    if (taken + 1 > Math.min(cap.lines, room.lines) || chars + size > Math.min(cap.chars, room.chars)) break;
    out.push(lines[i]!);
    if (marker) out.push(NO_NEWLINE_MARKER);
    taken++;
    chars += size;
    i += marker ? 2 : 1;
  }
  room.lines -= taken;
  room.chars -= chars;
  return i;
}

/**
 * The end of the run of lines signed `sign` from `from` (their `\ No newline` marks included), and its lines and
 * characters, counted up to `room` only: past it, how far past does not matter.
 */
function runOf(lines: readonly string[], from: number, sign: string, room: Room): { end: number; lines: number; chars: number } {
  let end = from;
  let count = 0;
  let chars = 0;
  while (end < lines.length && (lines[end]![0] === sign || (end > from && lines[end] === NO_NEWLINE_MARKER))) {
    if (count <= room.lines && chars <= room.chars) {
      if (lines[end] !== NO_NEWLINE_MARKER) count++;
      chars += lines[end]!.length + 1;
    }
    end++;
  }
  return { end, lines: count, chars };
}

/**
 * The start of hunk `h` that fits in `room`: context lines, then each run of changes (its deleted lines, then its
 * added ones) whole while it fits; of the first run that does not, the deleted side gets half the room (or all the
 * added side leaves it) and the added side the rest. Undefined when no change fits (its leading context alone).
 */
function cutHunk(h: StructuredPatchHunk, room: Room): StructuredPatchHunk | undefined {
  const { lines } = h;
  const kept: string[] = [];
  let changed = false;
  for (let i = 0; i < lines.length; ) {
    if (lines[i]![0] === " ") {
      const next = takeLines(lines, i, i + 1, room, kept);
      if (next === i) break;
      i = next;
      continue;
    }
    const dels = runOf(lines, i, "-", room);
    const adds = runOf(lines, dels.end, "+", room);
    if (dels.lines + adds.lines <= room.lines && dels.chars + adds.chars <= room.chars) {
      for (let j = i; j < adds.end; j++) kept.push(lines[j]!);
      room.lines -= dels.lines + adds.lines;
      room.chars -= dels.chars + adds.chars;
      changed = true;
      i = adds.end;
      continue;
    }
    const delCap = { lines: Math.max(Math.floor(room.lines / 2), room.lines - adds.lines), chars: Math.max(Math.floor(room.chars / 2), room.chars - adds.chars) };
    const before = kept.length;
    takeLines(lines, i, dels.end, room, kept, delCap);
    takeLines(lines, dels.end, adds.end, room, kept);
    changed ||= kept.length > before;
    break;
  }
  if (!changed) return undefined;
  let oldLines = 0;
  let newLines = 0;
  for (const line of kept) {
    if (line === NO_NEWLINE_MARKER) continue;
    if (line[0] !== "+") oldLines++;
    if (line[0] !== "-") newLines++;
  }
  return { ...h, oldLines, newLines, lines: kept };
}

/** Hunk lines in `hunks`, without `\ No newline` marks (two at most, found natively: a hunk may have a million lines). */
function countLines(hunks: readonly StructuredPatchHunk[]): number {
  let n = 0;
  for (const h of hunks) {
    n += h.lines.length;
    for (let i = h.lines.indexOf(NO_NEWLINE_MARKER); i >= 0; i = h.lines.indexOf(NO_NEWLINE_MARKER, i + 1)) n--;
  }
  return n;
}

/** Whether hunk `h` fits in `room` whole; consumes the room when it does. Reads no further than the room. */
function fitsWhole(h: StructuredPatchHunk, room: Room): boolean {
  let lines = 0;
  let chars = 0;
  for (const line of h.lines) {
    if (line !== NO_NEWLINE_MARKER) lines++;
    chars += line.length + 1;
    if (lines > room.lines || chars > room.chars) return false;
  }
  room.lines -= lines;
  room.chars -= chars;
  return true;
}

/** The hunks within `bounds` (lines and characters of hunk lines), and how much was shown when they did not fit. */
export function boundedHunks(hunks: StructuredPatchHunk[], bounds: Room): { hunks: StructuredPatchHunk[]; cut?: DiffCut } {
  const room = { ...bounds };
  const out: StructuredPatchHunk[] = [];
  for (const h of hunks) {
    room.chars -= HEADER_CHARS;
    if (fitsWhole(h, room)) {
      out.push(h);
      continue;
    }
    const start = cutHunk(h, room);
    if (start) out.push(start);
    return { hunks: out, cut: { shownLines: countLines(out), totalLines: countLines(hunks) } };
  }
  return { hunks: out };
}
