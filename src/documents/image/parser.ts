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
import type { DocumentParser } from "../types.ts";

/** Pixels are treated as CSS pixels (96 per inch) when converted to points; only relative sizes matter. */
const PX_TO_PT = 0.75;

async function toPng(bytes: Uint8Array): Promise<{ png: Uint8Array; width: number; height: number }> {
  const m = await loadMupdf();
  try {
    const image = new m.Image(bytes);
    const pix = image.toPixmap();
    const png = pix.asPNG().slice();
    const out = { png, width: pix.getWidth(), height: pix.getHeight() };
    pix.destroy();
    image.destroy();
    return out;
  } catch (err) {
    throw new OcrFailedError(`the image could not be decoded (${err instanceof Error ? err.message : String(err)})`);
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
      // Decoding with mupdf also gives the size (and validates the image) for every kind it reads.
      let image = page.body;
      let width = 0;
      let height = 0;
      if (kind !== "webp") {
        const decoded = await toPng(page.body);
        ({ width, height } = decoded);
        if (kind === "gif" || kind === "bmp") image = decoded.png;
      }
      try {
        const lines = await options.ocr.recognize(image, PX_TO_PT, spec.location?.languages, deadline.signal);
        if (!width) {
          width = Math.max(0, ...lines.map((l) => l.x1)) / PX_TO_PT;
          height = Math.max(0, ...lines.map((l) => l.y1)) / PX_TO_PT;
        }
        return convertPages([{ number: 1, width: width * PX_TO_PT, height: height * PX_TO_PT, lines, source: "ocr" }], {}, 1);
      } catch (err) {
        throw deadline.wrap(err);
      }
    },
  };
}
