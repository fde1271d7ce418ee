/**
 * @module documents/image/parser
 * Images served directly (png, jpeg, webp, tiff, gif, bmp), when `parsers` includes `image`: OCR'd to markdown
 * through the same layout as PDF pages. GIF goes through mupdf first (tesseract's Leptonica build lacks it).
 * One credit per image.
 */
import { convertPages } from "../convert.ts";
import { documentDeadline } from "../deadline.ts";
import { detectKind, OCR_IMAGE_KINDS } from "../detect.ts";
import { OcrFailedError } from "../errors.ts";
import type { OcrEngine } from "../ocr/engine.ts";
import { loadMupdf } from "../pdf/mupdf.ts";
import { assertOcrPixels, type PixelSize, webpSize } from "../pixel-limit.ts";
import type { DocumentParser } from "../types.ts";

/** Pixels are treated as CSS pixels (96 per inch) when converted to points; only relative sizes matter. */
const PX_TO_PT = 0.75;

const undecodable = (err: unknown) => new OcrFailedError(`the image could not be decoded (${err instanceof Error ? err.message : String(err)})`);

/**
 * The size the image declares, read from its header without decoding a pixel (mupdf reads the header of every kind
 * but WebP): the pixel limit is checked on it before anything is decoded (documents/pixel-limit.ts).
 */
async function declaredSize(bytes: Uint8Array, kind: string): Promise<PixelSize> {
  if (kind === "webp") {
    const size = webpSize(bytes);
    if (!size) throw new OcrFailedError("the image could not be decoded (unreadable WebP header)");
    return size;
  }
  const m = await loadMupdf();
  try {
    const image = new m.Image(bytes);
    const size = { width: image.getWidth(), height: image.getHeight() };
    image.destroy();
    return size;
  } catch (err) {
    throw undecodable(err);
  }
}

/** GIF and BMP as PNG, for tesseract (its Leptonica build reads neither). */
async function toPng(bytes: Uint8Array): Promise<Uint8Array> {
  const m = await loadMupdf();
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

/** Creates the image parser. */
export function createImageParser(options: { ocr: OcrEngine }): DocumentParser {
  return {
    name: "image",
    accepts: (page, spec) => spec.parsers.some((p) => p.type === "image") && OCR_IMAGE_KINDS.has(detectKind(page)),
    async parse(page, spec, signal) {
      const deadline = documentDeadline(spec, page, signal);
      const kind = detectKind(page);
      const { width, height } = await declaredSize(page.body, kind);
      assertOcrPixels({ width, height });
      const image = kind === "gif" || kind === "bmp" ? await toPng(page.body) : page.body;
      try {
        const lines = await options.ocr.recognize(image, PX_TO_PT, spec.location?.languages, deadline.signal);
        return convertPages([{ number: 1, width: width * PX_TO_PT, height: height * PX_TO_PT, lines, source: "ocr" }], {}, 1);
      } catch (err) {
        throw deadline.wrap(err);
      }
    },
  };
}
