/**
 * @module documents/layout/code
 * Consecutive rows in a monospace font → a code block, with each line's indentation rebuilt from its distance to
 * the block's leftmost line in character widths. They were joined into one paragraph, and the indentation of a
 * program was lost.
 */
import type { Row } from "./rows.ts";

/** Rows a code block needs at least: one line in a monospace font may be a file name or a command in the text. */
const MIN_CODE_ROWS = 2;
/**
 * Columns of indentation, and of blanks between two cells of a line, kept at most: a crafted page a million points
 * wide, or a row of many far-apart cells, must not make millions of spaces.
 */
const MAX_INDENT = 160;
const MAX_CELL_GAP = 40;
/** Blank lines kept at most between two lines of code. */
const MAX_BLANK_LINES = 2;

/** Whether `next` continues the code block whose last row is `prev`: monospace, the same size, no wide gap. */
function continuesCode(prev: Row, next: Row): boolean {
  return next.mono && !next.streamStart && Math.abs(next.size - prev.size) < 0.15 * prev.size && next.y0 - prev.y1 < 3 * prev.size && next.y0 > prev.y0;
}

/** Index of the last row of the code block starting at `rows[i]`, or -1 when none starts there. */
export function codeBlockEnd(rows: Row[], i: number): number {
  if (!rows[i]!.mono) return -1;
  let j = i;
  while (j + 1 < rows.length && continuesCode(rows[j]!, rows[j + 1]!)) j++;
  return j - i + 1 >= MIN_CODE_ROWS ? j : -1;
}

/**
 * The text of a code block. One character's width is the median over its cells of width / characters (a monospace
 * font's are all one width); a cell starts at the column its left edge is at; blank lines come back from the gaps
 * that are whole multiples of the block's line pitch.
 */
export function codeText(rows: Row[]): string {
  let left = Infinity;
  const widths: number[] = [];
  for (const r of rows) {
    left = Math.min(left, r.x0);
    for (const c of r.cells) if (c.text.length >= 2) widths.push((c.x1 - c.x0) / c.text.length);
  }
  widths.sort((a, b) => a - b);
  const size = rows[0]!.size;
  const cw = Math.max(widths[Math.floor(widths.length / 2)] ?? 0.6 * size, 0.2 * size);
  let pitch = Infinity;
  for (let i = 1; i < rows.length; i++) pitch = Math.min(pitch, Math.max(rows[i]!.y0 - rows[i - 1]!.y0, 0.5 * size));
  const out: string[] = [];
  rows.forEach((r, i) => {
    if (i > 0) {
      const blanks = Math.round((r.y0 - rows[i - 1]!.y0) / pitch) - 1;
      for (let b = 0; b < Math.min(Math.max(blanks, 0), MAX_BLANK_LINES); b++) out.push("");
    }
    let line = " ".repeat(Math.min(Math.max(Math.round((r.x0 - left) / cw), 0), MAX_INDENT)) + r.cells[0]!.text;
    for (const c of r.cells.slice(1)) {
      const gap = Math.round((c.x0 - left) / cw) - line.length;
      line += " ".repeat(Math.min(Math.max(gap, 1), MAX_CELL_GAP)) + c.text;
    }
    out.push(line.trimEnd());
  });
  return out.join("\n");
}
