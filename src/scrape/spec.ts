/**
 * @module scrape/spec
 * The scrape service's own view of a request: validated, defaulted and normalised. The /v2 wire models
 * (src/api) are mapped to this once, in the route, so the pipeline never deals with wire quirks (string
 * formats, optional defaults, legacy names). Crawl and batch pages build the same spec.
 */
import type { PiiOptions } from "../redact/redactor.ts";

/** One requested format, always in object form (`"markdown"` becomes `{type:"markdown"}`). */
export interface FormatRequest {
  type: string;
  [option: string]: unknown;
}

/** Where the page should appear to be fetched from. */
export interface LocationSpec {
  country: string;
  languages: string[];
}

/** A normalised scrape request. */
export interface ScrapeSpec {
  /** Absolute http(s) URL to fetch. */
  url: string;
  /** The URL exactly as the client sent it (reported as `metadata.sourceURL`). */
  sourceUrl: string;
  formats: FormatRequest[];
  onlyMainContent: boolean;
  includeTags: string[];
  excludeTags: string[];
  removeBase64Images: boolean;
  headers: Record<string, string>;
  timeoutMs: number;
  waitForMs: number;
  skipTlsVerification: boolean;
  mobile: boolean;
  location?: LocationSpec;
  proxy: "basic" | "stealth" | "enhanced" | "auto";
  blockAds: boolean;
  /** Accept a cached copy at most this old; 0 = always fetch. */
  maxAgeMs: number;
  /** Serve from cache only, with a copy at least this old; undefined = normal fetching. */
  minAgeMs?: number;
  /** Cache-only with a two-year maxAge (`lockdown`). */
  lockdown: boolean;
  /** PII redaction of the markdown (`redactPII`, redact/redactor.ts); undefined when off. */
  redactPII?: PiiOptions;
  /** The LLM's boilerplate pass over the markdown (`onlyCleanContent`, clean-content/cleaner.ts). */
  onlyCleanContent: boolean;
  storeInCache: boolean;
  zeroDataRetention: boolean;
  /** Requested document parsers (`parsers`), normalised to objects. */
  parsers: { type: string; mode?: string; maxPages?: number }[];
  actions: { type: string; [k: string]: unknown }[];
  profile?: { name: string; saveChanges: boolean };
}

/** Default `maxAge`: two days, as upstream documents. */
export const DEFAULT_MAX_AGE_MS = 172_800_000;
/** `lockdown` reads the cache with this maxAge. */
export const LOCKDOWN_MAX_AGE_MS = 2 * 365 * 24 * 60 * 60 * 1000;

/** True when the spec asks for `type` among its formats. */
export function wantsFormat(spec: Pick<ScrapeSpec, "formats">, type: string): boolean {
  return spec.formats.some((f) => f.type === type);
}
