/**
 * @module documents/media/parser
 * Lets a direct audio or video URL through the scrape when the `audio` format is requested (otherwise such a
 * URL is an unsupported file, 422). The document has no text: markdown and HTML are empty; the `audio` format
 * does the work. One credit.
 */
import { detectKind } from "../detect.ts";
import type { DocumentParser } from "../types.ts";

/** The media pass-through parser. */
export const mediaParser: DocumentParser = {
  name: "media",
  accepts(page, spec) {
    const kind = detectKind(page);
    return (kind === "audio" || kind === "video") && spec.formats.some((f) => f.type === "audio");
  },
  async parse() {
    return { markdown: "", html: "<html><body></body></html>", metadata: {}, credits: 1 };
  },
};
