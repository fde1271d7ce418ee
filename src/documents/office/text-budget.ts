/**
 * @module documents/office/text-budget
 * How much text one office document gives. A converter's output is not bounded by its file's size: a string, a
 * link target or a style is stored once and used many times. A 5.6 KB XLSX whose 2,000 cells share one 100 KB
 * string came to 240 million characters of markdown (a 280 MB answer, 2.7 GB of memory, the server stalled); a
 * 13 KB one (a 12-million-character string in 200 cells) ran out of memory; a 1.2 KB DOCX of 1,000 links to one 50 KB
 * target, 50 MB. So every converter counts the characters it emits, where it emits them (a paragraph's runs,
 * DOCX/ODT/DOC through inline-runs.ts; a sheet's names and cells, sheet-table.ts; an RTF's text; each span's link
 * target, which the markdown prints with it), and stops at {@link MAX_OFFICE_TEXT_CHARS}: the work ends there instead
 * of building the whole string first, and the document ends with a line saying the rest is not shown (as a workbook
 * past its cell budget, and a PDF past its own text limits, do), and a `warning`.
 *
 * Cut, not refused: a legitimate document that large still gives its first ten million characters, as a DOC gives
 * the first ten million of its body (doc-text.ts), rather than nothing.
 */
import type { Block } from "../layout/model.ts";
import { MAX_DOCUMENT_TEXT_CHARS } from "../types.ts";

/**
 * Most characters of text (and link targets) one office document gives: a 5,000-page book holds about 10 million,
 * the same bound as a DOC's body (doc-text.ts `MAX_DOC_CHARS`) and a PDF's text. Its markdown is about as long (plus
 * escapes and table pipes), and so is its HTML.
 */
export const MAX_OFFICE_TEXT_CHARS = MAX_DOCUMENT_TEXT_CHARS;

/** The characters a document may still emit, shared by everything that emits them. */
export class TextBudget {
  private left: number;
  /** Whether something was left out for want of budget; once set, nothing more is taken. */
  cut = false;

  constructor(readonly limitChars: number = MAX_OFFICE_TEXT_CHARS) {
    this.left = limitChars;
  }

  /** `text` as far as it fits (the whole of it, or its start and the budget cut). */
  take(text: string): string {
    if (this.cut) return "";
    if (text.length <= this.left) {
      this.left -= text.length;
      return text;
    }
    const kept = text.slice(0, this.left);
    this.left = 0;
    this.cut = true;
    return kept;
  }

  /** Spends `chars` on something shown whole or not at all (a link target); false, and the budget cut, when it does not fit. */
  spend(chars: number): boolean {
    if (this.cut) return false;
    if (chars <= this.left) {
      this.left -= chars;
      return true;
    }
    this.left = 0;
    this.cut = true;
    return false;
  }
}

/** The line that ends a document cut at its budget. */
export function restOfDocumentLeftOut(budget: TextBudget): Block {
  return { kind: "paragraph", content: [{ text: `(The rest of this document is not shown: its text reached ${budget.limitChars.toLocaleString("en-US")} characters.)` }] };
}

/** The `warning` of a document cut at its budget. */
export function cutWarning(kind: string, budget: TextBudget): string {
  return `The ${kind.toUpperCase()} document's text was cut at ${budget.limitChars.toLocaleString("en-US")} characters: a document gives at most that much text (link targets included); the rest is not shown.`;
}
