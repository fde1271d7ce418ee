/**
 * @module engines/browser
 * The browser engine's public face: {@link createEngines} builds the engine router of a crawlbox process,
 * HTTP + browser when Chromium is available, HTTP only otherwise (then browser options keep their clear 400,
 * see scrape/capabilities.ts). Chromium is launched lazily on the first scrape that needs it and warmed off the
 * request path; `router.close()` leaves no Chromium process behind.
 *
 * @example
 * const engines = createEngines({ config, gate, http: createHttpEngine({ gate }), profiles, log, formatNeedsBrowser });
 * const page = await engines.fetch(spec, config.maxPageBytes, signal, { keyId });
 * await engines.close();
 */
import type { Config } from "../../config.ts";
import type { EgressGate } from "../../egress/index.ts";
import type { Logger } from "../../log.ts";
import type { ProfileStore } from "../../storage/profiles.ts";
import { createEngineRouter, createHttpRouter, upstreamProxyFor, type EngineRouter, type UpstreamProxies } from "../router.ts";
import type { Engine } from "../types.ts";
import { findChromium, wantsSandbox } from "./chromium.ts";
import { createBrowserEngine, prepareWarmPage } from "./engine.ts";
import { BrowserPool } from "./pool.ts";

/** What {@link createEngines} needs. */
export interface EnginesOptions {
  config: Pick<Config, "chromePath" | "browserEnabled" | "browserConcurrency" | "browserRetireAfterPages" | "browserIdleCloseMs"> &
    Partial<Pick<Config, "chromiumSandbox" | "browserPageMemoryMb">> &
    Partial<Pick<Config, "proxyBasic" | "proxyEnhanced" | "proxyCountries">>;
  gate: EgressGate;
  http: Engine;
  profiles?: ProfileStore;
  log: Logger;
  /** True for formats whose renderer needs the browser. */
  formatNeedsBrowser: (type: string) => boolean;
  /** True for formats that read only the fetched bytes (`rawBase64`: engines/router.ts `wantsOnlyBytes`). */
  formatIsBytesOnly: (type: string) => boolean;
  /** Existence check for Chromium paths (tests). */
  exists?: (path: string) => boolean;
}

/** A router plus, when there is a browser, its pool (tests and the bench reach it). */
export interface Engines extends EngineRouter {
  readonly pool?: BrowserPool;
  /**
   * With a browser: the egress gate's listener that chains to the upstream proxy a scrape in `mode` from `country`
   * goes out through (the router's choice, engines/router.ts upstreamProxyFor), for a browser page opened outside a
   * scrape that must go out as the scrape did (an interact session); undefined when no upstream proxy applies.
   */
  readonly proxyServerFor?: (mode: "basic" | "enhanced", country: string | undefined) => string | undefined;
}

/** Builds the engine router: HTTP + browser when Chromium is available and enabled, HTTP only otherwise. */
export function createEngines(o: EnginesOptions): Engines {
  const upstreamProxies: UpstreamProxies = {
    ...(o.config.proxyBasic ? { basic: o.config.proxyBasic } : {}),
    ...(o.config.proxyEnhanced ? { enhanced: o.config.proxyEnhanced } : {}),
    ...(o.config.proxyCountries ? { byCountry: o.config.proxyCountries } : {}),
  };
  const http = createHttpRouter(o.http, o.formatIsBytesOnly, upstreamProxies);
  if (!o.config.browserEnabled) {
    o.log.info("browser: disabled (CRAWLBOX_BROWSER=off); browser options answer 400");
    return http;
  }
  const executablePath = findChromium(o.config.chromePath, o.exists);
  if (!executablePath) {
    o.log.warn(
      o.config.chromePath
        ? `browser: CHROME_PATH ${o.config.chromePath} does not exist; serving without the browser engine`
        : "browser: no Chromium found (install the chromium package or set CHROME_PATH); serving without the browser engine",
    );
    return http;
  }
  const sandbox = o.config.chromiumSandbox ?? "auto";
  const pool = new BrowserPool({
    executablePath,
    proxyUrl: o.gate.proxyUrl,
    sandbox,
    concurrency: o.config.browserConcurrency,
    retireAfterPages: o.config.browserRetireAfterPages,
    idleCloseMs: o.config.browserIdleCloseMs,
    pageMemoryLimitBytes: (o.config.browserPageMemoryMb ?? 0) * 2 ** 20,
    log: o.log,
    prepare: prepareWarmPage,
  });
  const browser = createBrowserEngine({ pool, gate: o.gate, profiles: o.profiles });
  o.log.info("browser: engine ready (Chromium starts on first use)", { executablePath, concurrency: o.config.browserConcurrency, sandbox: wantsSandbox(sandbox) ? (sandbox === "on" ? "chromium's own" : "chromium's own where the system gives it") : "none (running as root, or off)", pageMemoryMb: o.config.browserPageMemoryMb ?? 0 });
  const router = createEngineRouter({
    http: o.http,
    browser,
    closeBrowser: () => pool.close(),
    formatNeedsBrowser: o.formatNeedsBrowser,
    formatIsBytesOnly: o.formatIsBytesOnly,
    upstreamProxies,
    log: o.log,
  });
  const proxyServerFor = (mode: "basic" | "enhanced", country: string | undefined) => {
    const upstream = upstreamProxyFor(upstreamProxies, mode, country);
    if (!upstream) return undefined;
    if (!o.gate.proxyUrlFor) throw new TypeError("createEngines: this gate cannot chain to upstream proxies");
    return o.gate.proxyUrlFor(upstream);
  };
  return Object.assign(router, { pool, proxyServerFor });
}

export { BrowserPool } from "./pool.ts";
export { findChromium, CHROMIUM_LOCATIONS } from "./chromium.ts";
export { createBrowserEngine, type BrowserEngine, type BrowserRequest } from "./engine.ts";
