/**
 * @module engines/browser/raw-bytes
 * The main document's bytes as the browser fetched them, for the `rawBase64` format ("the fetched bytes, unparsed")
 * when the browser served the page: the page's `body` is then Chromium's re-serialised DOM in UTF-8 (what a page's
 * scripts made of it, a windows-1252 page's `é` as two bytes), not what the site sent.
 *
 * Where they come from, first that works:
 * 1. The browser's HTTP cache: a `fetch(url, {cache: "only-if-cached"})` in crawlbox's isolated world gives the very
 *    bytes the navigation received (content decoding undone, as the HTTP engine's body), without a new request.
 * 2. A page the cache did not keep (`Cache-Control: no-store`): CDP's `Network.getResponseBody` (puppeteer's
 *    `HTTPResponse.buffer()`). For a text document Chromium answers with the text as it decoded it, so these are the
 *    served bytes only for a UTF-8 page (less a byte-order mark, and any invalid sequence replaced); for a page in
 *    another charset the artifact carries a warning that says the bytes are its source re-encoded as UTF-8.
 * 3. Neither (Chromium dropped the body: a page that navigated on, a body past its buffer): `{ error }`, and the
 *    format serves the DOM with a warning.
 */
import type { HTTPResponse, JSHandle, Page } from "puppeteer-core";
import { firstLine } from "./navigation.ts";
import { isolatedRealm, untilDeadline } from "./page-reads.ts";

/**
 * What the engine stores in `artifacts.rawBase64`: the fetched bytes (and what to tell about them), or why there are
 * none. `reencodedFrom`: the bytes are not those fetched but the page's text as Chromium decoded it from that charset,
 * in UTF-8 (so whoever decodes them must read UTF-8, not the charset the page declares: received-html.ts).
 */
export type RawBytesArtifact = { bytes: Uint8Array; warning?: string; reencodedFrom?: string } | { error: string };

/** Longest the read may take when the deadline is further away. */
export const RAW_BYTES_READ_MS = 5_000;

/** Bytes moved from the page per DevTools message (base64 makes a third more). */
const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * The bytes of `response` (the main frame's last document response, on `page`) as fetched, within `deadline` (a
 * `performance.now()` time) and `maxBytes`. Never throws: a body the browser no longer has is `{ error }`.
 */
export async function readFetchedBytes(page: Page, response: HTTPResponse, deadline: number, maxBytes: number): Promise<RawBytesArtifact> {
  const until = Math.min(deadline, performance.now() + RAW_BYTES_READ_MS);
  // Only a GET's: the cache's copy of a form's POST address would be another document.
  const cacheable = response.request().method() === "GET";
  const cached = cacheable ? await untilDeadline(fromHttpCache(page, response.url(), maxBytes, until).catch(() => undefined), until, undefined) : undefined;
  if (cached) return cached;
  try {
    const got = await untilDeadline(response.buffer(), until, undefined);
    if (got === undefined) return { error: "its body had not arrived whole by the deadline" };
    if (got.byteLength > maxBytes) return { error: `its body is larger than ${maxBytes} bytes` };
    const bytes = new Uint8Array(got.buffer, got.byteOffset, got.byteLength);
    const charset = await untilDeadline(isolatedRealm(page).evaluate(() => String(document.characterSet).slice(0, 40)).catch(() => "unknown"), until, "unknown");
    if (/^utf-?8$/i.test(charset)) return { bytes };
    return {
      bytes,
      reencodedFrom: charset,
      warning: `the browser kept no copy of the bytes it fetched (the page may not be cached), so these are its source re-encoded from ${charset} to UTF-8`,
    };
  } catch (err) {
    return { error: `the browser no longer had its body (${firstLine(err)})` };
  }
}

/** The cached response of `url` in the page's HTTP cache, undefined when there is none (or it does not fit `maxBytes`). */
async function fromHttpCache(page: Page, url: string, maxBytes: number, until: number): Promise<RawBytesArtifact | undefined> {
  const realm = isolatedRealm(page);
  const handle = (await realm.evaluateHandle(async (u: string) => {
    try {
      const res = await fetch(u, { cache: "only-if-cached", mode: "same-origin", credentials: "include", redirect: "manual" });
      return res.ok ? new Uint8Array(await res.arrayBuffer()) : null;
    } catch {
      return null; // not in the cache (no-store), or another origin
    }
  }, url)) as JSHandle<Uint8Array | null>;
  try {
    const length = await handle.evaluate((b) => (b ? b.byteLength : -1));
    if (length < 0 || length > maxBytes) return undefined;
    const bytes = new Uint8Array(length);
    for (let start = 0; start < length; start += CHUNK_BYTES) {
      if (performance.now() >= until) return undefined;
      const chunk = await handle.evaluate(
        (b, from: number, to: number) => {
          const part = b!.subarray(from, to);
          let binary = "";
          for (let i = 0; i < part.length; i += 0x8000) binary += String.fromCharCode(...part.subarray(i, i + 0x8000));
          return btoa(binary);
        },
        start,
        Math.min(length, start + CHUNK_BYTES),
      );
      bytes.set(Buffer.from(chunk, "base64"), start);
    }
    return { bytes };
  } finally {
    await handle.dispose().catch(() => {});
  }
}
