/**
 * @module documents/layout/rows
 * A stream's lines → rows: the lines on one baseline, merged into cells where the gap between them is a word gap
 * and kept apart where it is a table's. And the normal line pitch of the document's text, per font size, which
 * paragraph spacing is measured against.
 */
import type { TextLine } from "./model.ts";
import { joinSpans, lineSpan, type Span } from "./spans.ts";

/** Horizontal gap (in font sizes) that separates table cells rather than words. */
export const CELL_GAP_EM = 1.2;

/** A cell of a row: a line, or lines closer than a table gap, with its links placed. */
export type Cell = TextLine & { span: Span };

/** One visual row: lines on the same baseline. */
export interface Row {
  cells: Cell[];
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** The first cell's baseline, or the row's bottom where the lines have none (OCR). */
  base: number;
  size: number;
  bold: boolean;
  /** Every cell is in a monospace font. */
  mono: boolean;
  text: string;
  span: Span;
  /** First row of a stream (column or region). */
  streamStart: boolean;
  /** The normal pitch of lines of this size (see {@link normalPitches}), once known. */
  pitch?: number;
}

/** Rows of one stream (lines in reading order). */
export function toRows(stream: TextLine[], streamStart: boolean): Row[] {
  const groups: TextLine[][] = [];
  let y0 = 0;
  let y1 = 0;
  for (const line of stream) {
    const last = groups[groups.length - 1];
    const mid = (line.y0 + line.y1) / 2;
    if (last && mid > y0 && mid < y1 && Math.abs((y0 + y1) / 2 - mid) < (line.y1 - line.y0) * 0.5) {
      last.push(line);
    } else {
      groups.push([line]);
      [y0, y1] = [line.y0, line.y1];
    }
  }
  return groups.map((lines, i) => toRow(lines, streamStart && i === 0));
}

function toRow(lines: TextLine[], streamStart: boolean): Row {
  lines.sort((a, b) => a.x0 - b.x0);
  // Cells closer than a table gap are parts of one line of text.
  const cells: Cell[] = [];
  for (const line of lines) {
    const c: Cell = { ...line, span: lineSpan(line.text, line.links) };
    const prev = cells[cells.length - 1];
    if (prev && c.x0 - prev.x1 < CELL_GAP_EM * Math.max(prev.size, c.size)) {
      const span = joinSpans(prev.span, c.span, false);
      cells[cells.length - 1] = { ...prev, x1: Math.max(prev.x1, c.x1), text: span.text, span, bold: prev.bold && c.bold, mono: prev.mono && c.mono };
    } else cells.push(c);
  }
  // The row's own copy of its first cell's span: joining changes the span joined to, and a table needs the cells'.
  const first = cells[0]!.span;
  const span: Span = cells.length > 1 ? { text: first.text, links: [...first.links] } : first;
  // A loop, not Math.min(...cells): a row of a million cells passes the engine's argument limit (RangeError).
  const row: Row = { cells, x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity, base: 0, size: -Infinity, bold: true, mono: true, text: "", span, streamStart };
  cells.forEach((c, i) => {
    row.x0 = Math.min(row.x0, c.x0);
    row.x1 = Math.max(row.x1, c.x1);
    row.y0 = Math.min(row.y0, c.y0);
    row.y1 = Math.max(row.y1, c.y1);
    row.size = Math.max(row.size, c.size);
    row.bold &&= c.bold;
    row.mono &&= c.mono;
    if (i > 0) joinSpans(span, c.span, false);
  });
  row.text = span.text;
  row.base = cells[0]!.baseline ?? row.y1;
  return row;
}

/** Sizes are compared in half points. */
export const sizeKey = (size: number) => Math.round(size * 2) / 2;

/** Pairs of rows on each side of a row whose pitches make its local line pitch. */
const LOCAL_PAIRS = 3;

/** The pitch from `rows[i - 1]` to `rows[i]` when both are text of one size, else NaN. */
function pitchAt(rows: Row[], i: number): number {
  const [a, b] = [rows[i - 1], rows[i]];
  if (!a || !b || sizeKey(a.size) !== sizeKey(b.size)) return NaN;
  const pitch = b.base - a.base;
  return pitch > 0.5 * b.size && pitch < 3 * b.size ? pitch : NaN;
}

/**
 * Sets each row's `pitch`: the distance between the baselines of consecutive rows of its size that most lines
 * keep, over the document (the lower quartile, so that paragraph spacing, list and table rows do not count), or the
 * smallest pitch among the rows before it, or after it, where that is larger (a section set at 1.5 lines is not a
 * paragraph per line). A paragraph break is a pitch notably larger; a fixed gap of 0.75 em missed the 5.8 pt space
 * LibreOffice puts after a paragraph of 11 pt text. Pitches are counted in bins of 1/20 pt, not sorted: there are as
 * many as lines.
 */
export function normalPitches(streams: Row[][]): void {
  const bins = new Map<number, Map<number, number>>();
  for (const rows of streams) {
    for (let i = 1; i < rows.length; i++) {
      const pitch = pitchAt(rows, i);
      if (Number.isNaN(pitch)) continue;
      const key = sizeKey(rows[i]!.size);
      let bin = bins.get(key);
      if (!bin) bins.set(key, (bin = new Map()));
      const at = Math.round(pitch * 20);
      bin.set(at, (bin.get(at) ?? 0) + 1);
    }
  }
  const normal = new Map<number, number>();
  for (const [key, bin] of bins) {
    let total = 0;
    for (const n of bin.values()) total += n;
    let seen = 0;
    for (const at of [...bin.keys()].sort((a, b) => a - b)) {
      seen += bin.get(at)!;
      if (seen > (total - 1) / 4) {
        normal.set(key, at / 20);
        break;
      }
    }
  }
  for (const rows of streams) {
    const pitches = rows.map((_, i) => pitchAt(rows, i));
    rows.forEach((r, i) => {
      const doc = normal.get(sizeKey(r.size));
      if (doc === undefined) return;
      // The smallest pitch before the row, and after it (not its own): spacing between paragraphs is larger than
      // both; the spacing of a section is not.
      let [before, after] = [Infinity, Infinity];
      for (let j = Math.max(1, i - LOCAL_PAIRS); j < i; j++) if (pitches[j]! < before) before = pitches[j]!;
      for (let j = i + 1; j <= Math.min(rows.length - 1, i + LOCAL_PAIRS); j++) if (pitches[j]! < after) after = pitches[j]!;
      r.pitch = Math.max(doc, before < Infinity ? before : doc, after < Infinity ? after : doc);
    });
  }
}
