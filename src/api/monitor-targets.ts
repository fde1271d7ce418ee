/**
 * @module api/monitor-targets
 * A monitor's targets: the schema of each kind in a body (`scrape`, `crawl`, `search`), the shapes they are stored
 * in, what each may cost a check, and their validation ({@link targets}: ids, normalised URLs and scrape options, a
 * crawl target checked as the crawl body it becomes, the monitor-wide page limit). Apart from api/monitor.ts, which
 * holds the rest of a create or update body, because the check (monitor/check.ts) and the store use these shapes
 * and limits without the body around them.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { BadRequestError } from "../errors.ts";
import { parseCrawlBody } from "./crawl.ts";
import { Int, oneOf, strictObject, UrlField } from "./common.ts";
import type { Issue } from "./issues.ts";
import { ScrapeOptionsSchema, normalizeScrapeOptions, type ScrapeOptions } from "./scrape-options.ts";
import { refineScrapeOptions } from "./refine.ts";
import { urlAt } from "./url.ts";
import { validateBody } from "./validate.ts";

/**
 * Most pages one check of a monitor reads: its scrape targets' URLs plus its crawl targets' `limit`s (a crawl target
 * without one counts at its default, this same number), all targets together. Search targets are priced per search
 * and not counted here (they scrape nothing).
 */
export const MAX_MONITOR_URLS = 100;

/** Most queries of one search target, and results per query (default {@link DEFAULT_MONITOR_RESULTS}). */
export const MAX_MONITOR_QUERIES = 10;
export const MAX_MONITOR_RESULTS = 50;
export const DEFAULT_MONITOR_RESULTS = 10;

export const TargetSchema = t.Union([
  strictObject({ id: t.Optional(t.String({ maxLength: 100 })), type: t.Literal("scrape"), urls: t.Array(UrlField, { minItems: 1, maxItems: MAX_MONITOR_URLS }), scrapeOptions: t.Optional(ScrapeOptionsSchema) }),
  strictObject({ id: t.Optional(t.String({ maxLength: 100 })), type: t.Literal("crawl"), url: UrlField, crawlOptions: t.Optional(
      t.Record(t.String(), t.Unknown(), {
        description: `The SDK's CrawlOptions: a POST /v2/crawl body without url, checked as one (unknown options are a 400); limit at most ${MAX_MONITOR_URLS}, and that by default`,
      }),
    ), scrapeOptions: t.Optional(ScrapeOptionsSchema) }),
  strictObject({
    id: t.Optional(t.String({ maxLength: 100 })),
    type: t.Literal("search"),
    queries: t.Array(t.String({ minLength: 1, maxLength: 500 }), {
      minItems: 1,
      maxItems: MAX_MONITOR_QUERIES,
      errorMessages: { maxItems: `A search target has at most ${MAX_MONITOR_QUERIES} queries.` },
    }),
    searchWindow: t.Optional(oneOf(["5m", "15m", "1h", "6h", "24h", "7d"])),
    includeDomains: t.Optional(t.Array(t.String())),
    excludeDomains: t.Optional(t.Array(t.String())),
    maxResults: t.Optional(
      Int({
        minimum: 1,
        maximum: MAX_MONITOR_RESULTS,
        default: DEFAULT_MONITOR_RESULTS,
        description: "Results read per query",
        errorMessages: { maximum: `A search target reads at most ${MAX_MONITOR_RESULTS} results per query.` },
      }),
    ),
  }),
]);

/** A scrape target as stored: its id, its URLs normalised, its scrape options normalised. */
export interface MonitorScrapeTarget {
  id: string;
  type: "scrape";
  urls: string[];
  scrapeOptions: ScrapeOptions;
}

/** A crawl target as stored: the crawl's start URL and its crawler options (a `limit` of at most 100 pages). */
export interface MonitorCrawlTarget {
  id: string;
  type: "crawl";
  url: string;
  crawlOptions: Record<string, unknown>;
  scrapeOptions: ScrapeOptions;
}

/** A search target as stored: its queries and filters; `maxResults` per query (default 10). */
export interface MonitorSearchTarget {
  id: string;
  type: "search";
  queries: string[];
  searchWindow?: "5m" | "15m" | "1h" | "6h" | "24h" | "7d";
  includeDomains?: string[];
  excludeDomains?: string[];
  maxResults: number;
}

/** A target crawlbox runs. */
export type MonitorTarget = MonitorScrapeTarget | MonitorCrawlTarget | MonitorSearchTarget;

/**
 * What a target may cost a check at most, at 1 credit a page: its URLs, its crawl's page limit, or its searches
 * (2 credits per started 10 results, per query). Quota checks and `estimatedCreditsPerMonth` use it.
 */
export function targetPages(target: MonitorTarget): number {
  if (target.type === "scrape") return target.urls.length;
  if (target.type === "crawl") return Number(target.crawlOptions.limit);
  return target.queries.length * 2 * Math.ceil(target.maxResults / 10);
}

/** What all of a monitor's targets may cost one check at most ({@link targetPages} summed). */
export function monitorPages(targets: readonly MonitorTarget[]): number {
  return targets.reduce((n, t) => n + targetPages(t), 0);
}

type TargetInput = Static<typeof TargetSchema>;

/** A crawl target, checked as the crawl body it becomes; its issues are reported under the target's own path. */
function crawlTarget(target: Extract<TargetInput, { type: "crawl" }>, id: string, i: number, issues: Issue[]): MonitorCrawlTarget | undefined {
  // The default limit is the most a monitor may read: a crawl target without one counts as MAX_MONITOR_URLS pages.
  const options = { limit: MAX_MONITOR_URLS, ...(target.crawlOptions ?? {}) };
  try {
    // Checked as the crawl body it becomes: the SDK's CrawlOptions is a crawl body's options (webhook, prompt and
    // the like included, of which the check keeps its crawler options). The target's url and scrapeOptions win.
    const { url: _url, ...rest } = options as Record<string, unknown>;
    const req = parseCrawlBody({ ...rest, url: target.url, scrapeOptions: target.scrapeOptions ?? rest.scrapeOptions ?? {} });
    if (req.crawlerOptions.limit > MAX_MONITOR_URLS) {
      issues.push({ code: "custom", path: ["targets", i, "crawlOptions", "limit"], message: `A monitor's crawl reads at most ${MAX_MONITOR_URLS} pages.` });
    }
    return { id, type: "crawl", url: req.url, crawlOptions: req.crawlerOptions as Record<string, unknown>, scrapeOptions: req.scrapeOptions };
  } catch (err) {
    if (!(err instanceof BadRequestError)) throw err;
    const found = Array.isArray(err.details) ? (err.details as Issue[]) : [{ code: "custom", path: [], message: err.message } as Issue];
    for (const x of found) {
      const [head, ...rest] = x.path;
      const path = head === "url" || head === "scrapeOptions" ? [head, ...rest] : ["crawlOptions", ...(head === undefined ? [] : [head, ...rest])];
      issues.push({ ...x, path: ["targets", i, ...path] });
    }
    return undefined;
  }
}

/**
 * The targets as stored, an id-less one named by its place (`target-1`, …). With `provisionalIds` (an update) those
 * names are not final (monitor/target-ids.ts), so only the ids the body gave must differ.
 */
export function targets(input: TargetInput[], issues: Issue[], provisionalIds = false): MonitorTarget[] {
  const out: MonitorTarget[] = [];
  const ids = new Set<string>();
  input.forEach((target, i) => {
    const id = target.id ?? `target-${i + 1}`;
    if (!provisionalIds || target.id !== undefined) {
      if (ids.has(id)) issues.push({ code: "custom", path: ["targets", i, "id"], message: `Two targets have the id ${JSON.stringify(id)}.` });
      ids.add(id);
    }
    if (target.type === "search") {
      // The schema enforces the number of queries and maxResults (MAX_MONITOR_QUERIES, MAX_MONITOR_RESULTS).
      const maxResults = target.maxResults ?? DEFAULT_MONITOR_RESULTS;
      const s: MonitorSearchTarget = { id, type: "search", queries: target.queries, maxResults };
      if (target.searchWindow) s.searchWindow = target.searchWindow;
      if (target.includeDomains) s.includeDomains = target.includeDomains;
      if (target.excludeDomains) s.excludeDomains = target.excludeDomains;
      out.push(s);
      return;
    }
    if (target.type === "crawl") {
      const crawl = crawlTarget(target, id, i, issues);
      if (crawl) out.push(crawl);
      return;
    }
    const normalised = target.urls.map((u, j) => urlAt(u, ["targets", i, "urls", j], issues)).filter((u): u is string => u !== undefined);
    // The shape was checked with the body; this applies the options' defaults, as a scrape body's are.
    const options = validateBody(ScrapeOptionsSchema, target.scrapeOptions ?? {});
    issues.push(...refineScrapeOptions(options, ["targets", i, "scrapeOptions"]));
    out.push({ id, type: "scrape", urls: [...new Set(normalised)], scrapeOptions: normalizeScrapeOptions(options) });
  });
  // Scrape URLs and crawl limits together (docs/monitor.md "Limits and cost"): three crawls of 100 pages are 300.
  const pages = out.reduce((n, t) => (t.type === "search" ? n : n + targetPages(t)), 0);
  if (pages > MAX_MONITOR_URLS) {
    issues.push({ code: "custom", path: ["targets"], message: `A monitor checks at most ${MAX_MONITOR_URLS} pages (its scrape targets' URLs plus its crawl targets' limits, ${MAX_MONITOR_URLS} for a crawl without one); these targets have ${pages}.` });
  }
  return out;
}
