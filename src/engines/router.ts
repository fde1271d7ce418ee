/**
 * @module engines/router
 * Picks the engine for a scrape and runs it. The router is the one place that decides "HTTP or browser"; the
 * scrape service only asks for a page. Its `capabilities` tell the service what this build can honour (a
 * router with a browser adds `"browser"`), so unsupported requests are refused before anything is fetched.
 */
import type { RendererNeed } from "../scrape/renderer.ts";
import type { ScrapeSpec } from "../scrape/spec.ts";
import type { Engine, Page } from "./types.ts";

/** Fetches the page a spec describes with the right engine. */
export interface EngineRouter {
  /** What the engines behind this router can do beyond plain HTTP. */
  readonly capabilities: ReadonlySet<RendererNeed>;
  fetch(spec: ScrapeSpec, maxBodyBytes: number, signal?: AbortSignal): Promise<Page>;
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

/** A router with only the HTTP engine: every spec is fetched over plain HTTP. */
export function createHttpRouter(http: Engine): EngineRouter {
  return {
    capabilities: new Set(),
    fetch(spec, maxBodyBytes, signal) {
      return http.fetch(
        { url: spec.url, headers: requestHeaders(spec), skipTlsVerification: spec.skipTlsVerification, timeoutMs: spec.timeoutMs, maxBodyBytes },
        signal,
      );
    },
    async close() {},
  };
}
