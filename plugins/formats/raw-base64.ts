/**
 * @module plugins/formats/raw-base64
 * The [LATEST] `rawBase64` format (api-v2.md §2.2, §3.1): the response body exactly as fetched, base64-encoded,
 * for clients that want the file itself (a PDF, an image, a page's original bytes before charset decoding). It
 * must be the only format of a request (refine.ts), and it reads nothing but the bytes, so the page is not parsed
 * and any content type is accepted ({@link FormatRenderer.bytesOnly}).
 *
 * The router answers it from the HTTP engine whenever it can (it never sends such a request to the browser because
 * the page needs JavaScript). When the browser served the page (`waitFor`, `mobile`, `proxy: "enhanced"` …) the
 * page's body is the rendered DOM, so the engine keeps the main document's bytes as they arrived
 * (`artifacts.rawBase64`, src/engines/browser/raw-bytes.ts: from its HTTP cache, else its source text, exact for a
 * UTF-8 page); when they are not exact, or when the browser no longer had them, a warning says so (and the DOM is
 * served in the latter case). A browser's copy in crawlbox's page cache is passed over and the bytes fetched
 * (scrape/page-source.ts), except under `minAge` or `lockdown`, which allow only the cache: that copy is served,
 * with a warning that says it is the DOM.
 */
import type { RawBytesArtifact } from "../../src/engines/browser/raw-bytes.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

const base64 = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("base64");

/** Renders `data.rawBase64`. */
export const rawBase64Format: FormatRenderer = {
  type: "rawBase64",
  needs: [],
  views: [],
  bytesOnly: true,
  render(ctx) {
    const fetched = ctx.page.artifacts?.rawBase64 as RawBytesArtifact | undefined;
    if (fetched && "bytes" in fetched) {
      const rawBase64 = base64(fetched.bytes);
      return fetched.warning ? { rawBase64, warning: `rawBase64 is not exactly the bytes fetched: ${fetched.warning}.` } : { rawBase64 };
    }
    const rawBase64 = base64(ctx.page.body);
    if (ctx.page.engine !== "browser") return { rawBase64 };
    const why = fetched ? fetched.error : "this is a copy the browser made, from the cache, which minAge and lockdown allow alone (leave them out to fetch the bytes)";
    return { rawBase64, warning: `rawBase64 holds the page as the browser rebuilt it (its DOM, in UTF-8), not the bytes it fetched: ${why}.` };
  },
};
