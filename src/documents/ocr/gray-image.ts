/**
 * @module documents/ocr/gray-image
 * A PNG decoded to 8-bit grey in the OCR worker, so that ruling lines can be found and erased before tesseract
 * reads the page (documents/ocr/ruling-lines.ts), and a grey image encoded back as a binary PGM, which tesseract's
 * Leptonica reads without a codec. Every PDF page reaches OCR as an 8-bit grey PNG (documents/pdf/extract.ts); an
 * image file may be any PNG. Other formats (JPEG, WebP, TIFF) are not decoded here: they go to tesseract as they are.
 */
import { inflateSync } from "node:zlib";
import { MAX_OCR_PIXELS } from "../pixel-limit.ts";

/** An 8-bit grey raster, rows top to bottom. */
export interface GrayImage {
  width: number;
  height: number;
  data: Uint8Array;
}

const PNG_SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];
/** Channels per PNG colour type (0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA). */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/**
 * The grey raster of a PNG, or undefined when `bytes` is not a PNG this decoder reads (interlaced, damaged) or
 * would inflate to more than `maxRawBytes` (a large colour photo is not worth the memory: it holds no ruled page).
 * Alpha is composited over white, colour is reduced to luma.
 */
export function decodePngGray(bytes: Uint8Array, maxRawBytes = 64 * 1024 * 1024): GrayImage | undefined {
  if (bytes.length < 33 || PNG_SIGNATURE.some((b, i) => bytes[i] !== b)) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let width = 0;
  let height = 0;
  let depth = 0;
  let type = -1;
  let interlaced = false;
  let palette: Uint8Array | undefined;
  let paletteAlpha: Uint8Array | undefined;
  const idat: Uint8Array[] = [];
  for (let p = 8; p + 8 <= bytes.length; ) {
    const length = view.getUint32(p);
    const name = String.fromCharCode(bytes[p + 4]!, bytes[p + 5]!, bytes[p + 6]!, bytes[p + 7]!);
    const body = bytes.subarray(p + 8, p + 8 + length);
    if (body.length !== length) return undefined;
    if (name === "IHDR") {
      // One header, the one the pixel limit was checked on (image/header-size.ts reads the first): a second one
      // claimed 32000 × 16000 pixels behind a 100 × 100 first one, and 84 KB of PNG took 1 GB and 9 s here.
      if (width !== 0 || length < 13) return undefined;
      width = view.getUint32(p + 8);
      height = view.getUint32(p + 12);
      depth = bytes[p + 16]!;
      type = bytes[p + 17]!;
      interlaced = bytes[p + 20] !== 0;
    } else if (name === "PLTE") palette = body;
    else if (name === "tRNS" && type === 3) paletteAlpha = body;
    else if (name === "IDAT") idat.push(body);
    else if (name === "IEND") break;
    p += 12 + length;
  }
  const channels = CHANNELS[type];
  if (!channels || interlaced || width === 0 || height === 0 || idat.length === 0) return undefined;
  if (width * height > MAX_OCR_PIXELS) return undefined;
  if (type === 3 && !palette) return undefined;
  if (![1, 2, 4, 8, 16].includes(depth) || (depth < 8 && type !== 0 && type !== 3) || (depth === 16 && type === 3)) return undefined;
  const bitsPerPixel = channels * depth;
  const stride = Math.ceil((width * bitsPerPixel) / 8);
  const rawSize = (stride + 1) * height;
  if (rawSize > maxRawBytes) return undefined;
  let raw: Uint8Array;
  try {
    raw = inflateSync(Buffer.concat(idat), { maxOutputLength: rawSize });
  } catch {
    return undefined;
  }
  if (raw.length < rawSize) return undefined;
  if (!unfilter(raw, stride, height, Math.max(1, bitsPerPixel >> 3))) return undefined;
  const data = new Uint8Array(width * height);
  const step = depth === 16 ? 2 : 1; // the high byte of a 16-bit sample
  for (let y = 0; y < height; y++) {
    const row = y * (stride + 1) + 1;
    const out = y * width;
    if (depth < 8) {
      const max = (1 << depth) - 1;
      for (let x = 0; x < width; x++) {
        const bit = x * depth;
        const v = (raw[row + (bit >> 3)]! >> (8 - depth - (bit & 7))) & max;
        data[out + x] = type === 3 ? paletteGray(palette!, paletteAlpha, v) : Math.round((v * 255) / max);
      }
    } else if (type === 0) {
      for (let x = 0; x < width; x++) data[out + x] = raw[row + x * step]!;
    } else if (type === 3) {
      for (let x = 0; x < width; x++) data[out + x] = paletteGray(palette!, paletteAlpha, raw[row + x]!);
    } else {
      const px = channels * step;
      for (let x = 0; x < width; x++) {
        const i = row + x * px;
        const g = type === 4 ? raw[i]! : luma(raw[i]!, raw[i + step]!, raw[i + 2 * step]!);
        const a = type === 4 ? raw[i + step]! : type === 6 ? raw[i + 3 * step]! : 255;
        data[out + x] = a === 255 ? g : overWhite(g, a);
      }
    }
  }
  return { width, height, data };
}

const luma = (r: number, g: number, b: number) => (r * 77 + g * 150 + b * 29) >> 8;
const overWhite = (g: number, a: number) => Math.round((g * a + 255 * (255 - a)) / 255);

function paletteGray(palette: Uint8Array, alpha: Uint8Array | undefined, index: number): number {
  const i = index * 3;
  if (i + 2 >= palette.length) return 255;
  const g = luma(palette[i]!, palette[i + 1]!, palette[i + 2]!);
  const a = alpha && index < alpha.length ? alpha[index]! : 255;
  return a === 255 ? g : overWhite(g, a);
}

/** Reverses PNG's per-row filters in place (`raw` holds a filter byte before each row). False on a bad filter. */
function unfilter(raw: Uint8Array, stride: number, height: number, bpp: number): boolean {
  for (let y = 0; y < height; y++) {
    const row = y * (stride + 1) + 1;
    const up = row - (stride + 1);
    const filter = raw[row - 1]!;
    if (filter === 0) continue;
    if (filter === 1) {
      for (let x = bpp; x < stride; x++) raw[row + x] = (raw[row + x]! + raw[row + x - bpp]!) & 255;
    } else if (filter === 2) {
      if (y > 0) for (let x = 0; x < stride; x++) raw[row + x] = (raw[row + x]! + raw[up + x]!) & 255;
    } else if (filter === 3) {
      for (let x = 0; x < stride; x++) {
        const a = x >= bpp ? raw[row + x - bpp]! : 0;
        const b = y > 0 ? raw[up + x]! : 0;
        raw[row + x] = (raw[row + x]! + ((a + b) >> 1)) & 255;
      }
    } else if (filter === 4) {
      for (let x = 0; x < stride; x++) {
        const a = x >= bpp ? raw[row + x - bpp]! : 0;
        const b = y > 0 ? raw[up + x]! : 0;
        const c = x >= bpp && y > 0 ? raw[up + x - bpp]! : 0;
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        raw[row + x] = (raw[row + x]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 255;
      }
    } else return false;
  }
  return true;
}

/** A binary PGM (P5) of `image`: a header and the raw bytes, read by Leptonica without a codec. */
export function encodePgm(image: GrayImage): Uint8Array {
  const head = new TextEncoder().encode(`P5\n${image.width} ${image.height}\n255\n`);
  const out = new Uint8Array(head.length + image.data.length);
  out.set(head);
  out.set(image.data, head.length);
  return out;
}
