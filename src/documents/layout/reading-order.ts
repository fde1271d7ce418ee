/**
 * @module documents/layout/reading-order
 * Puts a page's lines in reading order. Multi-column regions are read column by column: a gutter is a vertical
 * band that no line of a region crosses, with lines on both sides that *fill* their column (a table's cells
 * also leave gutters, but they are short, so tables keep their row order). Lines that span the gutter (titles,
 * full-width figures) split the page into regions that are read top to bottom.
 */
import type { TextLine } from "./model.ts";

/** A column's lines must reach this share of the column's width (median) for the column to count as text. */
const FILL_SHARE = 0.6;
/** Lines needed on each side of a gutter. */
const MIN_COLUMN_LINES = 3;
/**
 * Gutter positions tried per page, whatever its width (every 2 pt on a normal page): a crafted page 1e8 pt wide
 * must not cost 25 million tries.
 */
const MAX_GUTTER_CANDIDATES = 400;
/** Lines beyond which a page is read top to bottom without looking for columns (the search is lines × positions). */
const MAX_COLUMN_SEARCH_LINES = 5_000;

/** Smallest left edge of `lines` (a loop: a spread of a million lines overflows the argument limit). */
function leftmost(lines: TextLine[]): number {
  let v = Infinity;
  for (const l of lines) if (l.x0 < v) v = l.x0;
  return v;
}

/** Largest right edge of `lines`. */
function rightmost(lines: TextLine[]): number {
  let v = -Infinity;
  for (const l of lines) if (l.x1 > v) v = l.x1;
  return v;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function fills(lines: TextLine[], from: number, to: number): boolean {
  return lines.length >= 2 && median(lines.map((l) => l.x1 - l.x0)) >= FILL_SHARE * (to - from);
}

/** The x of the best column gutter on the page, if there is one. */
export function findGutter(lines: TextLine[], pageWidth: number): number | undefined {
  if (lines.length < MIN_COLUMN_LINES * 2 || lines.length > MAX_COLUMN_SEARCH_LINES || !(pageWidth > 0)) return undefined;
  const step = Math.max(2, Math.ceil((pageWidth * 0.5) / MAX_GUTTER_CANDIDATES));
  let best: { x: number; score: number } | undefined;
  for (let x = Math.round(pageWidth * 0.25); x <= pageWidth * 0.75; x += step) {
    const left = lines.filter((l) => l.x1 <= x);
    const right = lines.filter((l) => l.x0 >= x);
    if (left.length < MIN_COLUMN_LINES || right.length < MIN_COLUMN_LINES) continue;
    const leftFrom = leftmost(left);
    const rightTo = rightmost(right);
    if (!fills(left, leftFrom, x) || !fills(right, x, rightTo)) continue;
    const score = left.length + right.length;
    if (!best || score > best.score) best = { x, score };
  }
  return best?.x;
}

const byPosition = (a: TextLine, b: TextLine) => a.y0 - b.y0 || a.x0 - b.x0;

/**
 * The lines of one page in reading order, as streams: each stream is a run of lines read top to bottom
 * (a column, or a full-width region). Streams are returned in reading order.
 */
export function readingOrder(lines: TextLine[], pageWidth: number): TextLine[][] {
  const sorted = [...lines].sort(byPosition);
  const gutter = findGutter(sorted, pageWidth);
  if (gutter === undefined) return sorted.length ? [sorted] : [];
  const streams: TextLine[][] = [];
  let region: TextLine[] = [];
  const flush = () => {
    if (region.length === 0) return;
    const left = region.filter((l) => l.x1 <= gutter);
    const right = region.filter((l) => l.x0 >= gutter);
    if (left.length > 0 && right.length > 0 && left.length + right.length === region.length && fills(left, leftmost(left), gutter) && fills(right, gutter, rightmost(right))) {
      streams.push(left, right);
    } else {
      streams.push(region);
    }
    region = [];
  };
  for (const line of sorted) {
    const spans = line.x0 < gutter - 1 && line.x1 > gutter + 1;
    if (spans) {
      flush();
      streams.push([line]);
    } else region.push(line);
  }
  flush();
  // Merge consecutive single-stream regions so paragraphs are not split at region borders.
  return streams;
}
