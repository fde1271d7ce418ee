/**
 * @module engines/browser/document-wait
 * The scrape's navigation: `goto` until `DOMContentLoaded`, but once the main document has arrived whole, for a share
 * of the time left only ({@link PARSE_WAIT_SHARE}), as `load` is waited for (wait.ts).
 *
 * Why: a parser-blocking `<script src>` in `<head>` that never answers (or a stylesheet a later script waits for)
 * holds `DOMContentLoaded` back for ever, and a screenshot or branding scrape of such a page, or a JavaScript-shell
 * page sent to the browser, was a `408 SCRAPE_TIMEOUT` with nothing, although the document itself had arrived. Now
 * the scrape goes on with the page as far as Chromium parsed it, and says so.
 *
 * A document still arriving (a body that never ends) is not cut: the navigation keeps the whole deadline, as before,
 * since its end is what is missing; nor is one behind a redirect before it starts (the hop finishing is not the
 * document arriving).
 */
import type { HTTPRequest, HTTPResponse, Page } from "puppeteer-core";

/**
 * Share of the time left once the main document has arrived that `DOMContentLoaded` may take. The rest is for the
 * page as parsed so far: its DOM, screenshot and branding (and `waitFor` and actions).
 */
export const PARSE_WAIT_SHARE = 0.5;

/** What {@link gotoParsed} gives. */
export type NavigationOutcome =
  /** `DOMContentLoaded` came (`response`: puppeteer's answer to `goto`, null for a same-document one). */
  | { kind: "parsed"; response: HTTPResponse | null }
  /** `goto` failed (timeout, network error, a download, …). */
  | { kind: "failed"; error: unknown }
  /** The document arrived whole, but `DOMContentLoaded` did not come within `waitedMs` after it. */
  | { kind: "cut"; waitedMs: number };

/**
 * Navigates `page` to `url` and waits for `DOMContentLoaded`, until `deadline` (a `performance.now()` time), or, once
 * the main frame's document has arrived whole, for {@link PARSE_WAIT_SHARE} of the time then left.
 *
 * A cut navigation is left to finish in the background (its promise's outcome is dropped): the page is read as it
 * is, and a later navigation of the page (the next scrape's, or the wipe's about:blank) ends it.
 */
export async function gotoParsed(page: Page, url: string, deadline: number): Promise<NavigationOutcome> {
  const navigation = page
    .goto(url, { waitUntil: "domcontentloaded", timeout: Math.max(1, deadline - performance.now()) })
    .then((response): NavigationOutcome => ({ kind: "parsed", response }), (error: unknown): NavigationOutcome => ({ kind: "failed", error }));
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onFinished: ((r: HTTPRequest) => void) | undefined;
  const cut = new Promise<NavigationOutcome>((resolve) => {
    onFinished = (r: HTTPRequest) => {
      if (timer !== undefined || !r.isNavigationRequest() || r.frame() !== page.mainFrame()) return;
      // A redirect's hop finishes too: the document it leads to has not even started arriving.
      const status = r.response()?.status();
      if (status === undefined || (status >= 300 && status < 400)) return;
      const waitedMs = Math.max(0, (deadline - performance.now()) * PARSE_WAIT_SHARE);
      timer = setTimeout(() => resolve({ kind: "cut", waitedMs }), waitedMs);
    };
    page.on("requestfinished", onFinished);
  });
  try {
    return await Promise.race([navigation, cut]);
  } finally {
    clearTimeout(timer);
    if (onFinished) page.off("requestfinished", onFinished);
  }
}
