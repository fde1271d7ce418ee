/**
 * @module plugins/formats/raw-base64
 * The [LATEST] `rawBase64` format (api-v2.md §2.2, §3.1): the response body exactly as fetched, base64-encoded,
 * for clients that want the file itself (a PDF, an image, a page's original bytes before charset decoding). It
 * must be the only format of a request (refine.ts), and it reads nothing but the bytes, so the page is not parsed
 * and any content type is accepted ({@link FormatRenderer.bytesOnly}).
 */
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

/** Renders `data.rawBase64`. */
export const rawBase64Format: FormatRenderer = {
  type: "rawBase64",
  needs: [],
  views: [],
  bytesOnly: true,
  render: (ctx) => ({ rawBase64: Buffer.from(ctx.page.body.buffer, ctx.page.body.byteOffset, ctx.page.body.byteLength).toString("base64") }),
};
