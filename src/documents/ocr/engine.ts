/**
 * @module documents/ocr/engine
 * OCR as the parsers use it: an image in, positioned lines out (in points), through the lazily created worker
 * pool. One engine per server; the pool is created on the first image and closed with the server.
 */
import type { TextLine } from "../layout/model.ts";
import { availableLanguages, ocrLanguages } from "./languages.ts";
import { createOcrPool, type OcrPool } from "./pool.ts";
import { tsvToLines } from "./tsv.ts";

/** Options of {@link createOcrEngine}. */
export interface OcrEngineOptions {
  /** Worker count. */
  workers: number;
  /** Extra traineddata folder; empty = English only. */
  tessdataDir: string;
  /** Resolution pages are rendered at for OCR. */
  dpi: number;
  onWorkerError?: (message: string) => void;
}

/** Recognises text in images. */
export interface OcrEngine {
  readonly dpi: number;
  /** Positioned lines of `image`; `pxToPt` converts its pixels to points. */
  recognize(image: Uint8Array, pxToPt: number, languages: readonly string[] | undefined, signal?: AbortSignal): Promise<TextLine[]>;
  close(): Promise<void>;
}

/** Creates the OCR engine; no worker starts until the first image. */
export function createOcrEngine(options: OcrEngineOptions): OcrEngine {
  let pool: OcrPool | undefined;
  let available: string[] | undefined;
  return {
    dpi: options.dpi,
    async recognize(image, pxToPt, languages, signal) {
      available ??= availableLanguages(options.tessdataDir);
      pool ??= createOcrPool({ size: options.workers, tessdataDir: options.tessdataDir, onWorkerError: options.onWorkerError });
      const tsv = await pool.recognize(image, ocrLanguages(languages, available), signal);
      return tsvToLines(tsv, pxToPt);
    },
    async close() {
      await pool?.close();
      pool = undefined;
    },
  };
}
