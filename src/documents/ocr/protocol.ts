/**
 * @module documents/ocr/protocol
 * Messages between the OCR pool (main thread) and an OCR worker. One job at a time per worker.
 */

/** Main → worker: recognise one image (PNG/JPEG/WebP/TIFF/BMP bytes) with `langs` (tesseract's `eng+deu` form). */
export interface OcrRequest {
  id: number;
  langs: string;
  image: Uint8Array;
  /** Folder of extra `<lang>.traineddata[.gz]` files (CRAWLBOX_TESSDATA_DIR); empty = English only. */
  tessdataDir: string;
}

/** Worker → main. `tsv` is tesseract's TSV output (one row per page/block/paragraph/line/word). */
export type OcrResponse = { id: number; ok: true; tsv: string } | { id: number; ok: false; error: string };
