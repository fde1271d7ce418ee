/**
 * @module documents/pdf/conversion
 * One PDF converted inside a document worker (documents/isolate/document-worker.ts), from its bytes to its markdown:
 * pages read with mupdf (documents/pdf/reader.ts) and their text layers kept here, then, once the main thread has
 * recognised the pages that needed OCR and handed their lines over, the whole document laid out and rendered
 * (documents/convert.ts) here too. The layout's cost follows the document's text, not its size: 500 pages sharing
 * one content stream (87 KB) took 2.4 s of layout, which on the main thread held every other request of the server
 * and ran 2.7 s past the request's `timeout`; on the worker the deadline stops it. The text is cut at the limits of
 * documents/pdf/text-budget.ts, and pages past a cut are not read at all.
 */
import { convertPages } from "../convert.ts";
import { PdfCorruptError } from "../errors.ts";
import type { PdfConvertOptions, PdfMode, PdfPageResult } from "../isolate/protocol.ts";
import type { PageText } from "../layout/model.ts";
import { appendBlocks } from "../layout/render.ts";
import type { ConvertedDocument } from "../types.ts";
import type { Mupdf } from "./mupdf.ts";
import { PdfReader } from "./reader.ts";
import { cutNotice, cutToLimits, PDF_TEXT_LIMITS, type TextLimits, TextTally } from "./text-budget.ts";

/** An open PDF and the text of its pages read so far. {@link PdfConversion.close} frees it. */
export class PdfConversion {
  /** Text layers by 0-based page index. */
  private readonly text = new Map<number, PageText>();
  private readonly tally: TextTally;

  private constructor(
    private readonly reader: PdfReader,
    private readonly limits: TextLimits,
  ) {
    this.tally = new TextTally(limits);
  }

  /** Opens `bytes` (`SCRAPE_PDF_CORRUPT`, `SCRAPE_PDF_ENCRYPTED` as {@link PdfReader.open}). */
  static open(m: Mupdf, bytes: Uint8Array, limits: TextLimits = PDF_TEXT_LIMITS): PdfConversion {
    return new PdfConversion(PdfReader.open(m, bytes), limits);
  }

  /** Pages in the file. */
  get total(): number {
    return this.reader.total;
  }

  /**
   * Reads pages `from` to `from + count - 1` (0-based, asked in order) and keeps their text layers. A page after
   * the text limits were passed is skipped unread: the cut leaves it out whatever it holds.
   */
  pages(from: number, count: number, mode: PdfMode, dpi: number): PdfPageResult[] {
    const out: PdfPageResult[] = [];
    for (let i = from; i < from + count; i++) {
      if (this.tally.over) {
        out.push({ kind: "skipped" });
        continue;
      }
      const read = this.reader.page(i, mode, dpi);
      if (read.kind !== "text") {
        out.push(read);
        continue;
      }
      this.text.set(i, read.page);
      this.tally.add(read.page);
      out.push({ kind: "text" });
    }
    return out;
  }

  /**
   * The first `count` pages as one document, `ocrPages` (by their 1-based `number`) in the places of the pages that
   * were rendered for OCR. Metadata: `numPages` (the pages parsed and charged: up to the cut, if any),
   * `totalPages`, and the file's title and author.
   */
  convert(count: number, ocrPages: PageText[], options: PdfConvertOptions): ConvertedDocument {
    const ocr = new Map(ocrPages.map((p) => [p.number, p]));
    const all: PageText[] = [];
    for (let i = 0; i < count; i++) {
      const page = this.text.get(i) ?? ocr.get(i + 1);
      if (page) all.push(page);
    }
    const summary = this.reader.summary();
    // A repaired file (truncated download, broken xref) that yields nothing at all is damaged, not blank.
    if (summary.repaired && all.every((p) => p.lines.length === 0)) {
      throw new PdfCorruptError("the file is truncated or damaged and no content could be recovered");
    }
    const { pages, cutAt } = cutToLimits(all, this.limits);
    const parsed = cutAt ?? count;
    const metadata: Record<string, unknown> = { numPages: parsed, totalPages: this.total };
    if (summary.title) metadata.title = summary.title;
    if (summary.author) metadata.author = summary.author;
    const converted = convertPages(pages, metadata, parsed, options);
    if (cutAt !== undefined) {
      const notice = cutNotice(cutAt, this.total, this.limits);
      appendBlocks(converted, [notice.block]);
      converted.fields = { ...converted.fields, warning: notice.warning };
    }
    return converted;
  }

  /** Frees the document and the text kept. */
  close(): void {
    this.text.clear();
    this.reader.close();
  }
}
