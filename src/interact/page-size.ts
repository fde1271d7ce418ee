/**
 * @module interact/page-size
 * Holds a browser session's page to the page limit (`CRAWLBOX_MAX_PAGE_BYTES`) as the browser engine holds a
 * scrape's (engines/browser/document-size.ts): without it a session could load a main document of any size (a 5 MiB
 * page, or a gzip page that decodes to gigabytes) by opening it, going back to it, or clicking a link to it, where the
 * same URL scraped is refused with `SCRAPE_RESPONSE_TOO_LARGE`.
 *
 * One {@link DocumentSizeGuard} follows the session's page on its lease's CDP session from the session's opening to
 * its end ({@link guardSessionPage}). Each command that may load a document (an `open`, `back`, a click, a `goto`, a
 * prompt's step, the opening itself) runs through {@link sizeChecked}, which re-arms the guard and fails the command
 * with the limit's error as soon as a main document passes it (Chromium stops the load at once). A document the page
 * loads between commands (a live-view click, a timer) is stopped the same way; nobody's command fails for it.
 */
import type { CDPSession, Page } from "puppeteer-core";
import { DocumentSizeGuard } from "../engines/browser/document-size.ts";
import { RESPONSE_TOO_LARGE_CODE } from "../engines/http/body.ts";
import { CrawlboxError } from "../errors.ts";
import { raceAbort } from "../scheduler/abortable.ts";
import { PageOpError } from "./page-ops.ts";

/**
 * Longest wait, after a command's load, for the main document it was downloading to be counted to its end (the
 * guard's events and the page's come on different CDP sessions); it is milliseconds on an idle machine.
 */
const SETTLE_WAIT_MS = 1_000;

/** The guard of each session page (pages go back to the pool: the entry goes with the session). */
const guards = new WeakMap<Page, DocumentSizeGuard>();

/**
 * A command's main document passed the page limit: code sees it as any failed operation (`✗ …` in bash, an Error in
 * JavaScript and Python), with the scrapes' stable code in its message and on {@link code}.
 */
export class PageTooLargeError extends PageOpError {
  /** The HTTP engine's and the scrapes' code for the same limit. */
  readonly code = RESPONSE_TOO_LARGE_CODE;
}

/**
 * Starts holding `page` (a session's, followed through `session`, its lease's CDP session) to `maxBytes` decoded
 * bytes per main document; returns what ends it, to call when the session ends (the page then goes back to the pool).
 */
export async function guardSessionPage(page: Page, session: CDPSession, maxBytes: number): Promise<() => void> {
  const guard = new DocumentSizeGuard(session, maxBytes);
  const dispose = () => {
    if (guards.get(page) === guard) guards.delete(page);
    guard.dispose();
  };
  guards.set(page, guard);
  try {
    await guard.start();
  } catch (err) {
    dispose();
    throw err;
  }
  return dispose;
}

/**
 * Runs `load` (a navigation, or an action that may start one) on a session page. A main document past the limit
 * meanwhile (or by the time it answers) fails it with the limit's {@link CrawlboxError} (`SCRAPE_RESPONSE_TOO_LARGE`),
 * as soon as it happens: what `load` does after is left to finish on its own (its load was stopped). A page without a
 * guard (not a session's) runs `load` as it is.
 */
export async function sizeChecked<T>(page: Page, load: () => Promise<T>): Promise<T> {
  const guard = guards.get(page);
  if (!guard) return load();
  const mark = guard.rearm();
  const tooLarge = guard.signal;
  try {
    const out = await raceAbort(load(), tooLarge);
    // Its document's last bytes may be counted just after the page says it loaded: they are waited for (briefly).
    await guard.settled(SETTLE_WAIT_MS, mark);
    if (tooLarge.aborted) throw tooLarge.reason;
    return out;
  } catch (err) {
    // A stopped load may fail in its own words (net::ERR_ABORTED) before or after the guard says why.
    if (tooLarge.aborted) throw tooLarge.reason;
    throw err;
  }
}

/** {@link sizeChecked} for code's commands: the limit's error is a {@link PageTooLargeError}, in crawlbox's words. */
export async function sizeCheckedOp<T>(page: Page, load: () => Promise<T>): Promise<T> {
  try {
    return await sizeChecked(page, load);
  } catch (err) {
    if (err instanceof CrawlboxError && err.code === RESPONSE_TOO_LARGE_CODE) throw new PageTooLargeError(`${err.message} The load was stopped (${RESPONSE_TOO_LARGE_CODE}).`);
    throw err;
  }
}

/** Whether `err` is the page limit's error, in either form. */
export function isPageTooLarge(err: unknown): boolean {
  return err instanceof PageTooLargeError || (err instanceof CrawlboxError && err.code === RESPONSE_TOO_LARGE_CODE);
}
