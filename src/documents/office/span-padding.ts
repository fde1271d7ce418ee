/**
 * @module documents/office/span-padding
 * The empty cells a merged cell is padded with, for the DOCX and ODT readers (a cell spanning columns, `w:gridSpan`,
 * `w:gridBefore`, `table:number-columns-spanned`, is followed by the cells it covers, so the columns line up). Those
 * cells are not in the file: the span is one attribute, so what they cost is bounded here, not by the file's size. A
 * 102 KB ODT of 300 rows of 1,000 cells each spanning a billion columns gave 37 MB of markdown and 93 MB of HTML (1.8 GB
 * of memory); a 56 KB DOCX of such cells, 11 MB and 11 MB. So a document's spans pad at most
 * {@link MAX_SPAN_PADDING_CELLS} cells together (past it, spans are not padded), each charged to the document's text
 * budget (text-budget.ts) at what it writes, {@link SPAN_PADDING_CELL_CHARS}. One cell's span is bounded by its reader,
 * by what its format's tables hold (a Word table's 63 columns; a Writer table's are wider).
 */
import type { TextBudget } from "./text-budget.ts";

/** Most empty cells one document's spans pad, all its tables together (a thousand rows of a hundred padded cells). */
export const MAX_SPAN_PADDING_CELLS = 100_000;

/**
 * Characters of the text budget one padding cell costs: an empty markdown cell is ` | ` (3 characters, 4 with the
 * renderer's padding); its HTML `<td></td>` is 9, but the budget counts the markdown (text-budget.ts).
 */
export const SPAN_PADDING_CELL_CHARS = 4;

/** One document's allowance of padding cells, shared by all its tables. */
export class SpanPadding {
  private left = MAX_SPAN_PADDING_CELLS;

  constructor(private readonly budget: TextBudget) {}

  /**
   * How many of the `wanted` empty cells a span may pad (0 once the document's allowance or text budget is spent),
   * charged to both. A span the text budget cannot pay for cuts the document there, as a text that does not fit does.
   */
  take(wanted: number): number {
    const n = Math.min(wanted, this.left);
    if (n <= 0 || !this.budget.spend(n * SPAN_PADDING_CELL_CHARS)) return 0;
    this.left -= n;
    return n;
  }
}
