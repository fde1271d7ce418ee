/**
 * @module documents/image/parser
 * Images served directly (png, jpeg, webp, tiff, gif, bmp), when `parsers` includes `image`: OCR'd to markdown
 * through the same layout as PDF pages. The size each declares is read from its header first (header-size.ts) and
 * held to the pixel limit; GIF and BMP then go through mupdf (tesseract's Leptonica build lacks them), on a
 * document worker (documents/image/decode.ts).
 * One credit per image.
 */
import { convertPages } from "../convert.ts";
import { documentDeadline } from "../deadline.ts";
import { detectKind, OCR_IMAGE_KINDS } from "../detect.ts";
import { OcrFailedError } from "../errors.ts";
import type { DocumentWorkers } from "../isolate/pool.ts";
import type { OcrEngine } from "../ocr/engine.ts";
import { assertOcrPixels } from "../pixel-limit.ts";
import { declaredImageSize } from "./header-size.ts";
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
        // The pixel limit is checked on the size the header declares, before anything is decoded
        // (documents/pixel-limit.ts): read here for every kind (documents/image/header-size.ts).
        let size = declaredImageSize(kind, page.body);
        if (kind === "webp" && !size) throw new OcrFailedError("the image could not be decoded (unreadable WebP header)");
        if (size) assertOcrPixels(size);
        let image = page.body;
        if (!size || kind === "gif" || kind === "bmp") {
          // A header the reader does not know (bytes only the content type called an image) is left to mupdf; GIF and
          // BMP are turned into PNG there (tesseract's Leptonica build reads neither), on a document worker.
          const worker = await options.workers.lease(deadline.signal);
          try {
            if (!size) {
              size = await worker.call({ op: "imageSize", body: page.body });
              assertOcrPixels(size);
            }
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
