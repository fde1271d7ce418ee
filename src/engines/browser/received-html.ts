/**
 * @module engines/browser/received-html
 * The main document as the browser received it, in place of its DOM, for a page whose parse never finished.
 *
 * Why: a parser-blocking `<script src>` in `<head>` that never answers stops Chromium's parser there for ever. The
 * scrape goes on after a share of the time (document-wait.ts), but the DOM then has a head and no body, and a scrape
 * only the browser serves (`waitFor`, `mobile`, actions, `proxy: "enhanced"`, a screenshot …) came back with empty
 * markdown although the whole document had arrived. Its formats are now built from the HTML received: the main
 * document's bytes from the browser (raw-bytes.ts, as for `rawBase64`: its HTTP cache, else its source text), decoded
 * with the page's charset as the HTTP engine decodes a body (engines/charset.ts `decodeText`), with a warning.
 *
 * Only when all of these hold:
 * - the navigation was cut before `DOMContentLoaded` (document-wait.ts) with the document still "loading", and the
 *   page is still that document (scrape.ts decides this before calling here); and its `readyState` was still
 *   "loading" when its markup was made (page-reads.ts `readDocumentHtml`): the parser had not reached its end. A page
 *   whose scripts replaced its body, or rewrote it with `document.open()` (which leaves "loading" too), was parsed
 *   whole and keeps its DOM, however little that holds; so does one that moved on to a document still arriving,
 *   whose bytes are not there to read.
 * - its DOM shows less text than the HTML received ({@link DOM_SHARE_OF_RECEIVED}): a parser stopped near the end
 *   (a stylesheet that a script at the bottom waits for) keeps the DOM, which has the scripts' work.
 * - the request is not the router's JavaScript fallback (`BrowserRequest.fallback`): that holds the HTTP engine's
 *   page and answers with it itself when the browser's is cut short (router.ts `showsLess`).
 */
import type { HTTPResponse, Page as PuppeteerPage } from "puppeteer-core";
import { decodeText, mimeTypeOf } from "../charset.ts";
import { visibleTextLength } from "./detect.ts";
import type { BrowserRequest } from "./engine.ts";
import type { ReadyState } from "./page-reads.ts";
import { readFetchedBytes } from "./raw-bytes.ts";

/**
 * Share of the received HTML's visible text the DOM must show to be kept. Below 1 because the two are counted on
 * markup: the received HTML's character references (`&eacute;`, `&#39;`) count as written, the DOM's as one
 * character, so a DOM holding all the text may count a little less.
 */
export const DOM_SHARE_OF_RECEIVED = 0.9;

/** Visible characters counted at most on each side: enough to tell "less". */
const MAX_COMPARED_CHARS = 1_000_000;

/** The warning of a page built from its HTML as received. */
export const RECEIVED_HTML_WARNING =
  "The browser had not parsed the page's body (its parser still waited for a script or stylesheet that never arrived), so the formats are built from its HTML as the browser received it, which the page's scripts have not run on.";

/** The HTML received, decoded, and its UTF-8 bytes (the page's `text` and `body`). */
export interface ReceivedHtml {
  text: string;
  body: Uint8Array;
}

/**
 * The text of the document's bytes as fetched: decoded under the response's `Content-Type` as the HTTP engine does
 * (byte-order mark, header, `<meta>` prescan, UTF-8 if valid, else windows-1252), or as UTF-8 when the browser only
 * had the text it decoded (`reencodedFrom`: raw-bytes.ts).
 */
export function decodeReceived(fetched: { bytes: Uint8Array; reencodedFrom?: string }, contentTypeHeader: string | undefined): string {
  if (fetched.reencodedFrom !== undefined) return new TextDecoder("utf-8").decode(fetched.bytes);
  return decodeText(fetched.bytes, mimeTypeOf(contentTypeHeader), contentTypeHeader).text;
}

/**
 * The received HTML to serve instead of `domHtml` (the page's DOM), or undefined when the DOM is kept: it shows at
 * least {@link DOM_SHARE_OF_RECEIVED} of the received text, or the received HTML's UTF-8 is over `leftBytes`.
 */
export function receivedInstead(domHtml: string, fetched: { bytes: Uint8Array; reencodedFrom?: string }, contentTypeHeader: string | undefined, leftBytes: number): ReceivedHtml | undefined {
  const text = decodeReceived(fetched, contentTypeHeader);
  const receivedChars = visibleTextLength(text, MAX_COMPARED_CHARS);
  const enough = Math.ceil(receivedChars * DOM_SHARE_OF_RECEIVED);
  if (receivedChars === 0 || visibleTextLength(domHtml, enough) >= enough) return undefined;
  const body = new TextEncoder().encode(text);
  return body.byteLength > leftBytes ? undefined : { text, body };
}

/** What {@link htmlAsReceived} needs of the scrape. */
export interface ReceivedHtmlContext {
  /** The document's `readyState` as `domHtml` was made (final-page.ts). */
  readyState: ReadyState | undefined;
  /** `performance.now()` time by which the scrape must end. */
  deadline: number;
  maxBodyBytes: number;
  /** What the page's body may still take of the size limit (after its actions' results). */
  leftBytes: number;
}

/**
 * For a page whose parse never finished (see the module comment), its HTML as the browser received it, in place of
 * `domHtml`; undefined when the DOM stays (it was parsed whole, holds as much, the request is the router's fallback,
 * or the browser no longer has the bytes). A `rawBase64` request is left alone: that format is its request's only
 * one (api/refine.ts) and is made from the fetched bytes already (raw-bytes.ts).
 */
export async function htmlAsReceived(page: PuppeteerPage, response: HTTPResponse, req: BrowserRequest, domHtml: string, c: ReceivedHtmlContext): Promise<ReceivedHtml | undefined> {
  if (c.readyState !== "loading" || req.rawBytes || req.fallback) return undefined;
  const fetched = await readFetchedBytes(page, response, c.deadline, c.maxBodyBytes);
  if (!("bytes" in fetched)) return undefined;
  return receivedInstead(domHtml, fetched, response.headers()["content-type"], c.leftBytes);
}
