/**
 * @module api/v1
 * Firecrawl's /v1 request bodies as the /v2 bodies they mean, and /v2 answers in /v1's shapes: older clients (the
 * SDKs' v1 classes, LangChain's Firecrawl loaders, scripts written for v1) work against crawlbox through the same
 * services and the same validation as /v2 (docs/api.md "The /v1 API"). What changed between the versions:
 * - scrape: `formats` strings `"screenshot@fullPage"`, `"extract"` and `"json"` (with `extract` / `jsonOptions`
 *   holding the schema and prompts, each required with its format and refused without it, as upstream),
 *   `"changeTracking"` (with `changeTrackingOptions`), `"content"` (v0's markdown);
 *   `parsePDF: false` is `parsers: []`; the deprecated `geolocation` is `location`; the answer's JSON is under
 *   `extract` when `"extract"` was asked for;
 * - crawl: `ignoreSitemap` is `sitemap: "skip"`, `allowBackwardLinks` is `crawlEntireDomain`, and `maxDepth` (the
 *   most path segments below the start URL's, 10 unless given; the start URL no deeper than it) becomes an
 *   `excludePaths` pattern (api/v1-crawler-options.ts);
 * - map: the same crawler options as a crawl, `sitemapOnly` is `sitemap: "only"`, and the links are strings;
 * - defaults: every body with scrape options (scrape, batch, crawl, search, extract) fetches fresh (`maxAge` 0) and
 *   verifies certificates (`skipTlsVerification` false) unless it says otherwise, as v1's schema defaulted them
 *   (/v2: a 2-day `maxAge`, and no verification unless headers or actions are given); search's `limit` is 5;
 * - search: the results are `data: [...]`, not `data.web`;
 * - extract: an invalid URL is a 400 (v1 validated every URL); batch scrape: the same unless `ignoreInvalidURLs`;
 *   a falsy `schema` (the Python SDK's v1 `extract` sends `null` without one) is no schema;
 * - usage: `remaining_credits`, `plan_credits`, … in snake_case, as v1 answered them.
 */
import { BadRequestError } from "../errors.ts";
import { assertStartWithinMaxDepth, crawlerOptionsFromV1, DEFAULT_V1_CRAWL_MAX_DEPTH } from "./v1-crawler-options.ts";
import { badRequest } from "./validate.ts";

type Body = Record<string, unknown>;

const isObject = (v: unknown): v is Body => typeof v === "object" && v !== null && !Array.isArray(v);

/** v1's prompts for the JSON format: the system prompt first, as v1 sent it before the user's. */
function jsonPrompt(o: unknown): string | undefined {
  if (!isObject(o)) return undefined;
  const parts = [o.systemPrompt, o.prompt].filter((p): p is string => typeof p === "string" && p.trim() !== "");
  return parts.length > 0 ? parts.join("\n\n") : undefined;
}

/** Upstream v1's 400 when the `extract` / `json` formats and their options do not come together. */
export const JSON_FORMAT_OPTIONS_MESSAGE = "When 'extract' or 'json' format is specified, corresponding options must be provided, and vice versa";

/**
 * Upstream v1's `extractRefine`, on every body with scrape options (scrape, batch, crawl, search, extract): the
 * `"extract"` format comes with `extract` and `"json"` with `jsonOptions`, and neither option without its
 * format (an option alone would be silently ignored, a format alone has no schema or prompt to extract by).
 * Throws `BadRequestError` (400).
 */
function assertJsonFormatsHaveOptions(formats: unknown[], extract: unknown, jsonOptions: unknown): void {
  if (formats.includes("extract") !== (extract !== undefined) || formats.includes("json") !== (jsonOptions !== undefined)) {
    throw badRequest([{ code: "custom", path: [], message: JSON_FORMAT_OPTIONS_MESSAGE }]);
  }
}

/**
 * Upstream v1's scrape-option defaults that /v2 changed: a page is fetched fresh (/v2: a copy up to 2 days old
 * from the cache, as Firecrawl's v1-to-v2 migration guide lists) and its certificate verified (/v2: not, unless
 * headers or actions are given).
 */
export const V1_SCRAPE_DEFAULTS: Readonly<Body> = { maxAge: 0, skipTlsVerification: false };

/** Upstream v1's search `limit` when none is given (/v2's is 10). */
export const DEFAULT_V1_SEARCH_LIMIT = 5;

/**
 * v1 scrape options (flat, as in a scrape or batch body, or `scrapeOptions`) as v2 scrape options, with v1's
 * defaults ({@link V1_SCRAPE_DEFAULTS}) for the options not given.
 */
export function scrapeOptionsFromV1(v1: Body): Body {
  const { extract, jsonOptions, changeTrackingOptions, parsePDF, agent, formats, geolocation, ...rest } = v1;
  void agent; // v1's FIRE-1 agent option: v2 has no such scrape option; the page is scraped as it is
  const out: Body = { ...rest };
  for (const [k, v] of Object.entries(V1_SCRAPE_DEFAULTS)) if (out[k] === undefined) out[k] = v;
  // v1's deprecated name for `location` (same `{country, languages}`); `location` wins when both are given.
  if (geolocation !== undefined && out.location === undefined) out.location = geolocation;
  if (formats !== undefined && !Array.isArray(formats)) throw new BadRequestError("formats must be an array.", [{ code: "invalid_type", path: ["formats"], message: "Expected array" }]);
  assertJsonFormatsHaveOptions(formats ?? [], extract, jsonOptions);
  if (formats !== undefined) {
    const v2: unknown[] = [];
    for (const f of formats) {
      if (f === "content") v2.push("markdown");
      else if (f === "screenshot@fullPage") v2.push({ type: "screenshot", fullPage: true });
      else if (f === "extract" || f === "json") {
        const source = f === "extract" ? extract : jsonOptions;
        const prompt = jsonPrompt(source);
        const schema = isObject(source) ? source.schema : undefined;
        const check = isObject(source) && source.checkPromptInjection === true;
        if (!v2.some((x) => isObject(x) && x.type === "json")) {
          v2.push({ type: "json", ...(schema !== undefined ? { schema } : {}), ...(prompt ? { prompt } : {}), ...(check ? { checkPromptInjection: true } : {}) });
        }
      } else if (f === "changeTracking") v2.push({ type: "changeTracking", ...(isObject(changeTrackingOptions) ? changeTrackingOptions : {}) });
      else v2.push(f);
    }
    out.formats = v2;
  }
  if (parsePDF === false) out.parsers = [];
  return out;
}

/** A v1 scrape body as a v2 scrape body. */
export function scrapeBodyFromV1(body: unknown): Body {
  if (!isObject(body)) return {};
  return scrapeOptionsFromV1(body);
}

/**
 * A body's `scrapeOptions` as v2's: converted, with v1's defaults when absent (upstream's v1 defaulted the
 * object), and anything else but an object passed on for /v2 to refuse.
 */
function nestedScrapeOptions(scrapeOptions: unknown): unknown {
  if (scrapeOptions === undefined) return scrapeOptionsFromV1({});
  return isObject(scrapeOptions) ? scrapeOptionsFromV1(scrapeOptions) : scrapeOptions;
}

/** A v1 crawl body as a v2 crawl body; `maxDepth` is upstream v1's default when not given. */
export function crawlBodyFromV1(body: unknown): Body {
  if (!isObject(body)) return {};
  const { scrapeOptions, ...rest } = body;
  const maxDepth = rest.maxDepth === undefined ? DEFAULT_V1_CRAWL_MAX_DEPTH : rest.maxDepth;
  const out = crawlerOptionsFromV1({ ...rest, maxDepth });
  assertStartWithinMaxDepth(rest.url, maxDepth as number); // an integer: crawlerOptionsFromV1 refused anything else
  out.scrapeOptions = nestedScrapeOptions(scrapeOptions);
  return out;
}

/**
 * A v1 batch-scrape body (scrape options flattened beside `urls`) as a v2 one. `ignoreInvalidURLs` is false unless
 * given, as upstream's v1 (an invalid URL is a 400); /v2's default is true.
 */
export function batchBodyFromV1(body: unknown): Body {
  if (!isObject(body)) return {};
  const { urls, webhook, ignoreInvalidURLs = false, maxConcurrency, zeroDataRetention, origin, integration, appendToId, ...options } = body;
  const out: Body = { ...scrapeOptionsFromV1(options), urls };
  for (const [k, v] of Object.entries({ webhook, ignoreInvalidURLs, maxConcurrency, zeroDataRetention, origin, integration, appendToId })) if (v !== undefined) out[k] = v;
  return out;
}

/**
 * A v1 map body as a v2 map body: the crawler options as a crawl's (upstream's v1 map schema is built from them),
 * `sitemapOnly` as `sitemap: "only"`, and upstream's test-only `useMock` dropped. `maxDepth` applies only when
 * given: upstream's map schema defaults it to 10 but its map never filters by it, so a default would drop links
 * upstream lists.
 */
export function mapBodyFromV1(body: unknown): Body {
  if (!isObject(body)) return {};
  const { sitemapOnly, useMock, ...rest } = body;
  void useMock; // upstream replays recorded fetches with it; crawlbox has no recordings
  const out = crawlerOptionsFromV1(rest);
  if (sitemapOnly === true) out.sitemap = "only";
  return out;
}

/** A v1 search body as a v2 search body: `limit` is v1's 5 unless given. */
export function searchBodyFromV1(body: unknown): Body {
  if (!isObject(body)) return {};
  const { scrapeOptions, limit = DEFAULT_V1_SEARCH_LIMIT, ...rest } = body;
  return { ...rest, limit, scrapeOptions: nestedScrapeOptions(scrapeOptions) };
}

/**
 * A v1 extract body as a v2 extract body (`agent` keeps only what v2 accepts). Every URL must be valid, as in
 * upstream's v1, whose schema validates `urls` before its `ignoreInvalidURLs` (default false) is read: that flag
 * only let through URLs upstream's blocklist refused, and crawlbox has none. /v2's default (true) would answer
 * 200 and report them in `invalidURLs`. A falsy `schema` is no schema: upstream's v1 schema let it through
 * (`z.any()`, refined only when truthy), and the Python SDK's v1 `extract` sends `"schema": null` with a prompt
 * alone; /v2 refuses anything but an object.
 */
export function extractBodyFromV1(body: unknown): Body {
  if (!isObject(body)) return {};
  const { scrapeOptions, agent, ignoreInvalidURLs, schema, ...rest } = body;
  // A value that is not a boolean is passed on for /v2 to refuse, as upstream's schema would.
  const out: Body = { ...rest, ignoreInvalidURLs: ignoreInvalidURLs === undefined || typeof ignoreInvalidURLs === "boolean" ? false : ignoreInvalidURLs };
  if (schema) out.schema = schema;
  out.scrapeOptions = nestedScrapeOptions(scrapeOptions);
  if (isObject(agent) && typeof agent.model === "string") out.agent = { model: agent.model };
  return out;
}

/**
 * A v2 document in v1's shape: its JSON answer under `extract` as well as `json` (v1 clients read either, depending
 * on the format they asked for).
 */
export function documentToV1(doc: unknown): unknown {
  return isObject(doc) && doc.json !== undefined && doc.extract === undefined ? { ...doc, extract: doc.json } : doc;
}

/**
 * `GET /v2/team/credit-usage`'s answer in v1's snake_case shape (the v1 SDK's `CreditUsageResponseV1`, upstream's
 * v1 controller): v1 clients read `data.remaining_credits` and would find nothing under /v2's camelCase names.
 */
export function creditUsageToV1(json: Body): Body {
  const d = isObject(json.data) ? json.data : {};
  return { success: json.success, data: { remaining_credits: d.remainingCredits, plan_credits: d.planCredits, billing_period_start: d.billingPeriodStart ?? null, billing_period_end: d.billingPeriodEnd ?? null } };
}

/** `GET /v2/team/token-usage`'s answer in v1's snake_case shape (the v1 SDK's `TokenUsageResponseV1`). */
export function tokenUsageToV1(json: Body): Body {
  const d = isObject(json.data) ? json.data : {};
  return { success: json.success, data: { remaining_tokens: d.remainingTokens, plan_tokens: d.planTokens, billing_period_start: d.billingPeriodStart ?? null, billing_period_end: d.billingPeriodEnd ?? null } };
}
