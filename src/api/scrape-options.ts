/**
 * @module api/scrape-options
 * Scrape options (`baseScrapeOptions`, api-v2.md §2.2), shared by scrape, batch (flattened into the body),
 * `crawl.scrapeOptions`, `extract.scrapeOptions` and `search.scrapeOptions`. The properties are exported as a
 * plain object ({@link scrapeOptionsProps}) so the scrape and batch bodies can spread them next to their own
 * fields, exactly like upstream's `.extend()`.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { strictObject, oneOf, HeadersField, LocationSchema, CloudProps, DEFAULT_COUNTRY, Int } from "./common.ts";
import { formatsField, normalizeFormats, type Format, type FormatType } from "./formats.ts";
import { ActionsField, type Action } from "./actions.ts";
import { ParsersField, normalizeParsers, type Parser } from "./parsers.ts";

/** Largest `waitFor` (ms). */
export const MAX_WAIT_FOR_MS = 60_000;
/** Smallest `timeout` (ms) ([LATEST]). */
export const MIN_TIMEOUT_MS = 1_000;

export const PROXY_MODES = ["basic", "stealth", "enhanced", "auto"] as const;
export type ProxyMode = (typeof PROXY_MODES)[number];

/** `redactPII: true` or options ([LATEST]; cloud feature, accepted). */
export const RedactPiiField = t.Union([
  t.Boolean(),
  strictObject({
    mode: t.Optional(oneOf(["accurate", "aggressive", "fast"], { default: "accurate" })),
    entities: t.Optional(t.Array(oneOf(["PERSON", "EMAIL", "PHONE", "LOCATION", "FINANCIAL", "SECRET"]))),
    replaceStyle: t.Optional(oneOf(["tag", "mask", "remove"], { default: "tag" })),
  }),
]);

/** Browser profile to load (and save back unless `saveChanges: false`). */
export const ProfileSchema = strictObject({
  name: t.String({ minLength: 1 }),
  saveChanges: t.Optional(t.Boolean({ default: true })),
});

/**
 * The scrape-option properties. `formats` options vary per endpoint: search allows a subset and defaults to
 * no formats at all.
 */
export function scrapeOptionsProps(formats: { allowed?: readonly FormatType[]; defaultFormats?: readonly unknown[] } = {}) {
  return {
    formats: t.Optional(formatsField(formats)),
    headers: t.Optional(HeadersField),
    includeTags: t.Optional(t.Array(t.String(), { description: "CSS selectors to keep" })),
    excludeTags: t.Optional(t.Array(t.String(), { description: "CSS selectors to remove" })),
    onlyMainContent: t.Optional(t.Boolean({ default: true })),
    onlyCleanContent: t.Optional(t.Boolean({ default: false })),
    timeout: t.Optional(Int({ minimum: MIN_TIMEOUT_MS, description: "Request deadline in ms (no default)" })),
    waitFor: t.Optional(Int({ minimum: 0, maximum: MAX_WAIT_FOR_MS, default: 0 })),
    mobile: t.Optional(t.Boolean({ default: false })),
    parsers: t.Optional(ParsersField),
    actions: t.Optional(ActionsField),
    location: t.Optional(LocationSchema),
    skipTlsVerification: t.Optional(t.Boolean({ description: "Default: true unless headers or actions are given" })),
    removeBase64Images: t.Optional(t.Boolean({ default: true })),
    fastMode: t.Optional(t.Boolean({ default: false })),
    blockAds: t.Optional(t.Boolean({ default: true })),
    proxy: t.Optional(oneOf(PROXY_MODES, { default: "auto" })),
    maxAge: t.Optional(Int({ minimum: 0, description: "Accept a cached copy at most this old (ms)" })),
    minAge: t.Optional(Int({ minimum: 0, description: "Only serve cached data at least this old (ms)" })),
    storeInCache: t.Optional(t.Boolean({ default: true })),
    lockdown: t.Optional(t.Boolean({ default: false, description: "Serve from cache only" })),
    safeMode: t.Optional(t.Boolean()),
    redactPII: t.Optional(RedactPiiField),
    profile: t.Optional(ProfileSchema),
    useMock: t.Optional(t.String({ description: "Test-fixture hook" })),
    domainTools: t.Optional(t.Boolean({ description: "[LATEST SDK] accepted, ignored" })),
    toolDetail: t.Optional(oneOf(["compact", "summary", "full"], { description: "[LATEST SDK] accepted, ignored" })),
    ...CloudProps,
  };
}

/** Scrape options as a nested object (`crawl.scrapeOptions`, `extract.scrapeOptions`). */
export const ScrapeOptionsSchema = strictObject(scrapeOptionsProps());

/** Formats search may request (api-v2.md §2.7). */
export const SEARCH_FORMAT_TYPES = [
  "markdown", "html", "rawHtml", "links", "images", "summary", "product", "menu", "json", "question", "highlights", "query", "screenshot",
] as const satisfies readonly FormatType[];

/** `search.scrapeOptions`: restricted formats, default none (no scraping). */
export const SearchScrapeOptionsSchema = strictObject(scrapeOptionsProps({ allowed: SEARCH_FORMAT_TYPES, defaultFormats: [] }));

export type ScrapeOptionsInput = Static<typeof ScrapeOptionsSchema>;

type Req<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: Exclude<T[P], undefined> };

/**
 * Scrape options after defaults and normalisation: what the service layer receives. Formats and parsers are
 * objects, `skipTlsVerification` is resolved, `location.country` is set when `location` is.
 */
export type ScrapeOptions = Omit<
  Req<ScrapeOptionsInput, "onlyMainContent" | "onlyCleanContent" | "waitFor" | "mobile" | "removeBase64Images" | "fastMode" | "blockAds" | "proxy" | "storeInCache" | "lockdown">,
  "formats" | "parsers" | "actions" | "skipTlsVerification" | "location" | "domainTools" | "toolDetail" | "threatProtection" | "auditMetadata"
> & {
  formats: Format[];
  parsers: Parser[];
  actions?: Action[];
  skipTlsVerification: boolean;
  location?: { country: string; languages?: string[] };
};

/** Keys accepted for SDK compatibility and dropped from the normalised options. */
const IGNORED_KEYS = ["domainTools", "toolDetail", "threatProtection", "auditMetadata"] as const;

/** The keys of scrape options, e.g. to pick them out of a flattened batch body. */
export const SCRAPE_OPTION_KEYS = Object.keys(scrapeOptionsProps()) as (keyof ScrapeOptionsInput)[];

/**
 * Normalises schema-checked, defaulted scrape options. Pure: no issues can arise here (refinements run
 * before, in `refine.ts`).
 */
export function normalizeScrapeOptions(input: ScrapeOptionsInput): ScrapeOptions {
  const o: Record<string, unknown> = { ...input };
  for (const k of IGNORED_KEYS) delete o[k];
  o["formats"] = normalizeFormats(input.formats ?? [{ type: "markdown" }]);
  o["parsers"] = normalizeParsers(input.parsers ?? ["pdf", "image"]);
  if (input.skipTlsVerification === undefined) {
    const hasHeaders = input.headers !== undefined && Object.keys(input.headers).length > 0;
    const hasActions = input.actions !== undefined && input.actions.length > 0;
    o["skipTlsVerification"] = !(hasHeaders || hasActions);
  }
  if (input.location) o["location"] = { ...input.location, country: input.location.country ?? DEFAULT_COUNTRY };
  return o as ScrapeOptions;
}

/** Picks the scrape-option keys out of a flattened body (batch scrape). */
export function pickScrapeOptions(body: Record<string, unknown>): ScrapeOptionsInput {
  const out: Record<string, unknown> = {};
  for (const k of SCRAPE_OPTION_KEYS) if (body[k] !== undefined) out[k] = body[k];
  return out as ScrapeOptionsInput;
}
