/**
 * @module plugins/parsers
 * The one place where document parsers are registered (PDF, images, office files, media pass-through). Order
 * matters: the first parser that accepts a page handles it. The OCR engine is shared by the PDF and image
 * parsers; its worker pool starts on the first OCR job and stops with the registry. The document workers (mupdf
 * and office conversion, killable at a request's deadline) are shared by the PDF, image and office parsers.
 */
import { availableParallelism } from "node:os";
import { ParserRegistry } from "../../src/documents/types.ts";
import { createImageParser } from "../../src/documents/image/parser.ts";
import { mediaParser } from "../../src/documents/media/parser.ts";
import { createOcrEngine } from "../../src/documents/ocr/engine.ts";
import { createDocumentWorkers, type DocumentWorkers } from "../../src/documents/isolate/pool.ts";
import { createOfficeParser } from "../../src/documents/office/parser.ts";
import { createPdfParser } from "../../src/documents/pdf/parser.ts";

/** What the parsers take from the server's configuration (see src/config.ts). */
export interface ParserRegistryOptions {
  /** @default the number of CPU cores */
  ocrWorkers?: number;
  /** @default "" (English only) */
  tessdataDir?: string;
  /** @default 200 */
  ocrDpi?: number;
  /**
   * The document workers the PDF and office parsers run on, owned (and closed) by the caller, who can read their
   * counters. @default a pool of two (one on a single core), closed with the registry
   */
  documents?: DocumentWorkers;
  /** Told when an OCR or document worker crashes (it is replaced), or a document worker is stopped at a deadline. */
  onWorkerError?: (message: string) => void;
}

/** A registry holding every built-in document parser. */
export function createParserRegistry(options: ParserRegistryOptions = {}): ParserRegistry {
  const workers = options.ocrWorkers ?? availableParallelism();
  const ocr = createOcrEngine({ workers, tessdataDir: options.tessdataDir ?? "", dpi: options.ocrDpi ?? 200, onWorkerError: options.onWorkerError });
  const owned = options.documents ? undefined : createDocumentWorkers({ size: Math.min(2, availableParallelism()), onWorkerError: options.onWorkerError });
  const documents = options.documents ?? owned!;
  const pdf = createPdfParser({ ocr, workers: documents, maxInFlight: workers + 1 });
  return new ParserRegistry()
    .register({ ...pdf, close: () => Promise.all([ocr.close(), owned?.close()]).then(() => undefined) })
    .register(createImageParser({ ocr, workers: documents }))
    .register(createOfficeParser({ workers: documents }))
    .register(mediaParser);
}
