/**
 * @module scrape/from-options
 * Maps validated /v2 scrape options (src/api) to the service's {@link ScrapeSpec}: fills the server-side
 * defaults (timeout, maxAge) and refuses cloud-only options that would change the result if ignored.
 */
import type { ScrapeOptions } from "../api/scrape-options.ts";
import { UnsupportedOptionError } from "../errors.ts";
import { piiOptions } from "../redact/redactor.ts";
import { DEFAULT_MAX_AGE_MS, type ScrapeSpec } from "./spec.ts";

/**
 * Longest deadline a scrape may have. Upstream sets no maximum, so larger values are accepted (compatibility)
 * and clamped here rather than rejected.
 */
export const MAX_TIMEOUT_MS = 300_000;

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
    timeoutMs: Math.min(o.timeout ?? defaults.defaultTimeoutMs, MAX_TIMEOUT_MS),
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
