/**
 * @module engines/browser/engine
 * The browser engine: one scrape in an incognito context of the pooled Chromium, fresh or, for the same API key,
 * wiped after an earlier scrape (reuse.ts).
 *
 * ```
 * lease ─▶ emulate device/place (+stealth) ─▶ request control ─▶ profile in ─▶ document size guard
 *       ─▶ goto (DOMContentLoaded; a share of the time left once the document is in, document-wait.ts)
 *       ─▶ load (a share of the time left) ─▶ smart wait ─▶ waitFor ─▶ actions
 *       ─▶ screenshot (if the page renders) ─▶ DOM ─▶ fetched bytes (rawBase64; and the HTML as received for a
 *          page whose parser never reached its body, received-html.ts) ─▶ profile out ─▶ release
 * ```
 *
 * The result is a {@link Page} like the HTTP engine's (status and headers of the last main-frame response), whose
 * text is the rendered DOM, plus {@link PageArtifacts} for screenshots and action results. A main response that
 * is a PDF (or another binary document) is not rendered: {@link DocumentResponseError} tells the router to hand
 * the URL to the document pipeline.
 *
 * The steps of a scrape on its page are in scrape.ts; this file leases the page and bounds the scrape (deadline,
 * abort, page crash, document size) and maps what goes wrong to errors.
 */
import type { CDPSession, Page as PuppeteerPage } from "puppeteer-core";
import type { Action } from "../../api/actions.ts";
import type { EgressGate } from "../../egress/index.ts";
import { CrawlboxError, ScrapeTimeoutError, SiteError } from "../../errors.ts";
import type { ProfileStore } from "../../storage/profiles.ts";
import type { Page, PageArtifacts } from "../types.ts";
import { firstLine } from "./navigation.ts";
import type { BrowserPool } from "./pool.ts";
import { DocumentSizeGuard } from "./document-size.ts";
import { chromeMajorOf } from "./emulation.ts";
import { isContextLost } from "./page-reads.ts";
import { runScrape, type ScrapeScope } from "./scrape.ts";
import { defaultSetup, PageSetup } from "./setup.ts";

export { DocumentResponseError } from "./navigation.ts";

/** What the router asks the browser for. */
export interface BrowserRequest {
  url: string;
  /** Client headers (`headers` option); Cookie and User-Agent are applied the browser's way. */
  headers: Record<string, string>;
  skipTlsVerification: boolean;
  /** Budget for this browser attempt (the router passes what is left of the scrape's timeout). */
  timeoutMs: number;
  maxBodyBytes: number;
  mobile: boolean;
  location?: { country: string; languages: string[] };
  waitForMs: number;
  blockAds: boolean;
  /** The `screenshot` format's options, when requested. */
  screenshot?: { fullPage?: boolean; quality?: number; viewport?: { width: number; height: number } };
  actions: readonly Action[];
  /** `proxy: "enhanced"`: stealth measures (and the enhanced upstream proxy when configured). */
  stealth: boolean;
  /**
   * A configured upstream proxy URL for this scrape (router's choice). The context's proxy is then the gate
   * listener chaining to it (`gate.proxyUrlFor`), never the upstream itself: every request is still checked.
   */
  upstreamProxy?: string;
  /** Profile to start from and (unless `saveChanges` is false) to save into. */
  profile?: { keyId: string; name: string; saveChanges: boolean };
  /** The `branding` format is requested: collect its snapshot (`artifacts.branding`). */
  branding?: boolean;
  /**
   * The `rawBase64` format is requested: keep the main document's bytes as fetched (`artifacts.rawBase64`,
   * raw-bytes.ts), since the page's body is the rendered DOM.
   */
  rawBytes?: boolean;
  /**
   * The router's fallback for a page the HTTP engine already fetched and that seemed to need JavaScript: the router
   * holds that page and answers with it when the browser's comes back cut short (router.ts), so the browser does not
   * rebuild a cut-short page from the HTML it received (received-html.ts), as it does when only it can serve.
   */
  fallback?: boolean;
  /**
   * The API key the scrape is for (its id; undefined: an anonymous caller such as the CLI). A browser context is
   * only reused for scrapes of the same key, after a wipe (reuse.ts).
   */
  tenant?: string;
}
/** Options of {@link createBrowserEngine}. */
export interface BrowserEngineOptions {
  pool: BrowserPool;
  /** `proxyUrlFor` is needed only for requests with `upstreamProxy`. */
  gate: Pick<EgressGate, "check"> & Partial<Pick<EgressGate, "proxyUrlFor">>;
  profiles?: ProfileStore;
}

/** The browser engine. */
export interface BrowserEngine {
  readonly name: "browser";
  fetch(request: BrowserRequest, signal?: AbortSignal): Promise<Page>;
}
/**
 * The pool's `prepare` hook: gives a new page the common-case setup before any scrape needs it.
 * Returns the page's {@link PageSetup}, which the engine finds on the lease.
 */
export async function prepareWarmPage(page: PuppeteerPage, session: CDPSession): Promise<PageSetup> {
  const setup = new PageSetup(page, session);
  const major = await chromeMajorOf(page);
  await setup.apply(defaultSetup(major));
  return setup;
}

/** Creates the browser engine over a pool. */
export function createBrowserEngine(options: BrowserEngineOptions): BrowserEngine {
  const { pool, gate, profiles } = options;
  let chromeMajor: string | undefined;

  async function majorVersion(page: PuppeteerPage): Promise<string> {
    chromeMajor ??= await chromeMajorOf(page);
    return chromeMajor;
  }
  const scope: ScrapeScope = { gate, profiles, majorVersion };

  return {
    name: "browser",
    async fetch(req: BrowserRequest, signal?: AbortSignal): Promise<Page> {
      if (!Number.isFinite(req.timeoutMs) || req.timeoutMs <= 0) throw new ScrapeTimeoutError(Math.max(0, req.timeoutMs));
      const deadline = performance.now() + req.timeoutMs;
      await gate.check(req.url);
      let proxyServer: string | undefined;
      if (req.upstreamProxy) {
        if (!gate.proxyUrlFor) throw new TypeError("createBrowserEngine: this gate cannot chain to upstream proxies");
        proxyServer = gate.proxyUrlFor(req.upstreamProxy);
      }
      // Profile scrapes get a never-used context and close it (their state must not meet a wiped one's). So do scrapes
      // that verify TLS certificates: a context that once went on past a bad certificate (skipTlsVerification, the
      // default) keeps Chromium's allowance for that host, and an explicit `false` on it loaded the page anyway.
      const tenant = req.profile || !req.skipTlsVerification ? undefined : (req.tenant ?? "");
      const lease = await pool.acquire({ signal, deadline, proxyServer, tenant });
      let suspect = false;
      let finished = false;
      const size = new DocumentSizeGuard(lease.session, req.maxBodyBytes);
      const cleanup: (() => void)[] = [() => size.dispose()];
      let timer: ReturnType<typeof setTimeout> | undefined;
      let onAbort: (() => void) | undefined;
      try {
        const stop = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            suspect = true;
            reject(new ScrapeTimeoutError(req.timeoutMs));
          }, Math.max(0, deadline - performance.now()));
          onAbort = () => reject(signal?.reason ?? new Error("aborted"));
          signal?.addEventListener("abort", onAbort, { once: true });
          // A crashed page never answers: the scrape ends now, saying why, not at its timeout.
          lease.crashed.addEventListener("abort", () => reject(lease.crashed.reason), { once: true });
          // A main document past the limit ends the scrape as it arrives (document-size.ts).
          size.signal.addEventListener("abort", () => reject(size.signal.reason), { once: true });
        });
        const running = runScrape(scope, req, lease, size, deadline, cleanup, signal).finally(() => {
          finished = true;
        });
        return await Promise.race([running, stop]);
      } catch (err) {
        if (err instanceof CrawlboxError) throw err;
        if (signal?.aborted) throw signal.reason ?? err;
        // The page kept navigating until the deadline while it was read (page-reads.ts): the page, not the browser.
        if (isContextLost(err)) {
          throw new SiteError("SCRAPE_SITE_ERROR", `The page kept navigating while it was read and did not settle in time: ${firstLine(err)}`, { cause: err });
        }
        // The browser died under us (crash, killed, protocol error): the pool relaunches on the next acquire.
        suspect = true;
        throw new SiteError("SCRAPE_SITE_ERROR", `The browser failed while loading the page: ${firstLine(err)}`, { cause: err });
      } finally {
        clearTimeout(timer);
        if (onAbort) signal?.removeEventListener("abort", onAbort);
        for (const undo of cleanup) undo();
        // Reused only when the scrape's own code is over (not after a timeout or an abort, which leave it running).
        lease.release({ suspect, reuse: finished && !suspect && !signal?.aborted });
      }
    },
  };
}
