/**
 * @module documents/image/header-size
 * The width and height an image declares, read from its header in TypeScript, for every raster kind the image
 * parser takes (PNG, JPEG, WebP, TIFF, GIF, BMP), so the pixel limit (documents/pixel-limit.ts) is checked before
 * any decoder sees the file.
 *
 * Why not ask the decoder: mupdf refuses some huge headers with errors of its own ("image dimensions might
 * overflow" for a GIF of 65535×65535, "image too large" for a TIFF of 30000×30000, a missing scan for a JPEG that
 * is only a header), which answered `SCRAPE_OCR_FAILED` where the documented answer is
 * `SCRAPE_OCR_IMAGE_TOO_LARGE`; and reading a header needs no worker and no WebAssembly. Each reader looks only at
 * the bytes it needs and returns undefined when they are not there (the parser then asks mupdf, as before). WebP's
 * reader is pixel-limit.ts's (mupdf reads no WebP at all).
 */
import { webpSize, type PixelSize } from "../pixel-limit.ts";

export { webpSize };

const ascii = (bytes: Uint8Array, at: number, length: number) => String.fromCharCode(...bytes.subarray(at, at + length));
const viewOf = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** PNG: the IHDR chunk, first after the signature (width and height, 32-bit big-endian). */
export function pngSize(bytes: Uint8Array): PixelSize | undefined {
  if (bytes.length < 24 || bytes[0] !== 0x89 || ascii(bytes, 1, 3) !== "PNG" || ascii(bytes, 12, 4) !== "IHDR") return undefined;
  const v = viewOf(bytes);
  return { width: v.getUint32(16), height: v.getUint32(20) };
}

/** GIF: the logical screen (16-bit little-endian), the canvas every frame is drawn on and the size decoded. */
export function gifSize(bytes: Uint8Array): PixelSize | undefined {
  if (bytes.length < 10 || (ascii(bytes, 0, 6) !== "GIF87a" && ascii(bytes, 0, 6) !== "GIF89a")) return undefined;
  const v = viewOf(bytes);
  return { width: v.getUint16(6, true), height: v.getUint16(8, true) };
}

/**
 * BMP: the DIB header after the 14-byte file header. A BITMAPCOREHEADER (12 bytes) has 16-bit unsigned sizes; the
 * others (16 bytes for OS/2 2.x, 40 and more for Windows) 32-bit signed ones, a negative height meaning rows stored top-down (its magnitude is the height).
 */
export function bmpSize(bytes: Uint8Array): PixelSize | undefined {
  if (bytes.length < 26 || ascii(bytes, 0, 2) !== "BM") return undefined;
  const v = viewOf(bytes);
  const dib = v.getUint32(14, true);
  if (dib === 12) return { width: v.getUint16(18, true), height: v.getUint16(20, true) };
  if (dib < 16) return undefined;
  return { width: Math.abs(v.getInt32(18, true)), height: Math.abs(v.getInt32(22, true)) };
}

/** JPEG markers with no length (TEM, RST0–7, SOI, EOI). */
const STANDALONE = new Set([0x01, 0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9]);

/**
 * JPEG: the first start-of-frame segment (SOF0–SOF15 but DHT, JPG and DAC, which share the range), found by
 * walking the segments from the start; each step moves past a segment's declared length, so the walk is linear.
 * Undefined when the scan (SOS) or the end comes first.
 */
export function jpegSize(bytes: Uint8Array): PixelSize | undefined {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined;
  const v = viewOf(bytes);
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (STANDALONE.has(marker)) {
      at += 2;
      continue;
    }
    if (marker === 0xda) return undefined;
    const length = v.getUint16(at + 2);
    if (length < 2) return undefined;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      // Length, precision (1 byte), then the height and width (16-bit big-endian).
      if (at + 9 > bytes.length) return undefined;
      return { width: v.getUint16(at + 7), height: v.getUint16(at + 5) };
    }
    at += 2 + length;
  }
  return undefined;
}

const TIFF_IMAGE_WIDTH = 256;
const TIFF_IMAGE_LENGTH = 257;
const TIFF_SHORT = 3;
const TIFF_LONG = 4;

/**
 * TIFF: ImageWidth and ImageLength of the first image file directory, the page the decoders read (mupdf and
 * tesseract's Leptonica both take the first page of a multi-page file). Either byte order; values as SHORT or LONG.
 */
export function tiffSize(bytes: Uint8Array): PixelSize | undefined {
  if (bytes.length < 8) return undefined;
  const order = ascii(bytes, 0, 2);
  if (order !== "II" && order !== "MM") return undefined;
  const le = order === "II";
  const v = viewOf(bytes);
  if (v.getUint16(2, le) !== 42) return undefined;
  const ifd = v.getUint32(4, le);
  if (ifd + 2 > bytes.length) return undefined;
  const count = v.getUint16(ifd, le);
  let width: number | undefined;
  let height: number | undefined;
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > bytes.length) break;
    const tag = v.getUint16(entry, le);
    if (tag !== TIFF_IMAGE_WIDTH && tag !== TIFF_IMAGE_LENGTH) continue;
    const type = v.getUint16(entry + 2, le);
    const value = type === TIFF_SHORT ? v.getUint16(entry + 8, le) : type === TIFF_LONG ? v.getUint32(entry + 8, le) : undefined;
    if (tag === TIFF_IMAGE_WIDTH) width = value;
    else height = value;
  }
  return width !== undefined && height !== undefined ? { width, height } : undefined;
}

const READERS: Record<string, (bytes: Uint8Array) => PixelSize | undefined> = { png: pngSize, jpeg: jpegSize, webp: webpSize, tiff: tiffSize, gif: gifSize, bmp: bmpSize };

/** The size an image of `kind` (documents/detect.ts) declares in its header; undefined when it cannot be read. */
export function declaredImageSize(kind: string, bytes: Uint8Array): PixelSize | undefined {
  return READERS[kind]?.(bytes);
}
