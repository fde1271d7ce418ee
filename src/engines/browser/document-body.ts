/**
 * @module engines/browser/document-body
 * The bytes of a document (PDF, image, other binary) the page ended on after its actions, for the document
 * pipeline. The first navigation to a document never gets here (the router fetches it over HTTP); a document an
 * action led to must be taken from the browser, as the actions' state (cookies, a form posted) led there.
 *
 * Reading it as text and encoding it again, as a text page is read, destroys a binary file. The response's own
 * bytes (`Network.getResponseBody`) are taken when they are the file; for a PDF they are not: Chromium's PDF viewer
 * replaces the body with its own small HTML page. The file is then fetched again from the page, with its cookies
 * and through the egress gate like any request of the page. When neither works, {@link DocumentResponseError} says
 * the URL is a document, as for a first navigation.
 *
 * That fetch runs in crawlbox's isolated world (page-reads.ts), with Chromium's own `fetch`, stream reader and `btoa`
 * (the page's world could redefine each to answer anything), and what comes back is checked again here before it is
 * decoded: a base64 string longer than `maxBytes` encode to is refused unread, and so are decoded bytes past it.
 */
import type { HTTPResponse, Page } from "puppeteer-core";
import { responseTooLarge } from "../http/body.ts";
import { DocumentResponseError } from "./navigation.ts";
import { isolatedRealm } from "./page-reads.ts";

/** How far into a PDF its `%PDF-` header may be (the PDF specification's readers allow leading junk; 1 KiB is usual). */
const PDF_HEADER_WITHIN_BYTES = 1_024;

/** Whether `bytes` can be the body of a `contentType` response (a PDF starts with `%PDF-` near its start). */
export function isPlausibleBody(contentType: string, bytes: Uint8Array): boolean {
  if (!/^application\/(x-)?pdf$/.test(contentType)) return true;
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, PDF_HEADER_WITHIN_BYTES));
  return head.includes("%PDF-");
}

/**
 * The bytes of the document `response` (of type `contentType`) that the page shows, at most `maxBytes`.
 * @throws {@link DocumentResponseError} when the browser cannot give them; `SCRAPE_RESPONSE_TOO_LARGE` past `maxBytes`.
 */
export async function readDocumentBody(page: Page, response: HTTPResponse, contentType: string, maxBytes: number): Promise<Uint8Array> {
  const own = await response.buffer().then(
    (b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength),
    () => undefined,
  );
  if (own && isPlausibleBody(contentType, own)) {
    if (own.byteLength > maxBytes) throw responseTooLarge(response.url(), maxBytes);
    return own;
  }
  const fetched = await fetchInPage(page, response.url(), maxBytes).catch(() => undefined);
  if (fetched === "too-large") throw responseTooLarge(response.url(), maxBytes);
  if (fetched && isPlausibleBody(contentType, fetched)) return fetched;
  throw new DocumentResponseError(response.url(), contentType);
}

/**
 * Fetches `url` from the page (its cookies, its egress), reading at most `maxBytes`; base64 across the DevTools
 * connection. `undefined` when the answer is not a success.
 */
async function fetchInPage(page: Page, url: string, maxBytes: number): Promise<Uint8Array | "too-large" | undefined> {
  const got: unknown = await isolatedRealm(page).evaluate(
    async (address: string, max: number) => {
      const res = await fetch(address, { credentials: "include" });
      if (!res.ok || !res.body) return { failed: true };
      const reader = res.body.getReader();
      const parts: Uint8Array[] = [];
      let size = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > max) {
          await reader.cancel();
          return { tooLarge: true };
        }
        parts.push(value);
      }
      let binary = "";
      for (const part of parts) {
        for (let i = 0; i < part.byteLength; i += 0x8000) binary += String.fromCharCode(...part.subarray(i, i + 0x8000));
      }
      return { base64: btoa(binary) };
    },
    url,
    maxBytes,
  );
  if (typeof got !== "object" || got === null) return undefined;
  if ("tooLarge" in got) return "too-large";
  const base64 = "base64" in got ? got.base64 : undefined;
  if (typeof base64 !== "string") return undefined;
  // Checked before decoding (the isolated world already held it to `maxBytes`; this does not trust that).
  if (base64.length > base64Length(maxBytes)) return "too-large";
  const bytes = new Uint8Array(Buffer.from(base64, "base64"));
  return bytes.byteLength > maxBytes ? "too-large" : bytes;
}

/** Characters of the base64 encoding (with padding) of `bytes` bytes. */
export function base64Length(bytes: number): number {
  return Math.ceil(Math.max(0, bytes) / 3) * 4;
}
