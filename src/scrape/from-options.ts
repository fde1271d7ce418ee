/**
 * @module scrape/from-options
 * Maps validated /v2 scrape options (src/api) to the service's {@link ScrapeSpec}: fills the server-side
 * defaults (timeout, maxAge) and refuses cloud-only options that would change the result if ignored.
 */
import type { ScrapeOptions } from "../api/scrape-options.ts";
import { totalWaitMs } from "../api/actions.ts";
import { piiOptions } from "../redact/redactor.ts";
import { DEFAULT_MAX_AGE_MS, type ScrapeSpec } from "./spec.ts";

/**
 * Longest deadline a scrape may have. Upstream sets no maximum, so larger values are accepted (compatibility)
 * and clamped here rather than rejected.
 */
export const MAX_TIMEOUT_MS = 300_000;

/** The one `timeout` upstream's legacy rule raises (an old SDK default that clients still send). */
const LEGACY_TIMEOUT_MS = 30_000;

/**
 * The scrape's deadline: the options' `timeout`, else the server's default, plus the time the request asks to wait
 * (`waitFor` and its `wait` actions, a selector's counted as 1 s, as in the 60 s wait budget): upstream's scrape
 * controller waits `timeout + totalWait`, so `{timeout: 10000, waitFor: 5000, actions: [wait 6000]}` finishes there
 * (it was a 408 here) and a `waitFor: 45000` is not cut to the default 30 s. An explicit `timeout: 30000` is raised
 * as upstream's `extractTransform` does (api-v2.md §2.2), so that a request that finishes there in time does here:
 * to 120000 with the `stealth`, `enhanced` or `auto` proxy (`auto` is the default), else to 60000 with a `json` or
 * `changeTracking` format. Any other value is used as given.
 */
export function timeoutMsOf(o: Pick<ScrapeOptions, "timeout" | "proxy" | "formats" | "waitFor" | "actions">, defaultTimeoutMs: number): number {
  let ms = o.timeout ?? defaultTimeoutMs;
  if (o.timeout === LEGACY_TIMEOUT_MS) {
    const types = (o.formats as { type: string }[]).map((f) => f.type);
    if (types.includes("json") || types.includes("changeTracking")) ms = 60_000;
    if (o.proxy === "stealth" || o.proxy === "enhanced" || o.proxy === "auto") ms = 120_000;
  }
  return Math.min(ms, MAX_TIMEOUT_MS) + totalWaitMs(o.waitFor ?? 0, o.actions ?? []);
}

/** Server-side values the options do not carry. */
export interface SpecDefaults {
  defaultTimeoutMs: number;
}

/** Builds the spec of one page scrape. */
export function specFromOptions(
  url: string,
  sourceUrl: string,
  o: ScrapeOptions,
  extra: { zeroDataRetention?: boolean },
  defaults: SpecDefaults,
): ScrapeSpec {
  const pii = piiOptions(o.redactPII);
  const spec: ScrapeSpec = {
    url,
    sourceUrl,
    formats: o.formats as ScrapeSpec["formats"],
    onlyMainContent: o.onlyMainContent,
    onlyCleanContent: o.onlyCleanContent,
    includeTags: o.includeTags ?? [],
    excludeTags: o.excludeTags ?? [],
    removeBase64Images: o.removeBase64Images,
    headers: o.headers ?? {},
    timeoutMs: timeoutMsOf(o, defaults.defaultTimeoutMs),
    waitForMs: o.waitFor,
    skipTlsVerification: o.skipTlsVerification,
    mobile: o.mobile,
    proxy: o.proxy,
    blockAds: o.blockAds,
    maxAgeMs: o.maxAge ?? DEFAULT_MAX_AGE_MS,
    lockdown: o.lockdown,
    ...(pii ? { redactPII: pii } : {}),
    storeInCache: o.storeInCache,
    zeroDataRetention: extra.zeroDataRetention ?? false,
    parsers: o.parsers as ScrapeSpec["parsers"],
    actions: (o.actions ?? []) as ScrapeSpec["actions"],
  };
  if (o.minAge !== undefined) spec.minAgeMs = o.minAge;
  if (o.location) spec.location = { country: o.location.country, languages: o.location.languages ?? [] };
  if (o.profile) spec.profile = { name: o.profile.name, saveChanges: o.profile.saveChanges ?? true };
  return spec;
}
