/**
 * @module engines/browser/page-crash
 * A leased page whose renderer dies (killed over the memory limit by renderer-memory.ts, killed from outside, or a
 * crash of Chromium's own) never answers again: before this, a scrape on it waited for its whole timeout (up to
 * 300 s) and a sandbox run for its own. A lease carries a signal that aborts the moment its page crashes, with a
 * {@link PageCrashedError} that says why when crawlbox knows, so that every user of a page stops at once.
 */
import type { Page } from "puppeteer-core";
import { SiteError } from "../../errors.ts";
import type { MemoryKill } from "./renderer-memory.ts";

/** The page's renderer process died: the page can do nothing more. */
export class PageCrashedError extends SiteError {
  constructor(
    message: string,
    /** Set when the renderer was stopped for using more memory than allowed. */
    readonly memory?: { usedMb: number; limitMb: number },
  ) {
    // A page that used too much memory will do it again: not worth retrying. Another crash may be chance.
    super("SCRAPE_SITE_ERROR", message, { retryable: memory === undefined, ...(memory ? { details: { memory } } : {}) });
  }
}

/** The error for a crash, given the guard's most recent kill (if any) and its limit. */
export function crashError(kill: MemoryKill | undefined, limitBytes: number): PageCrashedError {
  if (!kill) return new PageCrashedError("The page crashed: the browser's renderer process for it died.");
  const memory = { usedMb: Math.round(kill.bytes / 2 ** 20), limitMb: Math.round(limitBytes / 2 ** 20) };
  return new PageCrashedError(
    `The page used ${memory.usedMb} MB of memory, more than the ${memory.limitMb} MB a browser page may use (CRAWLBOX_BROWSER_PAGE_MEMORY_MB), and was stopped.`,
    memory,
  );
}

/** A signal that aborts, with `explain()`'s error, when `page` crashes; `dispose` stops watching. */
export function watchCrash(page: Page, explain: () => PageCrashedError): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onError = () => {
    if (!controller.signal.aborted) controller.abort(explain());
  };
  // puppeteer's Page emits `error` for the target's `Inspector.targetCrashed`, and for nothing else.
  page.on("error", onError);
  return { signal: controller.signal, dispose: () => page.off("error", onError) };
}

/**
 * How long a page whose renderer may just have been killed is given for Chromium to say it crashed (its event follows
 * the kill within milliseconds on an idle machine): a kill of another page's renderer costs a caller this much.
 */
export const CRASH_NOTICE_MS = 1_000;
