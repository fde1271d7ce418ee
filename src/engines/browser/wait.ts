/**
 * @module engines/browser/wait
 * "Smart wait": after `load`, wait until the network and the DOM have both been quiet for a short while,
 * with a cap, so client-rendered content is in the DOM without paying a fixed delay on static pages.
 *
 * `load` itself is waited for apart from the navigation ({@link waitForLoadEvent}), for a share of the time left
 * ({@link LOAD_WAIT_SHARE}): one subresource that never arrives (an image, an iframe) must not turn a page whose
 * document is all there into a timeout with nothing. `DOMContentLoaded` is bounded the same way once the document
 * has arrived (document-wait.ts).
 *
 * - Network: requests in flight are counted from the page's own events (failed and blocked requests end too).
 * - DOM: a MutationObserver installed before any page script records the last mutation time.
 * Long polls, WebSockets and endless animations never go quiet: the cap bounds them.
 */
import type { HTTPRequest, Page } from "puppeteer-core";
import { readyStateOf, untilDeadline } from "./page-reads.ts";

/** How long both must be quiet. */
export const QUIET_MS = 50;
/** Longest smart wait after `load` (within the scrape's deadline). */
export const SMART_WAIT_CAP_MS = 4_000;
const POLL_MS = 10;
/**
 * Share of the scrape's time left after `DOMContentLoaded` that the `load` event may take. The rest is for the smart
 * wait, `waitFor` (at most half the timeout, api/refine.ts), actions and screenshots.
 */
export const LOAD_WAIT_SHARE = 0.5;
/** How often `document.readyState` is read while waiting for `load`. */
export const LOAD_POLL_MS = 50;

/** Property (on `window`) holding the last mutation's `performance.now()`; an unlikely name on purpose. */
const MUTATION_KEY = "__crawlboxLastMutation";

/** The observer script, registered to run before any page script (`Page.addScriptToEvaluateOnNewDocument`). */
export const MUTATION_TRACKER_SOURCE = `(() => {
  const k = ${JSON.stringify(MUTATION_KEY)};
  Object.defineProperty(window, k, { value: performance.now(), writable: true, enumerable: false, configurable: true });
  const start = () => new MutationObserver(() => { window[k] = performance.now(); })
    .observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  if (document.documentElement) start(); else document.addEventListener("readystatechange", start, { once: true });
})();`;

/** Counts a page's requests in flight. */
export class NetworkTracker {
  private inflight = new Set<HTTPRequest>();
  private lastActivity = performance.now();

  private readonly started = (r: HTTPRequest) => {
    this.inflight.add(r);
    this.lastActivity = performance.now();
  };
  private readonly done = (r: HTTPRequest) => {
    this.inflight.delete(r);
    this.lastActivity = performance.now();
  };

  constructor(private readonly page: Page) {
    page.on("request", this.started);
    page.on("requestfinished", this.done);
    page.on("requestfailed", this.done);
    page.on("requestservedfromcache", this.done);
  }

  /** Stops listening (a reused page outlives its scrape's tracker). */
  dispose(): void {
    this.page.off("request", this.started);
    this.page.off("requestfinished", this.done);
    this.page.off("requestfailed", this.done);
    this.page.off("requestservedfromcache", this.done);
  }

  /** Milliseconds since the network was last busy; 0 while requests are in flight. */
  quietFor(): number {
    // Data URLs and long-lived streams are not worth waiting for.
    for (const r of this.inflight) {
      const url = r.url();
      if (url.startsWith("data:") || r.resourceType() === "websocket" || r.resourceType() === "eventsource") this.inflight.delete(r);
    }
    return this.inflight.size > 0 ? 0 : performance.now() - this.lastActivity;
  }
}

/** Waits for network and DOM quiet, at most `capMs`. Never throws (a navigation mid-wait just ends it). */
export async function waitForQuiet(page: Page, network: NetworkTracker, capMs: number, quietMs = QUIET_MS): Promise<void> {
  const until = performance.now() + Math.max(0, capMs);
  while (performance.now() < until) {
    if (network.quietFor() >= quietMs) {
      // The mark lives in the page's world (the observer runs there), where the page can redefine it: only a number
      // crosses, and anything else counts as a mutation just now (the cap still bounds the wait).
      const read = await page
        .evaluate((k: string) => {
          try {
            const at: unknown = (window as unknown as Record<string, unknown>)[k];
            const now: unknown = performance.now();
            return typeof at === "number" && typeof now === "number" ? now - at : 0;
          } catch {
            return 0;
          }
        }, MUTATION_KEY)
        .catch(() => quietMs);
      const domQuiet = typeof read === "number" && Number.isFinite(read) ? read : 0;
      if (domQuiet >= quietMs) return;
      await Bun.sleep(Math.min(quietMs - domQuiet + 1, Math.max(0, until - performance.now())));
      continue;
    }
    await Bun.sleep(POLL_MS);
  }
}

/**
 * Waits until the page's document has loaded (`readyState` "complete": the `load` event fired), at most
 * `timeoutMs`. Returns whether it did. Never throws: a read the page's navigation interrupted is made again.
 * `readyState` is read in crawlbox's isolated world (page-reads.ts), where the page cannot redefine it.
 */
export async function waitForLoadEvent(page: Page, timeoutMs: number): Promise<boolean> {
  const until = performance.now() + Math.max(0, timeoutMs);
  for (;;) {
    // Raced with the time left: a page whose main thread is stuck never answers.
    const state = await untilDeadline(readyStateOf(page).catch(() => "unknown"), until, "unknown");
    if (state === "complete") return true;
    const left = until - performance.now();
    if (left <= 0) return false;
    await Bun.sleep(Math.min(LOAD_POLL_MS, left));
  }
}
