/**
 * @module crawl/map
 * `POST /v2/map` (api-v2.md §2.6, §3.3): the URLs of a site, fast, without scraping every page.
 *
 * Flow (all fetches through the injected engine, so through the egress gate):
 * 1. the start URL is checked against the gate (a refused or unresolvable site fails the request as a scrape
 *    would), and the start origin's robots.txt is read (its `Sitemap:` lines; its rules unless `ignoreRobotsTxt`);
 * 2. unless `sitemap:"skip"`: every sitemap {@link sitemapCandidates} names, within the sitemap bounds (at most
 *    `2 × limit + 1000` URLs; with `search`, {@link MAP_MAX_SITEMAP_URLS}, since `limit` caps matches, not reads);
 * 3. unless `sitemap:"only"`: link discovery. The start page is fetched and its `<a href>` links listed; then,
 *    only while fewer than `limit` listable URLs are known (with `search`: fewer than `limit` that `search` keeps,
 *    judged on what is known of each, title included once its page was fetched), further pages of the site are
 *    fetched breadth-first (at most {@link MAP_MAX_PAGES} pages in all, {@link MAP_CONCURRENCY} at a time,
 *    honouring robots.txt, `maxDiscoveryDepth` and the delay: `delay`, else robots `Crawl-delay`, which also makes
 *    fetches serial).
 *    Only HTML is parsed; the titles and descriptions of fetched pages are reported with their URLs.
 * 4. results: the start URL, then sitemap URLs, then discovered links; normalised (fragment dropped, query
 *    dropped with `ignoreQueryParameters`), deduplicated by {@link dedupKey}, kept when on the same host (or, with
 *    `includeSubdomains`, the same registrable domain), under the start path (`filterByPath`, unless
 *    `crawlEntireDomain`), matching `includePaths`/`excludePaths`, and not an asset type (with
 *    `allowExternalLinks`, links to other sites too, as a crawl lists them, but those are never fetched); then
 *    ranked and filtered by `search`; then cut to `limit`. robots.txt governs what map fetches, not what it lists.
 *
 * `timeout` bounds the whole call: past it the map fails with 408 `MAP_TIMEOUT`. Without it, discovery stops
 * after {@link MAP_DEFAULT_BUDGET_MS} and what was found is returned with a `warning`.
 */
import type { MapRequest } from "../api/map.ts";
import type { EgressGate } from "../egress/index.ts";
import type { Engine } from "../engines/types.ts";
import { EgressDeniedError, CrawlboxError } from "../errors.ts";
import { extractLinks } from "../pipeline/links.ts";
import { parseHtml } from "../pipeline/parse.ts";
import { documentBaseUrl } from "../pipeline/url.ts";
import { MapTimeoutError } from "./errors.ts";
import { createCrawlFilter, type CrawlFilter } from "./filter.ts";
import type { RobotsCache, RobotsEntry } from "./robots-cache.ts";
import { robotsAgents } from "./robots.ts";
import { rankBySearch, relevance, words, type RankableLink } from "./search-rank.ts";
import { readSitemaps, sitemapCandidates } from "./sitemap.ts";
import { sleep } from "../scheduler/abortable.ts";

/** Pages fetched for link discovery, the start page included. */
export const MAP_MAX_PAGES = 50;
/** Discovery fetches in flight at once (when there is no delay). */
export const MAP_CONCURRENCY = 4;
/** Deadline of one discovery fetch. */
export const MAP_PAGE_TIMEOUT_MS = 15_000;
/** Discovery budget when the request sets no `timeout`. */
export const MAP_DEFAULT_BUDGET_MS = 60_000;
/** Longest a map may run, whatever its `timeout` says. */
export const MAP_MAX_TIMEOUT_MS = 300_000;
/** Most sitemap URLs a map reads (with `search` whatever the `limit`: matches may come late in the sitemaps). */
export const MAP_MAX_SITEMAP_URLS = 200_000;
/** Largest page parsed for links. */
export const MAP_MAX_PAGE_BYTES = 10 * 1024 * 1024;
/** Document types listed but never fetched for links. */
const NOT_HTML = /\.(pdf|docx?|xlsx?|pptx?|odt|ods|rtf|csv|json|xml|gz|txt)$/i;

/** One map result. */
export interface MapLink {
  url: string;
  title?: string;
  description?: string;
}

/** What a map returns. */
export interface MapResult {
  links: MapLink[];
  warning?: string;
}

/** The request fields map reads (a parsed {@link MapRequest} fits). */
export type MapSiteOptions = { url: string } & Partial<
  Pick<
    MapRequest,
    | "search" | "includeSubdomains" | "ignoreQueryParameters" | "sitemap" | "limit" | "timeout" | "filterByPath"
    | "includePaths" | "excludePaths" | "regexOnFullURL" | "crawlEntireDomain" | "deduplicateSimilarURLs"
    | "ignoreRobotsTxt" | "robotsUserAgent" | "maxDiscoveryDepth" | "delay" | "headers" | "allowExternalLinks"
  >
>;

/** What map needs from the process. */
export interface MapDeps {
  engine: Pick<Engine, "fetch">;
  robots: RobotsCache;
  /** Checked on the start URL first, so a refused site fails the request. */
  gate?: Pick<EgressGate, "check">;
  /** @default MAP_MAX_PAGES */
  maxPages?: number;
  /** @default MAP_DEFAULT_BUDGET_MS */
  defaultBudgetMs?: number;
}

/** Whether {@link rankBySearch} keeps a link for `search`; undefined when it keeps every link (no `search`, or no words). */
function searchMatcher(search: string | undefined): ((link: RankableLink) => boolean) | undefined {
  const q = [...new Set(words(search ?? ""))];
  if (q.length === 0) return undefined;
  const phrase = q.join(" ");
  return (link) => relevance(link, q, phrase) > 0;
}

/** Accumulates results in discovery order, one entry per dedup key, counting those `search` would keep. */
class Found {
  private readonly byKey = new Map<string, MapLink & { group: number; seq: number; match: boolean }>();
  private seq = 0;
  private matches = 0;
  constructor(
    private readonly filter: CrawlFilter,
    private readonly matcher: ((link: RankableLink) => boolean) | undefined,
    /** Whether a link, as found (before normalising), is on the mapped site and so may be fetched for more links. */
    readonly onSite: (raw: string) => boolean,
  ) {}

  /** Whether `search` filters the list (a query without words keeps every link, as {@link rankBySearch} does). */
  get searching(): boolean {
    return this.matcher !== undefined;
  }

  /** Entries that count towards `limit`: every one, or with `search` those it keeps (as known so far). */
  get matching(): number {
    return this.matches;
  }

  /** Adds `raw` (group 0 start, 1 sitemap, 2 discovered); returns its normalised URL when it is listable. */
  add(raw: string, group: number, info: { title?: string; description?: string } = {}): string | undefined {
    const r = this.filter.check(raw.replace(/#.*$/s, ""), { depth: 0 });
    if (!r.ok) return undefined;
    const prev = this.byKey.get(r.key);
    if (prev) {
      prev.title ??= info.title;
      prev.description ??= info.description;
      // A title or description can make a link relevant; relevance only grows, so a match stays one.
      if (!prev.match && (info.title || info.description) && this.matcher?.(prev)) {
        prev.match = true;
        this.matches++;
      }
      return prev.url;
    }
    const entry = { url: r.url, ...info, group, seq: this.seq++, match: false };
    entry.match = this.matcher ? this.matcher(entry) : true;
    if (entry.match) this.matches++;
    this.byKey.set(r.key, entry);
    return r.url;
  }

  links(): MapLink[] {
    return [...this.byKey.values()]
      .sort((a, b) => a.group - b.group || a.seq - b.seq)
      .map(({ url, title, description }) => ({ url, ...(title ? { title } : {}), ...(description ? { description } : {}) }));
  }
}

/** Maps the site at `options.url`. Throws {@link MapTimeoutError} past `timeout`, and gate refusals. */
export async function mapSite(options: MapSiteOptions, deps: MapDeps, signal?: AbortSignal): Promise<MapResult> {
  // Upstream sets no maximum on `timeout`; like scrape we accept any value and cap the wait (a timer longer than
  // 2^31 ms would fire at once).
  const budgetMs = Math.min(options.timeout ?? deps.defaultBudgetMs ?? MAP_DEFAULT_BUDGET_MS, MAP_MAX_TIMEOUT_MS);
  const stop = new AbortController();
  const run = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  const startUrl = new URL(options.url).href;
  const scope = {
    includePaths: options.includePaths,
    excludePaths: options.excludePaths,
    regexOnFullURL: options.regexOnFullURL,
    crawlEntireDomain: options.crawlEntireDomain || options.filterByPath === false,
    allowSubdomains: options.includeSubdomains ?? true,
    ignoreRobotsTxt: true,
    deduplicateSimilarURLs: options.deduplicateSimilarURLs ?? true,
    ignoreQueryParameters: options.ignoreQueryParameters ?? true,
  };
  // The site's own pages are the ones discovery fetches; other sites' links are only listed (allowExternalLinks).
  const site = createCrawlFilter(startUrl, scope);
  const listed = options.allowExternalLinks ? createCrawlFilter(startUrl, { ...scope, allowExternalLinks: true }) : site;
  // Without external links every listed link is on the site: no second check. With them, the link as found is judged
  // (as `add` judged it), not its listed form, whose query `ignoreQueryParameters` may have dropped.
  const onSite = listed === site ? () => true : (raw: string) => site.check(raw.replace(/#.*$/s, ""), { depth: 0 }).ok;
  const found = new Found(listed, searchMatcher(options.search), onSite);
  const warnings: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), budgetMs);
  });
  try {
    const work = discover(options, deps, found, warnings, run, budgetMs);
    work.catch(() => {}); // after a timeout its rejection (the abort) is nobody's business
    const outcome = await Promise.race([work, timedOut]);
    if (outcome === "timeout") {
      stop.abort(new MapTimeoutError(budgetMs));
      if (options.timeout !== undefined) throw new MapTimeoutError(options.timeout);
      warnings.push(`Discovery stopped after ${budgetMs} ms; results may be incomplete.`);
    }
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
  let links = found.links();
  if (options.search) links = rankBySearch(links, options.search);
  links = links.slice(0, options.limit ?? 5000);
  return warnings.length > 0 ? { links, warning: warnings.join(" ") } : { links };
}

async function discover(options: MapSiteOptions, deps: MapDeps, found: Found, warnings: string[], signal: AbortSignal, budgetMs: number): Promise<"done"> {
  const startUrl = new URL(options.url).href;
  const limit = options.limit ?? 5000;
  const mode = options.sitemap ?? "include";
  if (deps.gate) await deps.gate.check(startUrl);
  const robots = await deps.robots.get(startUrl, signal);
  if (robots.status === "unreachable" && robots.errorCode === "EGRESS_DENIED") throw new EgressDeniedError(`Egress refused for ${startUrl}`);
  if (mode !== "only") found.add(startUrl, 0);

  if (mode !== "skip") {
    const result = await readSitemaps(sitemapCandidates(startUrl, robots.sitemaps), {
      engine: deps.engine,
      maxUrls: found.searching ? MAP_MAX_SITEMAP_URLS : Math.min(MAP_MAX_SITEMAP_URLS, limit * 2 + 1000),
      timeoutMs: budgetMs,
      headers: options.headers,
      headersOrigin: startUrl,
      signal,
    });
    for (const u of result.urls) found.add(u, 1);
    if (result.truncated) warnings.push(`Sitemap reading stopped at a bound (${result.fetched.length} sitemaps, ${result.urls.length} URLs).`);
  }
  if (mode !== "only") await crawlLinks(startUrl, options, deps, robots, found, signal, limit);
  return "done";
}

/** Breadth-first link discovery, bounded by pages, depth, `limit` (matching URLs known) and robots.txt. */
async function crawlLinks(startUrl: string, options: MapSiteOptions, deps: MapDeps, robots: RobotsEntry, found: Found, signal: AbortSignal, limit: number): Promise<void> {
  const agents = robotsAgents(options.robotsUserAgent);
  const maxPages = deps.maxPages ?? MAP_MAX_PAGES;
  const maxDepth = options.maxDiscoveryDepth;
  const delayS = options.delay ?? (options.ignoreRobotsTxt ? undefined : robots.crawlDelaySeconds(agents));
  const delayMs = Math.max(0, (delayS ?? 0) * 1000);
  const concurrency = delayMs > 0 ? 1 : MAP_CONCURRENCY;
  const queue: { url: string; depth: number }[] = [{ url: startUrl, depth: 0 }];
  const queued = new Set<string>([startUrl]);
  let fetched = 0;

  const visit = async ({ url, depth }: { url: string; depth: number }) => {
    if (!options.ignoreRobotsTxt) {
      const entry = await deps.robots.get(url, signal);
      if (!entry.isAllowed(url, agents)) return;
    }
    let page;
    try {
      page = await deps.engine.fetch({ url, headers: options.headers, headersOrigin: startUrl, timeoutMs: MAP_PAGE_TIMEOUT_MS, maxBodyBytes: MAP_MAX_PAGE_BYTES }, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      if (err instanceof EgressDeniedError || (err as CrawlboxError)?.code === "SCRAPE_DNS_RESOLUTION_ERROR") {
        if (url === startUrl) throw err;
      }
      return;
    }
    if (page.statusCode >= 400 || page.text === undefined || !/html|xml/.test(page.contentType || "text/html")) return;
    const doc = parseHtml(page.text);
    const title = doc.querySelector("title")?.textContent?.replace(/\s+/g, " ").trim() || undefined;
    const description = doc.querySelector('meta[name="description" i]')?.getAttribute("content")?.trim() || undefined;
    found.add(url, 2, { title, description });
    if (page.finalUrl !== url) found.add(page.finalUrl, 2, { title, description });
    for (const link of extractLinks(doc, documentBaseUrl(doc, page.finalUrl))) {
      const listed = found.add(link, 2);
      if (!listed || queued.has(listed) || !found.onSite(link) || NOT_HTML.test(new URL(listed).pathname)) continue;
      if (maxDepth !== undefined && depth + 1 >= maxDepth) continue;
      queued.add(listed);
      queue.push({ url: listed, depth: depth + 1 });
    }
  };

  if (maxDepth === 0) return;
  while (queue.length > 0 && fetched < maxPages && (fetched === 0 || found.matching < limit)) {
    const batch = queue.splice(0, Math.min(concurrency, maxPages - fetched));
    fetched += batch.length;
    await Promise.all(batch.map(visit));
    if (delayMs > 0 && queue.length > 0) await sleep(delayMs, signal);
  }
}
