/**
 * @module scrape/cache-key
 * The page-cache key: the URL plus every option that changes what is fetched (device, place, wait, ads,
 * screenshot), and nothing that only changes rendering (formats, tag filters), so a cached page serves every
 * rendering of it. Requests with custom headers or actions are never cached (their result is personal).
 *
 * A page fetched with its certificate verified (`skipTlsVerification: false`) is keyed apart from one fetched
 * without: a request that asks for verification must never get a copy no certificate check vouched for (from a
 * host with a bad certificate, or through an interceptor). Unverified fetches keep the key they always had, so the
 * copies already cached (whose verification is unknown) still serve only requests that skip it.
 *
 * Likewise a page fetched while `CRAWLBOX_ALLOW_PRIVATE_NETWORK` was on is keyed apart: the cache does not know
 * whether its address was private, and a server restarted with the gate closed must not go on serving copies of
 * intranet pages it would now refuse to fetch. With the gate closed (the default) keys are what they always were,
so an upgrade keeps the cache; opening the gate starts a cache of its own.
 */
import { createHash } from "node:crypto";
import type { ScrapeSpec } from "./spec.ts";

/** Hex SHA-256 key of what `spec` fetches; `privateNetwork`: whether the egress gate lets private addresses through. */
export function pageCacheKey(spec: ScrapeSpec, privateNetwork = false): string {
  const screenshot = spec.formats.find((f) => f.type === "screenshot");
  const parts = {
    v: 1,
    url: spec.url,
    mobile: spec.mobile,
    waitForMs: spec.waitForMs,
    blockAds: spec.blockAds,
    country: spec.location?.country ?? null,
    languages: spec.location?.languages ?? null,
    screenshot: screenshot ? { fullPage: screenshot.fullPage ?? false, viewport: screenshot.viewport ?? null, ...(screenshot.quality !== undefined ? { quality: screenshot.quality } : {}) } : null,
    ...(spec.skipTlsVerification ? {} : { tlsVerified: true }),
    ...(privateNetwork ? { privateNetwork: true } : {}),
  };
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}

/**
 * Whether `spec` fetches the same page for everyone. Custom headers (cookies, auth), actions and profiles make
 * the result personal: such requests neither read the shared cache (they would get someone else's or an
 * anonymous copy) nor write it; zero data retention does neither either.
 */
export function isSharedFetch(spec: ScrapeSpec): boolean {
  return !spec.zeroDataRetention && !spec.profile && Object.keys(spec.headers).length === 0 && spec.actions.length === 0;
}

/** Whether the result of `spec` may be written to the cache. */
export function isCacheable(spec: ScrapeSpec): boolean {
  return spec.storeInCache && isSharedFetch(spec);
}
