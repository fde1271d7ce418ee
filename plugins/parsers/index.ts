/**
 * @module plugins/parsers
 * The one place where document parsers are registered (PDF, images, office files, media pass-through). Order
 * matters: the first parser that accepts a page handles it. The OCR engine is shared by the PDF and image
 * parsers; its worker pool starts on the first OCR job and stops with the registry.
 */
import { availableParallelism } from "node:os";
import { ParserRegistry } from "../../src/documents/types.ts";
import { createImageParser } from "../../src/documents/image/parser.ts";
import { mediaParser } from "../../src/documents/media/parser.ts";
import { createOcrEngine } from "../../src/documents/ocr/engine.ts";
import { officeParser } from "../../src/documents/office/parser.ts";
import { createPdfParser } from "../../src/documents/pdf/parser.ts";

/** What the parsers take from the server's configuration (see src/config.ts). */
export interface ParserRegistryOptions {
  /** @default the number of CPU cores */
  ocrWorkers?: number;
  /** @default "" (English only) */
  tessdataDir?: string;
  /** @default 200 */
  ocrDpi?: number;
  /** Told when an OCR worker crashes (it is replaced). */
  onWorkerError?: (message: string) => void;
}

/** A registry holding every built-in document parser. */
export function createParserRegistry(options: ParserRegistryOptions = {}): ParserRegistry {
  const workers = options.ocrWorkers ?? availableParallelism();
  const ocr = createOcrEngine({ workers, tessdataDir: options.tessdataDir ?? "", dpi: options.ocrDpi ?? 200, onWorkerError: options.onWorkerError });
  const pdf = createPdfParser({ ocr, maxInFlight: workers + 1 });
  return new ParserRegistry()
    .register({ ...pdf, close: () => ocr.close() })
    .register(createImageParser({ ocr }))
    .register(officeParser)
    .register(mediaParser);
}
