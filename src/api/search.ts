/**
 * @module api/search
 * `POST /v2/search` (api-v2.md §2.7). `scrapeOptions` here default to no formats (results are not scraped
 * unless asked) and allow only the formats that make sense for search results.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { strictObject, oneOf, OriginProps, CloudProps, Int } from "./common.ts";
import { scrapeOptionsProps, normalizeScrapeOptions, SEARCH_FORMAT_TYPES, type ScrapeOptions } from "./scrape-options.ts";
import { refineScrapeOptions, refineSearch } from "./refine.ts";
import { validateBody, throwIfIssues } from "./validate.ts";
import { BadRequestError, ExchangeNotEnabledError } from "../errors.ts";

export const MAX_SEARCH_LIMIT = 100;
export const DEFAULT_SEARCH_LIMIT = 10;
export const DEFAULT_SEARCH_TIMEOUT_MS = 60_000;

export const SEARCH_SOURCES = ["web", "images", "news"] as const;
export const SEARCH_CATEGORIES = ["github", "research", "pdf", "developer", "gov"] as const;
/**
 * Firecrawl Exchange's source ([LATEST]; the Firecrawl MCP server asks for `["web", "alexandria"]` by default): accepted
 * by the schema so that it is answered as upstream answers a team without Exchange (403, {@link ExchangeNotEnabledError}).
 */
const EXCHANGE_SOURCE = "alexandria";

const SourceField = t.Union([
  oneOf(SEARCH_SOURCES),
  strictObject({
    type: t.Literal("web"),
    tbs: t.Optional(t.String()),
    filter: t.Optional(t.String()),
    lang: t.Optional(t.String()),
    country: t.Optional(t.String()),
    location: t.Optional(t.String()),
  }),
  strictObject({ type: t.Literal("images") }),
  strictObject({ type: t.Literal("news") }),
  t.Literal(EXCHANGE_SOURCE),
  strictObject({ type: t.Literal(EXCHANGE_SOURCE) }),
]);

const CategoryField = t.Union([oneOf(SEARCH_CATEGORIES), strictObject({ type: oneOf(SEARCH_CATEGORIES) })]);

export const SearchRequestSchema = strictObject(
  {
    query: t.String({ minLength: 1 }),
    limit: t.Optional(Int({ minimum: 1, maximum: MAX_SEARCH_LIMIT, default: DEFAULT_SEARCH_LIMIT })),
    tbs: t.Optional(t.String({ description: "Time filter, e.g. qdr:d" })),
    filter: t.Optional(t.String()),
    sources: t.Optional(t.Array(SourceField, { default: ["web"] })),
    categories: t.Optional(t.Array(CategoryField)),
    includeDomains: t.Optional(t.Array(t.String())),
    excludeDomains: t.Optional(t.Array(t.String())),
    lang: t.Optional(t.String({ default: "en" })),
    country: t.Optional(t.String({ description: 'Default "us" when `location` is not set' })),
    location: t.Optional(t.String()),
    timeout: t.Optional(Int({ exclusiveMinimum: 0, default: DEFAULT_SEARCH_TIMEOUT_MS })),
    ignoreInvalidURLs: t.Optional(t.Boolean({ default: false })),
    asyncScraping: t.Optional(t.Boolean({ default: false })),
    highlights: t.Optional(t.Boolean()),
    safe: t.Optional(t.Union([t.Boolean(), t.String()])),
    enterprise: t.Optional(t.Array(oneOf(["default", "anon", "zdr"]))),
    scrapeOptions: t.Optional(strictObject(scrapeOptionsProps({ allowed: SEARCH_FORMAT_TYPES, defaultFormats: [] }), { default: {} })),
    domainTools: t.Optional(t.Boolean({ description: "[LATEST SDK] accepted, ignored" })),
    toolDetail: t.Optional(oneOf(["compact", "summary", "full"], { description: "[LATEST SDK] accepted, ignored" })),
    ...CloudProps,
    ...OriginProps,
  },
  { description: "POST /v2/search body" },
);

export type SearchRequestInput = Static<typeof SearchRequestSchema>;
export type SearchSource = { type: "web"; tbs?: string; filter?: string; lang?: string; country?: string; location?: string } | { type: "images" } | { type: "news" };
export type SearchCategory = (typeof SEARCH_CATEGORIES)[number];

/** A validated search request: sources/categories as objects/strings, `country` resolved, scrape options normalised. */
export interface SearchRequest {
  query: string;
  limit: number;
  tbs?: string;
  filter?: string;
  sources: SearchSource[];
  categories?: SearchCategory[];
  includeDomains?: string[];
  excludeDomains?: string[];
  lang: string;
  country?: string;
  /**
   * True when `country` is the default "us" rather than the caller's: a web source's own `location` and a region
   * carried by `lang` (`en-GB`) then win over it (search/language.ts).
   */
  countryDefaulted?: true;
  location?: string;
  timeout: number;
  ignoreInvalidURLs: boolean;
  asyncScraping: boolean;
  highlights?: boolean;
  safe?: boolean | string;
  enterprise?: ("default" | "anon" | "zdr")[];
  scrapeOptions: ScrapeOptions;
  origin: string;
  integration?: string | null;
}

/** Validates, refines and normalises a search body; throws `BadRequestError` (400). */
export function parseSearchBody(body: unknown): SearchRequest {
  const v = validateBody(SearchRequestSchema, body);
  if (v.sources?.some((s) => (typeof s === "string" ? s : s.type) === EXCHANGE_SOURCE)) throw new ExchangeNotEnabledError();
  const so = v.scrapeOptions ?? { formats: [] };
  throwIfIssues([...refineSearch(v), ...refineScrapeOptions(so, ["scrapeOptions"])]);
  const { domainTools: _d, toolDetail: _t, threatProtection: _p, auditMetadata: _a, ...rest } = v;
  const out: SearchRequest = {
    ...(rest as Omit<SearchRequest, "sources" | "categories" | "scrapeOptions">),
    limit: v.limit ?? DEFAULT_SEARCH_LIMIT,
    lang: v.lang ?? "en",
    timeout: v.timeout ?? DEFAULT_SEARCH_TIMEOUT_MS,
    ignoreInvalidURLs: v.ignoreInvalidURLs ?? false,
    asyncScraping: v.asyncScraping ?? false,
    origin: v.origin ?? "api",
    sources: (v.sources ?? ["web"]).map((s) => (typeof s === "string" ? { type: s } : s)) as SearchSource[],
    scrapeOptions: normalizeScrapeOptions({ ...so, formats: so.formats ?? [] }),
  };
  if (v.categories) out.categories = v.categories.map((c) => (typeof c === "string" ? c : c.type));
  if (out.country === undefined && out.location === undefined) {
    out.country = "us";
    out.countryDefaulted = true;
  }
  return out;
}

/** The top-level message of every validation 400 of `POST /v2/search` (api-v2.md §3.3). */
export const SEARCH_INVALID_BODY_MESSAGE = "Invalid request body";

/**
 * {@link parseSearchBody} for `POST /v2/search` itself. Upstream's search controller catches its own ZodError and
 * answers `{success:false, error:"Invalid request body", details}` (api-v2.md §3.3), not the global handler's
 * message, so a validation 400 here keeps its issues and takes that message. The callers that build search bodies
 * themselves (agent, extract, monitors) use {@link parseSearchBody}.
 */
export function parseSearchRequest(body: unknown): SearchRequest {
  try {
    return parseSearchBody(body);
  } catch (err) {
    if (err instanceof BadRequestError && err.code === "BAD_REQUEST") throw new BadRequestError(SEARCH_INVALID_BODY_MESSAGE, err.details);
    throw err;
  }
}
