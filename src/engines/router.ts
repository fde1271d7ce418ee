/**
 * @module engines/router
 * Picks the engine for a scrape and runs it. The router is the one place that decides "HTTP or browser"; the
 * scrape service only asks for a page. Its `capabilities` tell the service what this build can honour (a
 * router with a browser adds `"browser"`), so unsupported requests are refused before anything is fetched.
 *
 * Policy of the HTTP + browser router ({@link createEngineRouter}), all within the scrape's one deadline:
 * ```
 * spec needs a browser? (actions, screenshot, waitFor, mobile, location, profile, enhanced, browser formats)
 *   yes ─▶ browser ──blocked & proxy:auto──▶ browser, enhanced
 *   no  ─▶ HTTP ─┬─ blocked & proxy:auto ─▶ browser, enhanced
 *                ├─ needs JavaScript (shell, noscript wall, empty mount point) ─▶ browser (─▶ enhanced if blocked)
 *                └─ otherwise the HTTP page
 * browser finds a PDF or other document ─▶ HTTP fetch of it for the document pipeline (actions refused)
 * ```
 * A fallback browser attempt that fails (a timeout included, but not an abort) yields the HTTP page it started from,
 * with a warning that says so (`page.warning`); so does one that comes back cut short (a script in its `<head>` that
 * never arrived, engines/browser/document-wait.ts) showing less text than the HTML as served, and a page that needs
 * JavaScript on a server without a browser (which follows a meta refresh or `Refresh` header itself over HTTP,
 * engines/refresh-hops.ts). The fallback attempt keeps {@link FALLBACK_ANSWER_RESERVE_MS} of the
 * timeout back, so that the HTTP page is still answered within it. A request for the fetched bytes only
 * (`rawBase64`) never falls back: the browser's page is not those bytes. When the browser is used anyway (`waitFor`,
 * `mobile`, `proxy: enhanced` …), it is asked for the main document's bytes as they arrived ({@link wantsOnlyBytes}).
 * `page.engine` says which engine served and `page.proxyUsed` whether the enhanced mode was used.
 *
 * Upstream proxies ({@link upstreamProxyFor}): every attempt, HTTP or browser, names the configured upstream proxy
 * for its mode (basic for HTTP and the first browser attempt, enhanced for the stealth one) or for the request's
 * `location.country`; the engines reach it only through the egress gate (`gate.proxyUrlFor`).
 */
import { CrawlboxError, ScrapeTimeoutError } from "../errors.ts";
import type { Logger } from "../log.ts";
import type { RendererNeed } from "../scrape/renderer.ts";
import type { ScrapeSpec } from "../scrape/spec.ts";
import type { Action } from "../api/actions.ts";
import { type BrowserEngine, type BrowserRequest, DocumentResponseError } from "./browser/engine.ts";
import { looksBlocked, needsJavaScript, visibleText, visibleTextLength } from "./browser/detect.ts";
import { normaliseCountry } from "./browser/emulation.ts";
import { followRefreshes } from "./refresh-hops.ts";
import type { Engine, FetchRequest, Page } from "./types.ts";

/** Who a fetch is for (profiles are per API key). */
export interface FetchOwner {
  keyId: string;
}

/** Fetches the page a spec describes with the right engine. */
export interface EngineRouter {
  /** What the engines behind this router can do beyond plain HTTP. */
  readonly capabilities: ReadonlySet<RendererNeed>;
  fetch(spec: ScrapeSpec, maxBodyBytes: number, signal?: AbortSignal, owner?: FetchOwner): Promise<Page>;
  /** Releases engine resources (browser processes). */
  close(): Promise<void>;
}

/** Client headers plus `Accept-Language` from `location.languages` when the client did not set one. */
export function requestHeaders(spec: ScrapeSpec): Record<string, string> {
  const headers = { ...spec.headers };
  const langs = spec.location?.languages ?? [];
  const has = Object.keys(headers).some((h) => h.toLowerCase() === "accept-language");
  if (langs.length > 0 && !has) {
    headers["Accept-Language"] = langs.map((l, i) => (i === 0 ? l : `${l};q=${Math.max(0.1, 1 - i * 0.1).toFixed(1)}`)).join(", ");
  }
  return headers;
}

function httpFetch(
  http: Engine,
  spec: ScrapeSpec,
  maxBodyBytes: number,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  upstreamProxy: string | undefined,
): Promise<Page> {
  return http.fetch(httpRequest(spec, maxBodyBytes, timeoutMs, upstreamProxy), signal);
}

/** The HTTP engine's request for `spec`. */
function httpRequest(spec: ScrapeSpec, maxBodyBytes: number, timeoutMs: number, upstreamProxy: string | undefined): FetchRequest {
  return {
    url: spec.url,
    headers: requestHeaders(spec),
    skipTlsVerification: spec.skipTlsVerification,
    timeoutMs,
    maxBodyBytes,
    ...(upstreamProxy ? { upstreamProxy } : {}),
  };
}

/** Configured upstream proxy URLs (all optional; config `CRAWLBOX_PROXY_*`). */
export interface UpstreamProxies {
  basic?: string;
  enhanced?: string;
  /** Two-letter upper-case country → proxy URL. */
  byCountry?: Record<string, string>;
}

/**
 * The upstream proxy for one attempt: the one configured for the request's `location.country` when there is one
 * (only when the request names a location), else the enhanced one for the enhanced mode, else the basic one.
 * Undefined = direct. An enhanced attempt without an enhanced proxy uses the basic one: when the operator routes
 * traffic through a proxy, a stealth attempt should not suddenly go out directly.
 */
export function upstreamProxyFor(
  proxies: UpstreamProxies | undefined,
  mode: "basic" | "enhanced",
  country: string | undefined,
): string | undefined {
  if (!proxies) return undefined;
  if (country !== undefined) {
    const byCountry = proxies.byCountry?.[normaliseCountry(country)];
    if (byCountry) return byCountry;
  }
  return (mode === "enhanced" ? proxies.enhanced || proxies.basic : proxies.basic) || undefined;
}

/** A router with only the HTTP engine: every spec is fetched over plain HTTP (through the basic or country proxy). */
export function createHttpRouter(http: Engine, formatIsBytesOnly: (type: string) => boolean, upstreamProxies?: UpstreamProxies): EngineRouter {
  return {
    capabilities: new Set(),
    async fetch(spec, maxBodyBytes, signal) {
      const startedMs = performance.now();
      const upstream = upstreamProxyFor(upstreamProxies, "basic", spec.location?.country);
      const request = httpRequest(spec, maxBodyBytes, spec.timeoutMs, upstream);
      let page = await http.fetch(request, signal);
      if (wantsOnlyBytes(spec, formatIsBytesOnly)) return page;
      // No browser to follow a meta refresh: followed here (a refresh needs no script).
      page = await followRefreshes(http, request, page, startedMs + spec.timeoutMs, signal);
      if (page.warning) return page;
      // Not silently: a page that shows nothing without its scripts would otherwise come back as an empty success.
      const why = needsJavaScript(page);
      if (why) page.warning = `This page seems to need JavaScript to show its content (${why}), and this server runs without a browser (CRAWLBOX_BROWSER=off, or no Chromium): this is its HTML as served.`;
      return page;
    },
    async close() {},
  };
}

/** Options of {@link createEngineRouter}. */
export interface EngineRouterOptions {
  http: Engine;
  browser: BrowserEngine;
  /** Closes the browser pool. */
  closeBrowser: () => Promise<void>;
  /** True for formats whose renderer needs the browser (e.g. `screenshot`, `branding`). */
  formatNeedsBrowser: (type: string) => boolean;
  /** True for formats that read only the fetched bytes (`rawBase64`; see {@link wantsOnlyBytes}). */
  formatIsBytesOnly: (type: string) => boolean;
  /** Upstream proxies per mode and country (see {@link upstreamProxyFor}, docs/browser.md "Proxies"). */
  upstreamProxies?: UpstreamProxies;
  log: Logger;
}

/** Why `spec` cannot be served without the browser (empty when HTTP may try first). */
export function browserReasons(spec: ScrapeSpec, formatNeedsBrowser: (type: string) => boolean): string[] {
  const out: string[] = [];
  if (spec.actions.length > 0) out.push("actions");
  if (spec.waitForMs > 0) out.push("waitFor");
  if (spec.mobile) out.push("mobile");
  if (spec.location) out.push("location");
  if (spec.profile) out.push("profile");
  if (spec.proxy === "enhanced" || spec.proxy === "stealth") out.push(`proxy:${spec.proxy}`);
  for (const f of spec.formats) if (formatNeedsBrowser(f.type)) out.push(`format:${f.type}`);
  return out;
}

/** Least time worth starting a browser attempt with. */
const MIN_BROWSER_BUDGET_MS = 1_000;

/**
 * Time a JavaScript fallback's browser attempt leaves of the timeout, so that when it runs out the HTTP page it
 * started from is still answered within the timeout (rather than a 408 with nothing).
 */
export const FALLBACK_ANSWER_RESERVE_MS = 500;

/**
 * Whether every format of `spec` reads only the fetched bytes (a renderer's `bytesOnly`: `rawBase64`,
 * scrape/renderer.ts): then the page's need of JavaScript does not matter, and the router answers from the HTTP
 * engine when it can; a browser asked for such a format keeps the main document's bytes (`BrowserRequest.rawBytes`).
 */
export function wantsOnlyBytes(spec: ScrapeSpec, formatIsBytesOnly: (type: string) => boolean): boolean {
  return spec.formats.length > 0 && spec.formats.every((f) => formatIsBytesOnly(f.type));
}

/** The router with the HTTP engine and the browser engine. */
export function createEngineRouter(o: EngineRouterOptions): EngineRouter {
  const upstreamFor = (spec: ScrapeSpec, enhanced: boolean) =>
    upstreamProxyFor(o.upstreamProxies, enhanced ? "enhanced" : "basic", spec.location?.country);
  function browserRequest(spec: ScrapeSpec, maxBodyBytes: number, timeoutMs: number, stealth: boolean, owner: FetchOwner | undefined, fallback: boolean): BrowserRequest {
    const shot = spec.formats.find((f) => f.type === "screenshot");
    const req: BrowserRequest = {
      url: spec.url,
      headers: spec.headers,
      skipTlsVerification: spec.skipTlsVerification,
      timeoutMs,
      maxBodyBytes,
      mobile: spec.mobile,
      waitForMs: spec.waitForMs,
      blockAds: spec.blockAds,
      actions: spec.actions as unknown as Action[],
      stealth,
    };
    if (spec.location) req.location = spec.location;
    if (shot) {
      req.screenshot = {
        fullPage: shot["fullPage"] === true,
        ...(typeof shot["quality"] === "number" ? { quality: shot["quality"] } : {}),
        ...(shot["viewport"] ? { viewport: shot["viewport"] as { width: number; height: number } } : {}),
      };
    }
    if (spec.formats.some((f) => f.type === "branding")) req.branding = true;
    if (spec.formats.some((f) => o.formatIsBytesOnly(f.type))) req.rawBytes = true;
    if (fallback) req.fallback = true;
    if (owner) req.tenant = owner.keyId;
    if (spec.profile && owner) req.profile = { keyId: owner.keyId, name: spec.profile.name, saveChanges: spec.profile.saveChanges };
    const upstream = upstreamFor(spec, stealth);
    if (upstream) req.upstreamProxy = upstream;
    return req;
  }

  return {
    capabilities: new Set<RendererNeed>(["browser"]),
    async fetch(spec, maxBodyBytes, signal, owner) {
      const deadline = performance.now() + spec.timeoutMs;
      const left = () => Math.round(deadline - performance.now());
      const enhancedAsked = spec.proxy === "enhanced" || spec.proxy === "stealth";
      /**
       * A browser attempt, with all the time left; as the fallback for the HTTP engine's page (`fallback`), all but
       * {@link FALLBACK_ANSWER_RESERVE_MS}, to answer with that page when the browser's does not come.
       */
      const viaBrowser = async (stealth: boolean, fallback = false): Promise<Page> => {
        const reserveMs = fallback ? FALLBACK_ANSWER_RESERVE_MS : 0;
        if (left() - reserveMs <= 0) throw new ScrapeTimeoutError(spec.timeoutMs);
        try {
          const page = await o.browser.fetch(browserRequest(spec, maxBodyBytes, left() - reserveMs, stealth, owner, fallback), signal);
          page.proxyUsed = stealth ? "stealth" : "basic";
          return page;
        } catch (err) {
          if (err instanceof ScrapeTimeoutError) throw new ScrapeTimeoutError(spec.timeoutMs);
          if (!(err instanceof DocumentResponseError)) throw err;
          if (spec.actions.length > 0) {
            throw new CrawlboxError(
              "SCRAPE_ACTION_ERROR",
              400,
              `Actions cannot run on ${err.url}: it is a document (${err.contentType}), not a web page. Remove the actions to get its content.`,
              { details: { contentType: err.contentType } },
            );
          }
          // Fetched over plain HTTP, but through the attempt's upstream: a stealth attempt's page is still the
          // enhanced mode's (its proxy, its price, and an interact session on it goes out the same way).
          const page = await httpFetch(o.http, spec, maxBodyBytes, Math.max(1, left()), signal, upstreamFor(spec, stealth));
          page.proxyUsed = stealth ? "stealth" : "basic";
          return page;
        }
      };
      /** Browser, then (proxy:auto) enhanced when the result looks blocked. */
      const browserWithRetry = async (fallback = false): Promise<Page> => {
        const page = await viaBrowser(enhancedAsked, fallback);
        if (spec.proxy !== "auto" || page.engine !== "browser" || left() - (fallback ? FALLBACK_ANSWER_RESERVE_MS : 0) < MIN_BROWSER_BUDGET_MS) return page;
        // A page cut short (something it waits for never arrived) is empty for that reason, not because of a block.
        const empty = !page.degraded && page.text !== undefined && visibleText(page.text).length === 0;
        const blocked = looksBlocked(page) ?? (empty ? "empty page" : undefined);
        if (!blocked) return page;
        o.log.debug("router: retrying as enhanced", { url: spec.url, why: blocked });
        return viaBrowser(true, fallback);
      };

      const reasons = browserReasons(spec, o.formatNeedsBrowser);
      if (reasons.length > 0) return browserWithRetry();

      const page = await httpFetch(o.http, spec, maxBodyBytes, spec.timeoutMs, signal, upstreamFor(spec, false));
      const blocked = spec.proxy === "auto" ? looksBlocked(page) : undefined;
      // The fetched bytes are what rawBase64 asks for, whatever the page's scripts would make of them.
      const why = blocked ? `blocked (${blocked})` : wantsOnlyBytes(spec, o.formatIsBytesOnly) ? undefined : needsJavaScript(page);
      if (!why || left() < MIN_BROWSER_BUDGET_MS + FALLBACK_ANSWER_RESERVE_MS) return page;
      o.log.debug("router: switching to the browser", { url: spec.url, why });
      let rendered: Page;
      try {
        rendered = blocked ? await viaBrowser(true, true) : await browserWithRetry(true);
      } catch (err) {
        if (signal?.aborted) throw err;
        const timedOut = err instanceof ScrapeTimeoutError;
        o.log.warn(`router: browser fallback ${timedOut ? "timed out" : "failed"}; returning the HTTP page`, { url: spec.url, error: (err as Error).message });
        // The browser's own error stays in the log: it may name paths and addresses of this machine.
        page.warning = `This page seems to need a browser (${why}), but the browser ${timedOut ? "did not finish within the timeout" : "failed"}: this is its HTML as served.`;
        page.degraded = true;
        return page;
      }
      if (!blocked && rendered.degraded && rendered.engine === "browser" && showsLess(rendered, page)) {
        o.log.warn("router: the browser's page was cut short and shows less than the HTML as served; returning the HTTP page", { url: spec.url });
        page.warning = `This page seems to need a browser (${why}), but in the browser it was cut short (something it waits for never arrived) and showed less: this is its HTML as served.`;
        page.degraded = true;
        return page;
      }
      return rendered;
    },
    close: o.closeBrowser,
  };
}

/** Whether the browser's `rendered` page shows less text than the `served` HTML (a page cut short by what never came). */
function showsLess(rendered: Page, served: Page): boolean {
  if (served.text === undefined) return false;
  const servedChars = visibleTextLength(served.text, MAX_COMPARED_CHARS);
  return rendered.text === undefined || visibleTextLength(rendered.text, servedChars) < servedChars;
}

/** Visible characters counted at most when comparing pages ({@link showsLess}): enough to tell "less". */
const MAX_COMPARED_CHARS = 1_000_000;
