/**
 * @module crawl/map
 * `POST /v2/map` (api-v2.md §2.6, §3.3): the URLs of a site, fast, without scraping every page.
 *
 * Flow (all fetches through the injected engine, so through the egress gate):
 * 1. the start URL is checked against the gate (a refused or unresolvable site fails the request as a scrape
 *    would), and the start origin's robots.txt is read (its `Sitemap:` lines; its rules unless `ignoreRobotsTxt`);
 * 2. unless `sitemap:"only"`: the start page is fetched and its `<a href>` links listed. When it lands on another
 *    site (not just `www.` added or dropped; not a social network) the map covers that site from then on, as a crawl
 *    moves its origin (api-v2.md §5.6): its links are judged as that site's own, under the path it landed on, and
 *    its robots.txt and sitemaps are the ones read (the start URL stays listed);
 * 3. unless `sitemap:"skip"`: every sitemap {@link sitemapCandidates} names, within the sitemap bounds (at most
 *    `2 × limit + 1000` listable URLs, counted as they are read; with `search`, {@link MAP_MAX_SITEMAP_URLS}, since
 *    `limit` caps matches, not reads; at most {@link MAP_MAX_SITEMAP_URLS} read in all);
 * 4. unless `sitemap:"only"`: more link discovery, only while fewer than `limit` listable URLs are known (with
 *    `search`: fewer than `limit` that `search` keeps, judged on what is known of each, title included once its
 *    page was fetched): further pages of the site are fetched breadth-first (at most {@link MAP_MAX_PAGES} pages in
 *    all, the start page included, {@link MAP_CONCURRENCY} at a time, honouring robots.txt, `maxDiscoveryDepth` and
 *    the delay: `delay`, else robots `Crawl-delay`, which also makes fetches serial).
 *    Only HTML is parsed; the titles and descriptions of fetched pages are reported with their URLs.
 * 5. results: the start URL (and where it landed), then sitemap URLs, then discovered links; normalised (fragment dropped, query
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
import { isSocialMediaOrEmail } from "./filter.ts";
import { MAP_GROUP, MapListing, type MapLink } from "./map-listing.ts";
export type { MapLink } from "./map-listing.ts";
import { DISCOVERY_SKIPS_TLS_VERIFICATION, type RobotsCache, type RobotsEntry } from "./robots-cache.ts";
import { robotsAgents } from "./robots.ts";
import { rankBySearch } from "./search-rank.ts";
import { createYielder } from "./filter-yielding.ts";
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
/**
 * Most listable sitemap URLs a map keeps with `search` whatever the `limit` (matches may come late in the sitemaps),
 * and most sitemap URLs it looks at, listable or not.
 */
export const MAP_MAX_SITEMAP_URLS = 200_000;
/** Largest page parsed for links. */
export const MAP_MAX_PAGE_BYTES = 10 * 1024 * 1024;
/** Document types listed but never fetched for links. */
const NOT_HTML = /\.(pdf|docx?|xlsx?|pptx?|odt|ods|rtf|csv|json|xml|gz|txt)$/i;

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
  /** Longest a map may run whatever its `timeout` (tests shorten it). @default MAP_MAX_TIMEOUT_MS */
  maxBudgetMs?: number;
}

/** Maps the site at `options.url`. Throws {@link MapTimeoutError} past `timeout`, and gate refusals. */
export async function mapSite(options: MapSiteOptions, deps: MapDeps, signal?: AbortSignal): Promise<MapResult> {
  // Upstream sets no maximum on `timeout`; like scrape we accept any value and cap the wait (a timer longer than
  // 2^31 ms would fire at once).
  const budgetMs = Math.min(options.timeout ?? deps.defaultBudgetMs ?? MAP_DEFAULT_BUDGET_MS, deps.maxBudgetMs ?? MAP_MAX_TIMEOUT_MS);
  const stop = new AbortController();
  const run = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  const found = new MapListing(new URL(options.url).href, options);
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
      // Named by the time waited: a `timeout` above the cap ran to the cap, not to what it asked.
      if (options.timeout !== undefined) throw new MapTimeoutError(budgetMs);
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

/**
 * Where the start page landed when that is another site (not just `www.` added or dropped, and not a social network,
 * which does not become the mapped site): the site mapped from then on, as a crawl moves its origin
 * (jobs/crawl-planner.ts `originAfterRedirect`).
 */
function landedElsewhere(startUrl: string, finalUrl: string): string | undefined {
  try {
    const target = new URL(finalUrl);
    if (isSocialMediaOrEmail(target)) return undefined;
    const bare = (u: URL) => u.hostname.replace(/^www\./, "");
    return bare(target) === bare(new URL(startUrl)) ? undefined : target.href;
  } catch {
    return undefined;
  }
}

async function discover(options: MapSiteOptions, deps: MapDeps, found: MapListing, warnings: string[], signal: AbortSignal, budgetMs: number): Promise<"done"> {
  const startUrl = new URL(options.url).href;
  const limit = options.limit ?? 5000;
  const mode = options.sitemap ?? "include";
  if (deps.gate) await deps.gate.check(startUrl);
  let robots = await deps.robots.get(startUrl, signal);
  if (robots.status === "unreachable" && robots.errorCode === "EGRESS_DENIED") throw new EgressDeniedError(`Egress refused for ${startUrl}`);
  // The site mapped: the start URL's, or the one its start page landed on (fetched first, so that its sitemaps are
  // read and its links judged as that site's own).
  let siteUrl = startUrl;
  let links: LinkDiscovery | undefined;
  if (mode !== "only") {
    found.add(startUrl, MAP_GROUP.start);
    links = linkDiscovery(startUrl, options, deps, found, signal, limit, async (landed) => {
      siteUrl = landed;
      found.moveTo(landed);
      const landedRobots = await deps.robots.get(landed, signal);
      found.add(landed, MAP_GROUP.start);
      robots = landedRobots;
      return landedRobots;
    });
    await links.start(robots);
  }

  if (mode !== "skip") {
    const result = await readSitemaps(sitemapCandidates(siteUrl, robots.sitemaps), {
      engine: deps.engine,
      // Only listable URLs count towards the cap, as they are read: capped before filtering, a map of /blog lost
      // the posts a sitemap listed after other sections. The scan bound ends huge reads.
      keep: (url) => found.accepts(url),
      maxUrls: found.searching ? MAP_MAX_SITEMAP_URLS : Math.min(MAP_MAX_SITEMAP_URLS, limit * 2 + 1000),
      maxUrlsScanned: MAP_MAX_SITEMAP_URLS,
      timeoutMs: budgetMs,
      headers: options.headers,
      headersOrigin: startUrl,
      signal,
    });
    const pause = createYielder();
    for (const u of result.urls) {
      await pause();
      found.add(u, MAP_GROUP.sitemap);
    }
    if (result.truncated) warnings.push(`Sitemap reading stopped at a bound (${result.fetched.length} sitemaps, ${result.urls.length} URLs kept of ${result.scanned} read).`);
  }
  if (links) await links.rest();
  return "done";
}

/** Link discovery in two steps: the start page (which may move the map), then the rest, after the sitemaps. */
interface LinkDiscovery {
  start(robots: RobotsEntry): Promise<void>;
  rest(): Promise<void>;
}

/**
 * Breadth-first link discovery, bounded by pages, depth, `limit` (matching URLs known) and robots.txt.
 * `onLanded` is told, before the start page's links are judged, where it landed when that is another site; it
 * answers with that site's robots.txt (whose `Crawl-delay` counts too).
 */
function linkDiscovery(startUrl: string, options: MapSiteOptions, deps: MapDeps, found: MapListing, signal: AbortSignal, limit: number, onLanded: (landed: string) => Promise<RobotsEntry>): LinkDiscovery {
  const agents = robotsAgents(options.robotsUserAgent);
  const maxPages = deps.maxPages ?? MAP_MAX_PAGES;
  const maxDepth = options.maxDiscoveryDepth;
  // The delay: `delay`, else the longest robots `Crawl-delay` of the sites mapped (the start URL's, the landed one's).
  let delayMs = 0;
  const askDelay = (robots: RobotsEntry) => {
    const delayS = options.delay ?? (options.ignoreRobotsTxt ? undefined : robots.crawlDelaySeconds(agents));
    delayMs = Math.max(delayMs, (delayS ?? 0) * 1000);
  };
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
      // Certificates are not verified, as a scrape's are not by default (DISCOVERY_SKIPS_TLS_VERIFICATION).
      page = await deps.engine.fetch({ url, headers: options.headers, headersOrigin: startUrl, timeoutMs: MAP_PAGE_TIMEOUT_MS, maxBodyBytes: MAP_MAX_PAGE_BYTES, skipTlsVerification: DISCOVERY_SKIPS_TLS_VERIFICATION }, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      if (err instanceof EgressDeniedError || (err as CrawlboxError)?.code === "SCRAPE_DNS_RESOLUTION_ERROR") {
        if (url === startUrl) throw err;
      }
      return;
    }
    if (url === startUrl && page.finalUrl !== url) {
      const landed = landedElsewhere(startUrl, page.finalUrl);
      if (landed) askDelay(await onLanded(landed));
    }
    if (page.statusCode >= 400 || page.text === undefined || !/html|xml/.test(page.contentType || "text/html")) return;
    const doc = parseHtml(page.text);
    const title = doc.querySelector("title")?.textContent?.replace(/\s+/g, " ").trim() || undefined;
    const description = doc.querySelector('meta[name="description" i]')?.getAttribute("content")?.trim() || undefined;
    found.add(url, MAP_GROUP.discovered, { title, description });
    if (page.finalUrl !== url) found.add(page.finalUrl, MAP_GROUP.discovered, { title, description });
    for (const link of extractLinks(doc, documentBaseUrl(doc, page.finalUrl))) {
      const listed = found.add(link, MAP_GROUP.discovered);
      if (!listed || queued.has(listed) || !found.onSite(link) || NOT_HTML.test(new URL(listed).pathname)) continue;
      if (maxDepth !== undefined && depth + 1 >= maxDepth) continue;
      queued.add(listed);
      queue.push({ url: listed, depth: depth + 1 });
    }
  };

  return {
    async start(robots) {
      askDelay(robots);
      if (maxDepth === 0 || maxPages <= 0) return;
      fetched = 1;
      await visit(queue.shift()!);
    },
    async rest() {
      if (maxDepth === 0) return;
      while (queue.length > 0 && fetched < maxPages && found.matching < limit) {
        // With a delay, one page at a time, a pause before each.
        if (delayMs > 0) await sleep(delayMs, signal);
        const batch = queue.splice(0, Math.min(delayMs > 0 ? 1 : MAP_CONCURRENCY, maxPages - fetched));
        fetched += batch.length;
        await Promise.all(batch.map(visit));
      }
    },
  };
}
