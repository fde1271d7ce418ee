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
 *
 * crawlbox's own reads run in puppeteer's isolated world of the main frame ({@link isolatedRealm}), never in the
 * page's main world: there a page can redefine what a read returns (`Object.defineProperty(document, "readyState",
 * {get: () => hugeString})`, an `outerHTML` getter, `String.prototype.slice`), and the answer crosses the DevTools
 * connection whole (one 250 MB `readyState` made the server grow by 3.7 GB). The isolated world shares the page's DOM,
 * not its JavaScript, so its getters are Chromium's own; each read is also bounded there before it crosses (a known
 * short value, a number, or a string cut to the caller's limit).
 */
import type { Page, Realm } from "puppeteer-core";

/** Messages of a read whose JavaScript context went away with its document. */
export const CONTEXT_LOST = /Execution context was destroyed|Cannot find context|context with specified id/i;

/** How often the new document's `readyState` is looked at while it is being parsed. */
export const DOCUMENT_POLL_MS = 25;

/** What {@link readyStateOf} gives: the document's `readyState`, or "unknown" for anything else. */
export type ReadyState = "loading" | "interactive" | "complete" | "unknown";

/**
 * The isolated world of `page`'s main frame (puppeteer's utility world, made for every document): the page cannot
 * reach it or change what runs there. `Frame.isolatedRealm` is puppeteer's own (internal, pinned version); a
 * puppeteer without it fails loudly here rather than reading in the page's world.
 */
export function isolatedRealm(page: Page): Realm {
  const frame = page.mainFrame() as unknown as { isolatedRealm?: () => Realm };
  if (typeof frame.isolatedRealm !== "function") throw new Error("page-reads: puppeteer's Frame.isolatedRealm is gone; update engines/browser/page-reads.ts");
  return frame.isolatedRealm();
}

/** The document's `readyState`, read in the isolated world: one of its three values or "unknown", nothing longer. */
export async function readyStateOf(page: Page): Promise<ReadyState> {
  return (await isolatedRealm(page).evaluate(() => {
    const s = document.readyState;
    return s === "loading" || s === "interactive" || s === "complete" ? s : "unknown";
  })) as ReadyState;
}

/**
 * The page's markup read by {@link readDocumentHtml}: `html` undefined when it has more than the limit's characters;
 * with the markup, `readyState`, the document's as the markup was made (still "loading": the parser had not reached
 * its end, so the markup may lack what the document holds past where it stopped).
 */
export type DocumentHtml = { html: string; chars: number; readyState: ReadyState } | { html: undefined; chars: number };

/**
 * The page's markup as `page.content()` gives it (the doctype and comments around `<html>`, then its `outerHTML`), made
 * in the isolated world and measured there: longer than `maxChars` characters, only its length crosses. puppeteer's
 * `content()` runs in the page's world, where the page can make `outerHTML` (or `XMLSerializer`) return anything.
 */
export async function readDocumentHtml(page: Page, maxChars: number): Promise<DocumentHtml> {
  const got = await isolatedRealm(page).evaluate((max: number) => {
    const s = document.readyState;
    const readyState = s === "loading" || s === "interactive" || s === "complete" ? s : "unknown";
    let content = "";
    for (const node of Array.from(document.childNodes)) {
      content += node === document.documentElement ? document.documentElement.outerHTML : new XMLSerializer().serializeToString(node);
    }
    return content.length > max ? { html: null, chars: content.length } : { html: content, chars: content.length, readyState };
  }, Math.max(0, Math.floor(maxChars)));
  return got.html === null ? { html: undefined, chars: got.chars } : { html: got.html, chars: got.chars, readyState: got.readyState as ReadyState };
}

/**
 * The text of the page's body (`innerText`), read in the isolated world and cut there at `maxChars` + 1 characters
 * (one more than the limit, so that a caller holding it to `maxChars` still sees that it was longer).
 */
export async function readBodyText(page: Page, maxChars: number): Promise<string> {
  return await isolatedRealm(page).evaluate((max: number) => {
    const text = document.body?.innerText ?? "";
    return text.length > max ? text.slice(0, max + 1) : text;
  }, Math.max(0, Math.floor(maxChars)));
}

/** `read`'s value, or `fallback` when `deadline` (a `performance.now()` time) comes first. */
export async function untilDeadline<T, F>(read: Promise<T>, deadline: number, fallback: F): Promise<T | F> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<F>((done) => {
    timer = setTimeout(() => done(fallback), Math.max(0, deadline - performance.now()));
  });
  try {
    return await Promise.race([read, late]);
  } finally {
    clearTimeout(timer);
  }
}

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
    // Raced with the time left: a document whose isolated world is never made (or whose thread is stuck) never answers.
    const state = await untilDeadline(
      readyStateOf(page).catch((err: unknown) => (isContextLost(err) ? "gone" : "unknown")),
      deadline,
      "unknown",
    );
    if (state === "interactive" || state === "complete" || state === "unknown") return;
    await Bun.sleep(Math.min(DOCUMENT_POLL_MS, Math.max(0, deadline - performance.now())));
  }
}
