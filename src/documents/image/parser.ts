/**
 * @module documents/image/parser
 * Images served directly (png, jpeg, webp, tiff, gif, bmp), when `parsers` includes `image`: OCR'd to markdown
 * through the same layout as PDF pages. GIF and BMP go through mupdf first (tesseract's Leptonica build lacks
 * them), on a document worker (documents/image/decode.ts).
 * One credit per image.
 */
import { convertPages } from "../convert.ts";
import { documentDeadline } from "../deadline.ts";
import { detectKind, OCR_IMAGE_KINDS } from "../detect.ts";
import { OcrFailedError } from "../errors.ts";
import type { DocumentWorkers } from "../isolate/pool.ts";
import type { OcrEngine } from "../ocr/engine.ts";
import { assertOcrPixels, webpSize } from "../pixel-limit.ts";
import type { DocumentParser } from "../types.ts";

/** Pixels are treated as CSS pixels (96 per inch) when converted to points; only relative sizes matter. */
const PX_TO_PT = 0.75;

/** Creates the image parser. */
export function createImageParser(options: { ocr: OcrEngine; workers: DocumentWorkers }): DocumentParser {
  return {
    name: "image",
    accepts: (page, spec) => spec.parsers.some((p) => p.type === "image") && OCR_IMAGE_KINDS.has(detectKind(page)),
    async parse(page, spec, signal) {
      const deadline = documentDeadline(spec, page, signal);
      const kind = detectKind(page);
      try {
        let size = kind === "webp" ? webpSize(page.body) : undefined;
        if (kind === "webp" && !size) throw new OcrFailedError("the image could not be decoded (unreadable WebP header)");
        let image = page.body;
        if (size) assertOcrPixels(size);
        else {
          // mupdf reads the header of every other kind (the pixel limit is checked on it before anything is decoded,
          // documents/pixel-limit.ts) and turns GIF and BMP into PNG, on a document worker.
          const worker = await options.workers.lease(deadline.signal);
          try {
            size = await worker.call({ op: "imageSize", body: page.body });
            assertOcrPixels(size);
            if (kind === "gif" || kind === "bmp") image = await worker.call({ op: "imagePng", body: page.body });
          } finally {
            worker.release();
          }
        }
        const { width, height } = size;
        const lines = await options.ocr.recognize(image, PX_TO_PT, spec.location?.languages, deadline.signal);
        return convertPages([{ number: 1, width: width * PX_TO_PT, height: height * PX_TO_PT, lines, source: "ocr" }], {}, 1);
      } catch (err) {
        throw deadline.wrap(err);
      }
    },
  };
}
