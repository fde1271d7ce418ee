/**
 * @module documents/pdf/parser
 * The PDF parser (api-v2.md §2.2 `parsers`, §6.7). Modes:
 * - `fast`: the text layer only; pages without one are skipped;
 * - `auto` (default): the text layer, and OCR for pages with none or too little (scans, pictures of text);
 * - `ocr`: every page rendered and OCR'd.
 * `maxPages` caps the pages parsed; credits are one per parsed page. `parsers: []` (no `pdf` entry) returns the
 * PDF itself, base64-encoded, in `markdown` and `html`, for a flat credit, as upstream does.
 *
 * Pages are processed in order and OCR jobs are bounded to the pool size plus one, so a huge scan never holds
 * more than a handful of page images at once. The whole document shares one deadline (the request's `timeout`).
 */
import type { Page } from "../../engines/types.ts";
import type { ScrapeSpec } from "../../scrape/spec.ts";
import { convertPages } from "../convert.ts";
import { documentDeadline } from "../deadline.ts";
import { detectKind } from "../detect.ts";
import { PdfCorruptError, PdfEncryptedError } from "../errors.ts";
import type { PageText } from "../layout/model.ts";
import type { OcrEngine } from "../ocr/engine.ts";
import type { ConvertedDocument, DocumentParser } from "../types.ts";
import { readTextLayer, renderPage } from "./extract.ts";
import { loadMupdf } from "./mupdf.ts";

/** A page with pictures and fewer non-blank characters than this in its text layer is OCR'd in `auto` mode. */
export const MIN_TEXT_LAYER_CHARS = 40;
/** Share of the page pictures must cover for a page without a text layer to be worth OCR in `auto` mode. */
export const MIN_PICTURE_COVERAGE = 0.05;
/** A page mostly covered by pictures with fewer characters than this is OCR'd in `auto` mode. */
export const PICTURE_PAGE_MAX_CHARS = 200;
/** Longest stretch of page parsing (mupdf is synchronous) before other requests get the thread back. */
const YIELD_EVERY_MS = 20;

/** What a request for upstream's per-page layout blocks (`blocks: true`) gets instead of them. */
export const BLOCKS_WARNING = "PDF layout blocks (blocks: true) are not produced by crawlbox; pages: true gives each page's markdown.";

type PdfOptions = { type: string; mode?: string; maxPages?: number; pageMarkers?: boolean; pages?: boolean; blocks?: boolean };

/** Options of {@link createPdfParser}. */
export interface PdfParserOptions {
  ocr: OcrEngine;
  /** In-flight OCR pages per document (the pool size plus one keeps every worker busy). */
  maxInFlight: number;
}

function pdfOptions(spec: ScrapeSpec): PdfOptions | undefined {
  return spec.parsers.find((p) => p.type === "pdf") as PdfOptions | undefined;
}

function base64Document(page: Page): ConvertedDocument {
  const b64 = Buffer.from(page.body).toString("base64");
  return { markdown: b64, html: b64, metadata: {}, credits: 1 };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Creates the PDF parser. */
export function createPdfParser(options: PdfParserOptions): DocumentParser {
  if (!options?.ocr) throw new TypeError("createPdfParser: an OCR engine is required");
  return {
    name: "pdf",
    accepts: (page) => detectKind(page) === "pdf",
    async parse(page, spec, signal) {
      const opts = pdfOptions(spec);
      if (!opts) return base64Document(page);
      const mode = opts.mode ?? "auto";
      const deadline = documentDeadline(spec, page, signal);
      const m = await loadMupdf();

      let doc: InstanceType<typeof m.Document>;
      let total: number;
      try {
        doc = m.Document.openDocument(page.body, "application/pdf");
      } catch (err) {
        throw new PdfCorruptError(errorMessage(err));
      }
      try {
        if (doc.needsPassword() && !doc.authenticatePassword("")) throw new PdfEncryptedError();
        try {
          total = doc.countPages();
        } catch (err) {
          throw new PdfCorruptError(errorMessage(err));
        }
        if (total === 0) throw new PdfCorruptError("no pages");
        const limit = Math.min(total, opts.maxPages ?? total);
        const pages: (PageText | undefined)[] = new Array(limit);
        const jobs: Promise<void>[] = [];
        const pending = new Set<Promise<void>>();
        let failed = 0;
        let lastError = "";

        let yieldedAt = performance.now();
        for (let i = 0; i < limit; i++) {
          // mupdf is synchronous: between pages, let other requests have the thread, and read the deadline on the clock.
          if (performance.now() - yieldedAt > YIELD_EVERY_MS) {
            await Bun.sleep(0);
            yieldedAt = performance.now();
          }
          deadline.check();
          let mp: ReturnType<typeof doc.loadPage>;
          try {
            mp = doc.loadPage(i);
          } catch (err) {
            failed++;
            lastError = errorMessage(err);
            continue;
          }
          try {
            const layer = readTextLayer(mp, i + 1);
            const needsOcr =
              mode === "ocr" ||
              (mode === "auto" &&
                ((layer.chars < MIN_TEXT_LAYER_CHARS && layer.imageCoverage > MIN_PICTURE_COVERAGE) ||
                  (layer.imageCoverage > 0.5 && layer.chars < PICTURE_PAGE_MAX_CHARS)));
            if (!needsOcr) {
              pages[i] = layer.page;
              continue;
            }
            const { png, pointsPerPixel } = renderPage(m, mp, options.ocr.dpi);
            const { width, height } = layer.page;
            const job = options.ocr
              .recognize(png, pointsPerPixel, spec.location?.languages, deadline.signal)
              .then((lines) => {
                pages[i] = { number: i + 1, width, height, lines, source: "ocr" };
              });
            jobs.push(job);
            pending.add(job);
            const done = () => void pending.delete(job);
            job.then(done, done);
          } catch (err) {
            if (err instanceof Error && "code" in err) throw err;
            failed++;
            lastError = errorMessage(err);
          } finally {
            mp.destroy();
          }
          // Bounded: at most maxInFlight rendered pages wait for OCR at any time.
          while (pending.size >= options.maxInFlight) await Promise.race(pending);
        }
        await Promise.all(jobs);
        if (failed === limit) throw new PdfCorruptError(lastError || "no readable page");

        const metadata: Record<string, unknown> = { numPages: limit, totalPages: total };
        const title = doc.getMetaData("info:Title")?.trim();
        if (title) metadata.title = title;
        const author = doc.getMetaData("info:Author")?.trim();
        if (author) metadata.author = author;
        const got = pages.filter((p): p is PageText => p !== undefined);
        // A repaired file (truncated download, broken xref) that yields nothing at all is damaged, not blank.
        if (doc.asPDF()?.wasRepaired() && got.every((p) => p.lines.length === 0)) {
          throw new PdfCorruptError("the file is truncated or damaged and no content could be recovered");
        }
        const converted = convertPages(got, metadata, limit, { pageMarkers: opts.pageMarkers, pages: opts.pages });
        if (opts.blocks) converted.fields = { ...converted.fields, warning: BLOCKS_WARNING };
        return converted;
      } catch (err) {
        throw deadline.wrap(err);
      } finally {
        doc.destroy();
      }
    },
  };
}
