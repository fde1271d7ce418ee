/**
 * @module documents/pixel-limit
 * The largest raster crawlbox decodes or renders for OCR, checked on the size an image declares or a PDF page
 * measures, before any pixel is decoded.
 *
 * Why: decoding happens in WebAssembly (mupdf in the document workers, tesseract in the OCR workers: threads of the
 * same process), and a WASM memory grows to the largest image it ever held and never shrinks. A 1 KB PNG that
 * declares 30000×30000 pixels took the process from 120 MB to 1.9 GB when mupdf decoded it; a PDF page of 11000
 * points square, rendered at 200 dpi for OCR, is a 930 MB pixmap. With the limit, a large image is refused with a
 * clear error (its size read from its header: documents/image/header-size.ts) and a large PDF page is rendered at a
 * lower resolution instead.
 */
import { OcrImageTooLargeError } from "./errors.ts";

/**
 * Pixels of one image or rendered page given to OCR: 50 megapixels, above an 8000×6000 phone photo and an A4 page
 * at 600 dpi (34.8 MP), ~150 MB as RGB.
 */
export const MAX_OCR_PIXELS = 50_000_000;

/** Width and height in pixels. */
export interface PixelSize {
  width: number;
  height: number;
}

/** Throws {@link OcrImageTooLargeError} when an image of `size` is over {@link MAX_OCR_PIXELS}. */
export function assertOcrPixels(size: PixelSize, maxPixels = MAX_OCR_PIXELS): void {
  if (size.width * size.height > maxPixels) throw new OcrImageTooLargeError(size.width, size.height, maxPixels);
}

/**
 * Pixels per point at which a `widthPt`×`heightPt` page is rendered: `dpi / 72`, lowered for a page that would
 * otherwise be over `maxPixels` (a poster-sized page is read at a lower resolution rather than not at all).
 */
export function renderScale(widthPt: number, heightPt: number, dpi: number, maxPixels = MAX_OCR_PIXELS): number {
  const scale = dpi / 72;
  const area = Math.max(0, widthPt) * Math.max(0, heightPt);
  if (area * scale * scale <= maxPixels) return scale;
  // Rounding up to whole pixels adds at most one row and one column: keep a margin for it.
  return Math.sqrt(maxPixels / area) * 0.999;
}

const ascii = (bytes: Uint8Array, at: number, length: number) => String.fromCharCode(...bytes.subarray(at, at + length));

/**
 * The size a WebP declares in its first chunk (RIFF container; `VP8 ` lossy, `VP8L` lossless or `VP8X` extended),
 * read from the header alone; undefined when the header is not one of those.
 */
export function webpSize(bytes: Uint8Array): PixelSize | undefined {
  if (bytes.length < 25 || ascii(bytes, 0, 4) !== "RIFF" || ascii(bytes, 8, 4) !== "WEBP") return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunk = ascii(bytes, 12, 4);
  if (chunk === "VP8X" && bytes.length >= 30) {
    // 24-bit canvas width − 1 and height − 1 after 4 bytes of flags.
    const width = 1 + (bytes[24]! | (bytes[25]! << 8) | (bytes[26]! << 16));
    const height = 1 + (bytes[27]! | (bytes[28]! << 8) | (bytes[29]! << 16));
    return { width, height };
  }
  if (chunk === "VP8 " && bytes.length >= 30) {
    // A key frame: 3-byte frame tag, start code 9d 01 2a, then 14-bit width and height (2 bits of scale above).
    if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) return undefined;
    return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  }
  if (chunk === "VP8L") {
    // Signature 0x2f, then 14-bit width − 1 and 14-bit height − 1, little-endian bit order.
    if (bytes[20] !== 0x2f) return undefined;
    const bits = view.getUint32(21, true);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) };
  }
  return undefined;
}
