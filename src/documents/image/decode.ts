/**
 * @module documents/image/decode
 * The mupdf side of the image parser, run inside a document worker (documents/isolate/document-worker.ts): an
 * image's declared size, read from its header without decoding a pixel, and GIF/BMP re-encoded as PNG for
 * tesseract (its Leptonica build reads neither). Decoding is bounded by the pixel limit, checked on the declared
 * size first, but still takes up to a second for a large image: not on the main thread.
 */
import { OcrFailedError } from "../errors.ts";
import type { Mupdf } from "../pdf/mupdf.ts";

const undecodable = (err: unknown) => new OcrFailedError(`the image could not be decoded (${err instanceof Error ? err.message : String(err)})`);

/** The width and height `bytes` declares. Throws `SCRAPE_OCR_FAILED` when mupdf cannot read its header. */
export function imageSize(m: Mupdf, bytes: Uint8Array): { width: number; height: number } {
  try {
    const image = new m.Image(bytes);
    const size = { width: image.getWidth(), height: image.getHeight() };
    image.destroy();
    return size;
  } catch (err) {
    throw undecodable(err);
  }
}

/** `bytes` re-encoded as PNG. Throws `SCRAPE_OCR_FAILED` when it cannot be decoded. */
export function imageToPng(m: Mupdf, bytes: Uint8Array): Uint8Array {
  try {
    const image = new m.Image(bytes);
    const pix = image.toPixmap();
    const png = pix.asPNG().slice();
    pix.destroy();
    image.destroy();
    return png;
  } catch (err) {
    throw undecodable(err);
  }
}
