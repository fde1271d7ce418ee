/**
 * @module engines/browser/final-page
 * Reading the page a browser scrape ends on, once its waits and actions are done (before the format's screenshot,
 * whose scroll must change nothing read here): where it went must have passed the gate, Chromium's own error page is a failure (unless it stands for the site's empty HTTP error),
 * and the body is the rendered DOM, a text response's text, or a document's bytes (a PDF or image an action led
 * to, for the document pipeline), within what is left of the scrape's size limit.
 */
import type { HTTPResponse, Page as PuppeteerPage } from "puppeteer-core";
import type { EgressGate } from "../../egress/index.ts";
import { SiteError } from "../../errors.ts";
import { mimeTypeOf } from "../charset.ts";
import { RESPONSE_TOO_LARGE_CODE } from "../http/body.ts";
import { readDocumentBody } from "./document-body.ts";
import { egressRefusal, navigationError, RENDERED_TYPES, TEXT_TYPES } from "./navigation.ts";
import { readAcrossNavigation, readBodyText, readDocumentHtml, type ReadyState } from "./page-reads.ts";

/** What {@link readFinalPage} needs of the scrape. */
export interface FinalPageContext {
  requestedUrl: string;
  /** The main frame's last failed navigation, as the request listener saw it. */
  failedNavigation: { url: string; error: string } | undefined;
  /** `performance.now()` time by which the scrape must end. */
  deadline: number;
  timeoutMs: number;
  /** The scrape's size limit, and what its actions left of it. */
  maxBodyBytes: number;
  leftBytes: number;
  gate: Pick<EgressGate, "check">;
}

/** The final page's body: `text` for markup and text, `body` always (the text's UTF-8 or a document's bytes). */
export interface FinalPage {
  text: string | undefined;
  body: Uint8Array;
  contentType: string;
  /** Chromium's error page standing for the site's HTTP error with an empty body (reported as the site's answer). */
  emptyHttpError: boolean;
  /**
   * For a rendered page (HTML), the document's `readyState` as its markup was made: "loading" when the parser had
   * not reached its end (a script or stylesheet it waits for never arrived), so `text` may lack part of the document.
   */
  readyState?: ReadyState;
}

/** Reads the page `page` ended on (`finalResponse`: its main document's last response); throws what a scrape would. */
export async function readFinalPage(page: PuppeteerPage, finalResponse: HTTPResponse, c: FinalPageContext): Promise<FinalPage> {
  // Where the page went after loading (a meta refresh, a script, an action) must pass the gate as its first address
  // did: a refused or failed navigation is this scrape's error, not a success holding the refusal or error page.
  const refusedLater = egressRefusal(finalResponse);
  if (refusedLater) throw refusedLater;
  // Chromium shows its own error page both for a navigation that failed and for an HTTP error with an empty body
  // (ERR_HTTP_RESPONSE_CODE_FAILURE); the latter is the site's answer, as the HTTP engine would report it.
  const errorPage = page.url().startsWith("chrome-error:");
  const failedNavigation = c.failedNavigation;
  const emptyHttpError = errorPage && finalResponse.status() >= 400 && (!failedNavigation || failedNavigation.error.includes("ERR_HTTP_RESPONSE_CODE_FAILURE"));
  if (errorPage && !emptyHttpError) {
    const failed = failedNavigation ?? { url: c.requestedUrl, error: "the page navigated to an address the browser could not load" };
    throw await navigationError(new Error(failed.error), failed.url, c.timeoutMs, c.gate);
  }
  const finalType = mimeTypeOf(finalResponse.headers()["content-type"]);
  let text: string | undefined;
  let body: Uint8Array | undefined;
  let contentType: string;
  let readyState: ReadyState | undefined;
  if (emptyHttpError) {
    text = "";
    contentType = "text/html";
  } else if (RENDERED_TYPES.has(finalType)) {
    // Made and measured in crawlbox's isolated world (page-reads.ts): past what is left of the limit, only its length
    // crosses (a UTF-8 byte per character at least, so it would be refused below anyway).
    const read = await readAcrossNavigation(page, () => readDocumentHtml(page, c.leftBytes), c.deadline);
    if (read.html === undefined) throw renderedTooLarge(c);
    text = read.html;
    readyState = read.readyState;
    contentType = "text/html";
  } else if (TEXT_TYPES.test(finalType)) {
    // An async arrow: `.catch(() => page.evaluate(…))` throws inside puppeteer under Bun ("site.toString").
    // Cut in the isolated world one character past the limit, so that an oversized text is still refused below.
    text = await finalResponse.text().catch(async () => await readAcrossNavigation(page, () => readBodyText(page, c.leftBytes), c.deadline));
    contentType = finalType;
  } else {
    // A document (PDF, image) an action led to: its bytes as served, for the document pipeline (document-body.ts).
    body = await readDocumentBody(page, finalResponse, finalType, c.leftBytes);
    contentType = finalType;
  }
  body ??= new TextEncoder().encode(text ?? "");
  if (body.byteLength > c.leftBytes) throw renderedTooLarge(c);
  return { text, body, contentType, emptyHttpError, ...(readyState ? { readyState } : {}) };
}

/** The error of a final page larger than what is left of the scrape's size limit. */
function renderedTooLarge(c: FinalPageContext): SiteError {
  const shared = c.leftBytes < c.maxBodyBytes ? ` (with what its actions produced, ${c.maxBodyBytes - c.leftBytes} bytes)` : "";
  return new SiteError(RESPONSE_TOO_LARGE_CODE, `The rendered page is larger than ${c.maxBodyBytes} bytes${shared}.`, { retryable: false });
}
