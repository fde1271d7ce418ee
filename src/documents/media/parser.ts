/**
 * @module documents/media/parser
 * Lets a direct audio or video URL through the scrape when the `audio` format is requested, and a direct video URL
 * when the `video` format is (an audio file too, which that format then refuses with its own code; otherwise such a URL is an unsupported file, 422). The document has no text: markdown
 * and HTML are empty; the format does the work. One credit.
 */
import { detectKind } from "../detect.ts";
import type { DocumentParser } from "../types.ts";

/** The media pass-through parser. */
export const mediaParser: DocumentParser = {
  name: "media",
  accepts(page, spec) {
    const kind = detectKind(page);
    const wants = (type: string) => spec.formats.some((f) => f.type === type);
    // An audio file asked for as video goes through too: the `video` format then says why it is not one.
    return (kind === "audio" || kind === "video") && (wants("audio") || wants("video"));
  },
  async parse() {
    return { markdown: "", html: "<html><body></body></html>", metadata: {}, credits: 1 };
  },
};
