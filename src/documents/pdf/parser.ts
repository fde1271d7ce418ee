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
 * Everything but OCR runs in a document worker (documents/pdf/conversion.ts): mupdf, a few pages per call, and at
 * the end the layout and rendering of the whole document, with the OCR'd pages' lines handed over. A page costing
 * seconds in mupdf, or a document whose text takes seconds to lay out, then neither holds the event loop nor runs
 * past the deadline: the worker is stopped there. The text layers stay on the worker; only renderings for OCR cross.
 */
import type { Page } from "../../engines/types.ts";
import type { ScrapeSpec } from "../../scrape/spec.ts";
import { documentDeadline } from "../deadline.ts";
import { detectKind } from "../detect.ts";
import { PdfCorruptError } from "../errors.ts";
import type { DocumentWorkers } from "../isolate/pool.ts";
import type { PdfMode, PdfPageResult } from "../isolate/protocol.ts";
import type { PageText } from "../layout/model.ts";
import type { OcrEngine } from "../ocr/engine.ts";
import type { ConvertedDocument, DocumentParser } from "../types.ts";

/** What a request for upstream's per-page layout blocks (`blocks: true`) gets instead of them. */
export const BLOCKS_WARNING = "PDF layout blocks (blocks: true) are not produced by crawlbox; pages: true gives each page's markdown.";

/**
 * Pages read per call to the worker; two calls are kept ahead. One page per call, asked only when the last one was
 * taken in, every page paid two thread wake-ups on top of mupdf's ~1.7 ms (text-layer pages/s fell from 582 to 418
 * on the benchmark corpus). A page read ahead may be a rendering for OCR: at most twice this many renderings wait
 * besides those the OCR pool holds.
 */
const PAGES_PER_CALL = 4;

type PdfOptions = { type: string; mode?: PdfMode; maxPages?: number; pageMarkers?: boolean; pages?: boolean; blocks?: boolean };

/** Options of {@link createPdfParser}. */
export interface PdfParserOptions {
  ocr: OcrEngine;
  /** Where mupdf runs (documents/isolate/pool.ts). */
  workers: DocumentWorkers;
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

/** Creates the PDF parser. */
export function createPdfParser(options: PdfParserOptions): DocumentParser {
  if (!options?.ocr || !options.workers) throw new TypeError("createPdfParser: an OCR engine and document workers are required");
  return {
    name: "pdf",
    accepts: (page) => detectKind(page) === "pdf",
    async parse(page, spec, signal, parseOptions) {
      const opts = pdfOptions(spec);
      if (!opts) return base64Document(page);
      const mode = opts.mode ?? "auto";
      const deadline = documentDeadline(spec, page, signal);
      const worker = await options.workers.lease(deadline.signal).catch((err) => {
        throw deadline.wrap(err);
      });
      // Ends this document's OCR jobs when the parse fails (one page's OCR failing must not leave the others running).
      const stop = new AbortController();
      const ocrSignal = AbortSignal.any([deadline.signal, stop.signal]);
      const batches: Promise<PdfPageResult[]>[] = [];
      try {
        const { total } = await worker.call({ op: "pdfOpen", body: page.body });
        const limit = Math.min(total, opts.maxPages ?? total);
        parseOptions?.affordCredits?.(limit);
        const ocrPages: PageText[] = [];
        const jobs: Promise<void>[] = [];
        const pending = new Set<Promise<void>>();
        let failed = 0;
        let lastError = "";
        // The worker skips the pages past its text limits (documents/pdf/text-budget.ts): no need to ask for more.
        let textFull = false;

        // Pages are read in batches, two batches ahead: the worker reads the next pages while this thread takes in
        // the last ones, and a message carries several pages.
        const ask = (batch: number) => {
          const from = batch * PAGES_PER_CALL;
          if (from >= limit || textFull) return;
          const read = worker.call({ op: "pdfPages", from, count: Math.min(PAGES_PER_CALL, limit - from), mode, dpi: options.ocr.dpi });
          read.catch(() => {}); // awaited below; a batch left behind when the parse fails must not go unhandled
          batches[batch] = read;
        };
        ask(0);
        ask(1);
        for (let batch = 0; batch * PAGES_PER_CALL < limit && batches[batch]; batch++) {
          deadline.check();
          const reads = await batches[batch]!;
          delete batches[batch];
          textFull ||= reads.some((r) => r.kind === "skipped");
          ask(batch + 2);
          for (const [k, read] of reads.entries()) {
            const i = batch * PAGES_PER_CALL + k;
            if (read.kind === "failed") {
              failed++;
              lastError = read.message;
              continue;
            }
            if (read.kind !== "ocr") continue; // a text layer stays on the worker; a skipped page is left out
            const { width, height } = read;
            const job = options.ocr.recognize(read.png, read.pointsPerPixel, spec.location?.languages, ocrSignal).then((lines) => {
              ocrPages.push({ number: i + 1, width, height, lines, source: "ocr" });
            });
            jobs.push(job);
            pending.add(job);
            const done = () => void pending.delete(job);
            job.then(done, done);
            // Bounded: at most maxInFlight rendered pages wait for OCR at any time.
            while (pending.size >= options.maxInFlight) await Promise.race(pending);
          }
        }
        await Promise.all(jobs);
        if (failed === limit) throw new PdfCorruptError(lastError || "no readable page");

        // Laid out and rendered on the worker too: the request's deadline stops it there (documents/pdf/conversion.ts).
        deadline.check();
        const converted = await worker.call({ op: "pdfConvert", count: limit, ocrPages, options: { pageMarkers: opts.pageMarkers, pages: opts.pages } });
        if (opts.blocks) converted.fields = { ...converted.fields, warning: [converted.fields?.warning, BLOCKS_WARNING].filter(Boolean).join(" ") };
        return converted;
      } catch (err) {
        throw deadline.wrap(err);
      } finally {
        stop.abort();
        // Pages read ahead of a failure: let them finish (the deadline still stops the worker) rather than end a
        // worker that is fine, which the next document would pay for with mupdf's start-up.
        await Promise.allSettled(batches.filter(Boolean));
        worker.release();
      }
    },
  };
}
