/**
 * @module documents/pdf/text-budget
 * How much text one PDF may give. Its pages are bounded one by one (5,000 lines for the column search, 2,000 pieces
 * of link text), but not together: 500 pages sharing one content stream of 2,000 lines (an 87 KB file) came to a
 * million lines and 28 million characters of markdown, whose layout alone took 2.4 s and the process 2 GB. A
 * document's text is cut where it reaches {@link PDF_TEXT_LIMITS}, in page order, and a line at its end says so:
 * as a workbook past its cell budget (documents/office/sheet-table.ts) and a DOC past its 10 million characters
 * (documents/office/doc-text.ts) are.
 */
import type { Block, PageText } from "../layout/model.ts";
import { MAX_DOCUMENT_TEXT_CHARS } from "../types.ts";

/** The most text a PDF's pages give together. */
export interface TextLimits {
  /** Characters of the lines' text (a 5,000-page book holds about 10 million, as a DOC's limit says). */
  chars: number;
  /** Lines (what the layout's cost follows: a page of one-letter lines is cheap in characters). */
  lines: number;
}

/** The limits every PDF is cut at. */
export const PDF_TEXT_LIMITS: Readonly<TextLimits> = Object.freeze({ chars: MAX_DOCUMENT_TEXT_CHARS, lines: 500_000 });

/** Counts the text of pages as they are read, to stop reading those a cut leaves out anyway. */
export class TextTally {
  private chars = 0;
  private lines = 0;

  constructor(private readonly limits: TextLimits = PDF_TEXT_LIMITS) {}

  /** Counts `page`'s text. */
  add(page: PageText): void {
    this.lines += page.lines.length;
    for (const l of page.lines) this.chars += l.text.length;
  }

  /**
   * Whether the text counted so far is over the limits. Pages are counted in page order and the cut keeps them in
   * that order, so once this holds no later page can be shown (the pages counted include the one it is cut at).
   */
  get over(): boolean {
    return this.chars > this.limits.chars || this.lines > this.limits.lines;
  }
}

/** Pages cut to the limits: the page they are reached on keeps its first lines, the pages after it are left out. */
export interface CutPages {
  pages: PageText[];
  /** The number of the page the text was cut on, when it was. */
  cutAt?: number;
}

/** `pages` (in page order) cut to `limits`. */
export function cutToLimits(pages: PageText[], limits: TextLimits = PDF_TEXT_LIMITS): CutPages {
  let chars = 0;
  let lines = 0;
  const kept: PageText[] = [];
  for (const page of pages) {
    let n = 0;
    for (; n < page.lines.length; n++) {
      const size = page.lines[n]!.text.length;
      if (chars + size > limits.chars || lines + 1 > limits.lines) break;
      chars += size;
      lines++;
    }
    if (n < page.lines.length) {
      kept.push({ ...page, lines: page.lines.slice(0, n) });
      return { pages: kept, cutAt: page.number };
    }
    kept.push(page);
  }
  return { pages: kept };
}

/** What a reader is told when the text was cut: a `warning`, and the line ending the document. */
export function cutNotice(cutAt: number, totalPages: number, limits: TextLimits = PDF_TEXT_LIMITS): { warning: string; block: Block } {
  const n = (v: number) => v.toLocaleString("en-US");
  const text = `(The rest of this PDF is not shown: its text reached ${n(limits.chars)} characters or ${n(limits.lines)} lines on page ${cutAt} of ${totalPages}.)`;
  return {
    warning: `The PDF's text was cut on page ${cutAt} of ${totalPages}: a document gives at most ${n(limits.chars)} characters or ${n(limits.lines)} lines of text; later pages are neither shown nor charged.`,
    block: { kind: "paragraph", content: [{ text }] },
  };
}
