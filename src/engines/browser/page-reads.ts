/**
 * @module engines/browser/page-reads
 * Reading a page that may be navigating. A page that goes somewhere else on its own (a script's `location.href`, a
 * meta refresh, a form an action submitted) destroys the JavaScript context a read was running in, and puppeteer
 * then throws "Execution context was destroyed" (or CDP "Cannot find context with specified id"). That is the page
 * moving on, not the browser failing: the read is made again on the new document once it is parsed
 * (`DOMContentLoaded`), as long as the scrape's deadline allows. interact/isolated-world.ts retries its own reads
 * the same way, once, with {@link isContextLost}'s test.
 *
 * Only reads go through {@link readAcrossNavigation} (the DOM, its size, a screenshot, a query): a client's script
 * is never run twice.
 */
import type { Page } from "puppeteer-core";

/** Messages of a read whose JavaScript context went away with its document. */
export const CONTEXT_LOST = /Execution context was destroyed|Cannot find context|context with specified id/i;

/** How often the new document's `readyState` is looked at while it is being parsed. */
export const DOCUMENT_POLL_MS = 25;

/** Whether `err` is a read that failed because the page navigated under it. */
export function isContextLost(err: unknown): boolean {
  return CONTEXT_LOST.test(err instanceof Error ? err.message : String(err));
}

/**
 * Runs `read`; when the page navigated under it, waits for the new document to be parsed and runs it again, until
 * `deadline` (a `performance.now()` time). The last context error is thrown when the page never settles in time
 * (a page that reloads itself without end); any other error at once.
 */
export async function readAcrossNavigation<T>(page: Page, read: () => Promise<T>, deadline: number): Promise<T> {
  for (;;) {
    try {
      return await read();
    } catch (err) {
      if (!isContextLost(err) || performance.now() >= deadline) throw err;
      await waitForParsedDocument(page, deadline);
    }
  }
}

/**
 * Waits until the page's current document is parsed (`readyState` past `loading`, i.e. `DOMContentLoaded`), or
 * `deadline`. A context lost while asking (yet another navigation) is asked again; other errors are left to the read.
 */
export async function waitForParsedDocument(page: Page, deadline: number): Promise<void> {
  while (performance.now() < deadline) {
    const state = await page.evaluate(() => document.readyState).catch((err: unknown) => (isContextLost(err) ? "gone" : "unknown"));
    if (state === "interactive" || state === "complete" || state === "unknown") return;
    await Bun.sleep(Math.min(DOCUMENT_POLL_MS, Math.max(0, deadline - performance.now())));
  }
}
