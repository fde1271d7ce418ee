/**
 * @module api/crawl
 * `POST /v2/crawl` (api-v2.md §2.5) and `POST /v2/crawl/params-preview`.
 * Crawler options are exported as a property object because map reuses most of them.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { strictObject, oneOf, UrlField, PromptField, OriginProps, Int } from "./common.ts";
import { scrapeOptionsProps, normalizeScrapeOptions, type ScrapeOptions } from "./scrape-options.ts";
import { WebhookField, WEBHOOK_EVENTS, normalizeWebhook, type Webhook } from "./webhook.ts";
import { refinePathPatterns, refineScrapeOptions } from "./refine.ts";
import { sourceUrlOf, urlAt } from "./url.ts";
import { validateBody, throwIfIssues } from "./validate.ts";
import type { Issue } from "./issues.ts";

/** Default and upper bound of crawl `delay` (seconds). */
export const MAX_CRAWL_DELAY_S = 60;
/** Default crawl `limit`. */
export const DEFAULT_CRAWL_LIMIT = 10_000;

/**
 * Most `includePaths` (and `excludePaths`) patterns, and the longest pattern. Upstream sets none; each pattern is
 * compiled when the request is checked and again when the crawl runs, so 200,001 patterns held the server's event
 * loop for 21 s. Real crawls use a few, generated exclusion lists hundreds.
 */
export const MAX_PATH_PATTERNS = 1000;
export const MAX_PATH_PATTERN_CHARS = 2048;

/** Crawler options (`crawlerOptions` upstream). */
export function crawlerOptionsProps() {
  return {
    includePaths: t.Optional(t.Array(t.String({ maxLength: MAX_PATH_PATTERN_CHARS }), { default: [], maxItems: MAX_PATH_PATTERNS, description: "Regexes a path must match" })),
    excludePaths: t.Optional(t.Array(t.String({ maxLength: MAX_PATH_PATTERN_CHARS }), { default: [], maxItems: MAX_PATH_PATTERNS, description: "Regexes that exclude a path" })),
    maxDiscoveryDepth: t.Optional(t.Number({ minimum: 0 })),
    // A number (upstream's `z.number()`, api-v2.md §2.5): a fraction is floored by parseCrawlBody.
    limit: t.Optional(t.Number({ minimum: 1, default: DEFAULT_CRAWL_LIMIT })),
    crawlEntireDomain: t.Optional(t.Boolean()),
    allowExternalLinks: t.Optional(t.Boolean({ default: false })),
    allowSubdomains: t.Optional(t.Boolean({ default: false })),
    ignoreRobotsTxt: t.Optional(t.Boolean({ default: false })),
    robotsUserAgent: t.Optional(t.String()),
    sitemap: t.Optional(oneOf(["skip", "include", "only"], { default: "include" })),
    deduplicateSimilarURLs: t.Optional(t.Boolean({ default: true })),
    ignoreQueryParameters: t.Optional(t.Boolean({ default: false })),
    regexOnFullURL: t.Optional(t.Boolean({ default: false })),
    delay: t.Optional(
      t.Number({
        exclusiveMinimum: 0,
        maximum: MAX_CRAWL_DELAY_S,
        description: "Seconds between requests",
        errorMessages: { maximum: "The delay parameter is measured in seconds and cannot exceed 60 seconds." },
      }),
    ),
  };
}

const CRAWLER_OPTION_KEYS = Object.keys(crawlerOptionsProps()) as (keyof CrawlerOptionsInput)[];

export const CrawlRequestSchema = strictObject(
  {
    url: UrlField,
    ...crawlerOptionsProps(),
    scrapeOptions: t.Optional(strictObject(scrapeOptionsProps(), { default: {} })),
    webhook: t.Optional(WebhookField),
    maxConcurrency: t.Optional(Int({ minimum: 1 })),
    zeroDataRetention: t.Optional(t.Boolean()),
    prompt: t.Optional(PromptField),
    ...OriginProps,
  },
  { description: "POST /v2/crawl body" },
);

export type CrawlRequestInput = Static<typeof CrawlRequestSchema>;
type CrawlerOptionsInput = Pick<CrawlRequestInput, keyof ReturnType<typeof crawlerOptionsProps>>;
type Req<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: Exclude<T[P], undefined> };

/** Crawler options after defaults. */
export type CrawlerOptions = Req<
  CrawlerOptionsInput,
  "includePaths" | "excludePaths" | "limit" | "allowExternalLinks" | "allowSubdomains" | "ignoreRobotsTxt" | "sitemap" | "deduplicateSimilarURLs" | "ignoreQueryParameters" | "regexOnFullURL"
>;

/** A validated crawl request. */
export interface CrawlRequest {
  url: string;
  sourceURL: string;
  crawlerOptions: CrawlerOptions;
  /** Crawler option keys the caller set explicitly; they override options generated from `prompt`. */
  explicitCrawlerOptions: (keyof CrawlerOptions)[];
  scrapeOptions: ScrapeOptions;
  webhook?: Webhook;
  maxConcurrency?: number;
  zeroDataRetention?: boolean;
  prompt?: string;
  origin: string;
  integration?: string | null;
}

/** Validates, refines (incl. regex compilation) and normalises a crawl body; throws `BadRequestError` (400). */
export function parseCrawlBody(body: unknown): CrawlRequest {
  const raw = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
  const explicit = CRAWLER_OPTION_KEYS.filter((k) => raw[k] !== undefined);
  const v = validateBody(CrawlRequestSchema, body);
  const so = v.scrapeOptions ?? {};
  const issues = [...refinePathPatterns(v), ...refineScrapeOptions(so, ["scrapeOptions"])];
  const url = urlAt(v.url, ["url"], issues);
  const wh = v.webhook === undefined ? undefined : normalizeWebhook(v.webhook, WEBHOOK_EVENTS, ["webhook"]);
  if (wh) issues.push(...wh.issues);
  throwIfIssues(issues);
  const crawlerOptions = {} as Record<string, unknown>;
  for (const k of CRAWLER_OPTION_KEYS) if (v[k] !== undefined) crawlerOptions[k] = v[k];
  if (typeof crawlerOptions.limit === "number") crawlerOptions.limit = Math.floor(crawlerOptions.limit);
  const out: CrawlRequest = {
    url: url!,
    sourceURL: sourceUrlOf(v.url),
    crawlerOptions: crawlerOptions as CrawlerOptions,
    explicitCrawlerOptions: explicit as (keyof CrawlerOptions)[],
    scrapeOptions: normalizeScrapeOptions(so),
    origin: v.origin ?? "api",
  };
  if (wh?.webhook) out.webhook = wh.webhook;
  if (v.maxConcurrency !== undefined) out.maxConcurrency = v.maxConcurrency;
  if (v.zeroDataRetention !== undefined) out.zeroDataRetention = v.zeroDataRetention;
  if (v.prompt !== undefined) out.prompt = v.prompt;
  if (v.integration !== undefined) out.integration = v.integration;
  return out;
}

/** `POST /v2/crawl/params-preview`: an LLM turns `prompt` into crawler options for `url`. */
export const CrawlParamsPreviewSchema = strictObject(
  { url: UrlField, prompt: PromptField, ...OriginProps },
  { description: "POST /v2/crawl/params-preview body" },
);

/** Validates a params-preview body; `url` normalised, `sourceURL` as sent. */
export function parseCrawlParamsPreviewBody(body: unknown): { url: string; sourceURL: string; prompt: string; origin: string } {
  const v = validateBody(CrawlParamsPreviewSchema, body);
  const issues: Issue[] = [];
  const url = urlAt(v.url, ["url"], issues);
  throwIfIssues(issues);
  return { url: url!, sourceURL: sourceUrlOf(v.url), prompt: v.prompt, origin: v.origin ?? "api" };
}
