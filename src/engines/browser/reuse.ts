/**
 * @module engines/browser/reuse
 * Reusing one incognito context and its page for the next scrape of the same API key, after a wipe.
 *
 * Why: on a 2-core machine a fresh context per scrape costs ~2× the CPU of the scrape itself (creating the
 * context and its page, a new renderer process, tearing them down: ~130 ms of browser-process CPU per page,
 * measured in scripts/bench/browser.ts). A wiped page costs ~40 ms.
 *
 * What keeps isolation sound:
 * - Between API keys: a context is only ever reused for its first scrape's key (the pool's `tenant`); different
 *   keys never share a context, so they share nothing (cookies, storage, HTTP cache, HSTS, HTTP auth cache and
 *   sockets all live in the context), exactly as with a fresh context per scrape.
 * - Between scrapes of one key: {@link wipeForReuse} removes everything a page can observe: cookies (the whole
 *   context), localStorage, IndexedDB, Cache Storage, service workers, file systems (per origin), sessionStorage,
 *   the HTTP cache, permission overrides, the tab's history and `window.name`. Only an origin that ran a document or worker can hold
 *   storage, so {@link SlotTracker} records the origin of every document committed in any frame (out-of-process
 *   iframes included) and each is wiped. A page is reused only if no other target (popup, service or shared
 *   worker, whose documents and lifetimes the tracker does not see) appeared, no iframe of another origin was
 *   loaded (its storage is partitioned under the top-level site, out of reach of a per-origin clear), the renderer
 *   did not crash and at most {@link MAX_WIPED_ORIGINS} origins are involved (redirects, navigations by actions). Anything else, a failed or slow
 *   (> {@link WIPE_TIMEOUT_MS}) wipe included, closes the context, as before.
 * - Page scripts cannot interfere: the page leaves for about:blank before anything is cleared (no document of the
 *   scrape is left to write state back), and every step is a DevTools command, not page JavaScript.
 * - Not wiped, and so shared between scrapes of the same key only: the network context's HSTS list, HTTP auth
 *   cache (credentials embedded in a URL), TLS sessions and idle sockets. A context serves at most
 *   {@link REUSE_MAX_SCRAPES} scrapes.
 */
import type { BrowserContext, CDPSession, Page, Target } from "puppeteer-core";

/** Scrapes one context serves before it is closed anyway (bounds memory growth and any state we do not wipe). */
export const REUSE_MAX_SCRAPES = 50;
/** More origins than this to wipe: closing the context is cheaper. */
export const MAX_WIPED_ORIGINS = 8;
/** Longest a wipe may take; a slower one closes the context instead. */
export const WIPE_TIMEOUT_MS = 2_000;

/** The origin of `url`, `undefined` for opaque origins (about:, data:, error pages), `"?"` when unparsable. */
export function originOf(url: string): string | undefined {
  if (url === "" || url.startsWith("about:")) return undefined;
  try {
    const o = new URL(url).origin;
    return o === "null" ? undefined : o;
  } catch {
    return "?";
  }
}

/** What happened in a context since its last wipe. */
export class SlotTracker {
  /** Origins of documents committed in any frame. */
  readonly origins = new Set<string>();
  /** Targets other than the page and its iframes (popups, service and shared workers). */
  otherTargets = 0;
  /** Iframe documents of an origin other than the top-level page's. */
  foreignFrames = 0;
  crashed = false;
  private readonly pageTarget: Target;

  constructor(context: BrowserContext, page: Page) {
    this.pageTarget = page.target();
    page.on("framenavigated", (frame) => {
      const o = originOf(frame.url());
      if (!o) return;
      this.origins.add(o);
      // An iframe of another origin keeps its storage under a partitioned key (top-level site + origin) that
      // Storage.clearDataForOrigin does not reach.
      if (frame !== page.mainFrame() && o !== originOf(page.mainFrame().url())) this.foreignFrames++;
    });
    page.on("error", () => {
      this.crashed = true;
    });
    context.on("targetcreated", (t: Target) => {
      // Out-of-process iframes are tracked through `framenavigated`; dedicated workers share their creator's origin.
      if (t === this.pageTarget || t.type() === "other" || t.type() === "webview") return;
      if (t.type() === "page" || t.type() === "service_worker" || t.type() === "shared_worker" || t.type() === "background_page") {
        this.otherTargets++;
      }
    });
  }

  /** Forgets what the wipe removed. */
  reset(): void {
    this.origins.clear();
    this.otherTargets = 0;
    this.foreignFrames = 0;
  }
}

/** A context and its one page, as the pool keeps them. */
export interface Reusable {
  context: BrowserContext;
  page: Page;
  session: CDPSession;
  tracker: SlotTracker;
}

/** Why a page cannot be wiped for reuse (undefined: it can). */
export function reuseBlocker(tracker: SlotTracker, page: Page): string | undefined {
  if (tracker.crashed) return "the renderer crashed";
  if (tracker.otherTargets > 0) return "a popup or worker target appeared";
  if (tracker.foreignFrames > 0) return "an iframe of another origin was loaded (its storage is partitioned)";
  if (page.isClosed()) return "the page is closed";
  if (tracker.origins.has("?")) return "a document had an unparsable URL";
  if (tracker.origins.size > MAX_WIPED_ORIGINS) return `documents of ${tracker.origins.size} origins were loaded`;
  return undefined;
}

/**
 * Wipes a page and its context for the next scrape of the same key. Resolves true when the page is clean;
 * false (never throws) when it must be closed instead.
 */
export async function wipeForReuse(slot: Reusable): Promise<boolean> {
  if (reuseBlocker(slot.tracker, slot.page)) return false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), WIPE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([wipe(slot), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

async function wipe({ context, page, session, tracker }: Reusable): Promise<boolean> {
  // Leaving the page ends every document of the tab, its iframes and dedicated workers: from here on no page
  // script runs that could write state back (service and shared workers would, so they block reuse).
  await page.goto("about:blank", { waitUntil: "load", timeout: WIPE_TIMEOUT_MS });
  if (reuseBlocker(tracker, page)) return false;
  await Promise.all([
    // Every cookie of the context, whichever site set it (third-party responses included).
    session.send("Network.clearBrowserCookies"),
    // localStorage, sessionStorage (Chromium 156 clears the origin's session storage with local_storage),
    // IndexedDB, Cache Storage, service worker registrations, file systems, storage buckets.
    ...[...tracker.origins].map((origin) => session.send("Storage.clearDataForOrigin", { origin, storageTypes: "all" })),
    session.send("Network.clearBrowserCache"),
    session.send("Page.resetNavigationHistory"),
    // Permission overrides (crawlbox grants none today; prompts are never answered, so nothing else changes them).
    context.clearPermissionOverrides(),
    // window.name survives navigations within the tab.
    session.send("Runtime.evaluate", { expression: 'window.name = ""' }),
  ]);
  if (reuseBlocker(tracker, page)) return false;
  tracker.reset();
  return true;
}
