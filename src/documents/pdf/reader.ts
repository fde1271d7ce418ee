/**
 * @module documents/pdf/reader
 * The mupdf side of the PDF parser, run inside a document worker (documents/isolate/document-worker.ts): open a
 * PDF, read one page at a time (its text layer, or its rendering when the page needs OCR), and the document's
 * title, author and repair state at the end. mupdf is synchronous and one page can cost seconds (a 250 KB file
 * whose page draws two million glyphs took 1.1 s in `toStructuredText`), so none of this runs on the main thread:
 * a worker can be stopped at the request's deadline, a WebAssembly call cannot.
 */
import { PdfCorruptError, PdfEncryptedError } from "../errors.ts";
import type { PdfMode, PdfOcrPage } from "../isolate/protocol.ts";
import type { PageText } from "../layout/model.ts";
import { readTextLayer, renderPage } from "./extract.ts";
import type { Mupdf } from "./mupdf.ts";

/** A page with pictures and fewer non-blank characters than this in its text layer is OCR'd in `auto` mode. */
export const MIN_TEXT_LAYER_CHARS = 40;
/** Share of the page pictures must cover for a page without a text layer to be worth OCR in `auto` mode. */
export const MIN_PICTURE_COVERAGE = 0.05;
/** A page mostly covered by pictures with fewer characters than this is OCR'd in `auto` mode. */
export const PICTURE_PAGE_MAX_CHARS = 200;

type MupdfDocument = InstanceType<Mupdf["Document"]>;

/** The document-level facts read once every page is done. */
export interface PdfSummary {
  title?: string;
  author?: string;
  /** mupdf had to repair the file (truncated download, broken xref). */
  repaired: boolean;
}

/** What one page gave: its text layer, its rendering for OCR, or why mupdf could not read it. */
export type PageRead = { kind: "text"; page: PageText } | PdfOcrPage | { kind: "failed"; message: string };

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Whether a page with this text layer is OCR'd under `mode`. */
export function pageNeedsOcr(mode: PdfMode, layer: { chars: number; imageCoverage: number }): boolean {
  if (mode === "ocr") return true;
  if (mode === "fast") return false;
  return (layer.chars < MIN_TEXT_LAYER_CHARS && layer.imageCoverage > MIN_PICTURE_COVERAGE) || (layer.imageCoverage > 0.5 && layer.chars < PICTURE_PAGE_MAX_CHARS);
}

/** One open PDF. {@link PdfReader.close} must be called (it frees the document's WebAssembly memory). */
export class PdfReader {
  private constructor(
    private readonly m: Mupdf,
    private readonly doc: MupdfDocument,
    /** Pages in the file. */
    readonly total: number,
  ) {}

  /** Opens `bytes`. Throws `SCRAPE_PDF_CORRUPT` for what mupdf cannot open or count, `SCRAPE_PDF_ENCRYPTED` for a user password. */
  static open(m: Mupdf, bytes: Uint8Array): PdfReader {
    let doc: MupdfDocument;
    try {
      doc = m.Document.openDocument(bytes, "application/pdf");
    } catch (err) {
      throw new PdfCorruptError(errorMessage(err));
    }
    try {
      if (doc.needsPassword() && !doc.authenticatePassword("")) throw new PdfEncryptedError();
      let total: number;
      try {
        total = doc.countPages();
      } catch (err) {
        throw new PdfCorruptError(errorMessage(err));
      }
      if (total === 0) throw new PdfCorruptError("no pages");
      return new PdfReader(m, doc, total);
    } catch (err) {
      doc.destroy();
      throw err;
    }
  }

  /** Page `index` (0-based): its text layer, or its rendering at `dpi` when `mode` says it needs OCR. */
  page(index: number, mode: PdfMode, dpi: number): PageRead {
    let mp: ReturnType<MupdfDocument["loadPage"]>;
    try {
      mp = this.doc.loadPage(index);
    } catch (err) {
      return { kind: "failed", message: errorMessage(err) };
    }
    try {
      const layer = readTextLayer(mp, index + 1);
      if (!pageNeedsOcr(mode, layer)) return { kind: "text", page: layer.page };
      const { png, pointsPerPixel } = renderPage(this.m, mp, dpi);
      return { kind: "ocr", png, pointsPerPixel, width: layer.page.width, height: layer.page.height };
    } catch (err) {
      if (err instanceof Error && "code" in err) throw err;
      return { kind: "failed", message: errorMessage(err) };
    } finally {
      mp.destroy();
    }
  }

  /** The document's title, author and whether mupdf repaired it. */
  summary(): PdfSummary {
    const title = this.doc.getMetaData("info:Title")?.trim() || undefined;
    const author = this.doc.getMetaData("info:Author")?.trim() || undefined;
    return { title, author, repaired: this.doc.asPDF()?.wasRepaired() ?? false };
  }

  /** Frees the document. */
  close(): void {
    this.doc.destroy();
  }
}
