/**
 * @module crawl/map-discovery
 * A map's link discovery (crawl/map.ts): pages of the site fetched breadth-first for their `<a href>` links,
 * bounded by pages, depth, `limit` (matching URLs known), robots.txt, and time.
 *
 * Time comes first. Upstream's map fetches no page at all and answers in about a second; discovery here is what a
 * map adds for sites without a (complete) sitemap, and it must never be what makes a map slow or fail. So each
 * step is given an end time, and discovery stops rather than run past it: no fetch is begun with less than
 * {@link MAP_MIN_PAGE_MS} left, each fetch's own deadline ends there, and the delay between fetches (`delay`, else
 * robots `Crawl-delay`, kept for politeness) is waited only when the next fetch still fits: with `Crawl-delay: 10`
 * a map waited 10 s per page, 60 s in all, or answered 408 with nothing past a `timeout` of 30 s.
 */
import { EgressDeniedError, type CrawlboxError } from "../errors.ts";
import type { Engine } from "../engines/types.ts";
import { extractLinks } from "../pipeline/links.ts";
import { parseHtml } from "../pipeline/parse.ts";
import { documentBaseUrl } from "../pipeline/url.ts";
import { sleep } from "../scheduler/abortable.ts";
import { isSocialMediaOrEmail } from "./filter.ts";
import { MAP_GROUP, type MapListing } from "./map-listing.ts";
import { DISCOVERY_SKIPS_TLS_VERIFICATION, type RobotsCache, type RobotsEntry } from "./robots-cache.ts";
import { robotsAgents } from "./robots.ts";

/** Discovery fetches in flight at once (when there is no delay). */
export const MAP_CONCURRENCY = 4;
/** Longest one discovery fetch may take (less when the map's time ends sooner). */
export const MAP_PAGE_TIMEOUT_MS = 15_000;
/** Least time left for a discovery fetch to be begun: a page cut off half-way gives nothing. */
export const MAP_MIN_PAGE_MS = 500;
/** Largest page parsed for links. */
export const MAP_MAX_PAGE_BYTES = 10 * 1024 * 1024;
/** Document types listed but never fetched for links. */
const NOT_HTML = /\.(pdf|docx?|xlsx?|pptx?|odt|ods|rtf|csv|json|xml|gz|txt)$/i;

/** The request fields discovery reads. */
export interface DiscoveryOptions {
  headers?: Record<string, string>;
  ignoreRobotsTxt?: boolean;
  robotsUserAgent?: string;
  maxDiscoveryDepth?: number;
  /** Seconds between fetches; robots `Crawl-delay` when unset. */
  delay?: number;
}

/** What discovery needs from the map. */
export interface DiscoveryContext {
  engine: Pick<Engine, "fetch">;
  robots: RobotsCache;
  found: MapListing;
  maxPages: number;
  /** Matching URLs that end discovery. */
  limit: number;
  signal: AbortSignal;
  /**
   * Told, before the start page's links are judged, where it landed when that is another site; answers with that
   * site's robots.txt (whose `Crawl-delay` counts too).
   */
  onLanded: (landed: string) => Promise<RobotsEntry>;
}

/** How the start page went: `answered` (any HTTP answer), `timedOut` (its deadline passed), else it failed. */
export interface StartOutcome {
  answered: boolean;
  timedOut: boolean;
}

/** Why discovery stopped with pages left to fetch: its time ended (`time`), or the delay did not fit (`delay`). */
export interface DiscoveryCut {
  reason: "time" | "delay";
  pagesFetched: number;
  pagesLeft: number;
  delayMs: number;
}

/** Link discovery in two steps: the start page (which may move the map), then the rest, after the sitemaps. */
export interface LinkDiscovery {
  start(robots: RobotsEntry, timeoutMs: number): Promise<StartOutcome>;
  /** Fetches more pages until done or `endAt` (a `performance.now()` time); says why when cut short. */
  rest(endAt: number): Promise<DiscoveryCut | undefined>;
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

/** Breadth-first link discovery from `startUrl`. */
export function linkDiscovery(startUrl: string, options: DiscoveryOptions, ctx: DiscoveryContext): LinkDiscovery {
  const { found, signal } = ctx;
  const agents = robotsAgents(options.robotsUserAgent);
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
  let lastFetchAt = -Infinity;

  /** Fetches one page and lists its links: `answered`, `timeout`, or `skipped` (robots, failure). */
  const visit = async ({ url, depth }: { url: string; depth: number }, timeoutMs: number, known?: RobotsEntry): Promise<"answered" | "timeout" | "skipped"> => {
    if (!options.ignoreRobotsTxt) {
      // The start page's robots.txt is the one the map read (and warns about); another page's is waited for within
      // the page's time: one that does not answer in it counts as unreachable (disallow all).
      const entry = known ?? (await ctx.robots.getWithin(url, timeoutMs, signal));
      if (!entry.isAllowed(url, agents)) return "skipped";
    }
    let page;
    try {
      // Certificates are not verified, as a scrape's are not by default (DISCOVERY_SKIPS_TLS_VERIFICATION).
      page = await ctx.engine.fetch({ url, headers: options.headers, headersOrigin: startUrl, timeoutMs: Math.max(1, Math.round(timeoutMs)), maxBodyBytes: MAP_MAX_PAGE_BYTES, skipTlsVerification: DISCOVERY_SKIPS_TLS_VERIFICATION }, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      const code = (err as CrawlboxError)?.code;
      if (url === startUrl && (err instanceof EgressDeniedError || code === "SCRAPE_DNS_RESOLUTION_ERROR")) throw err;
      return code === "SCRAPE_TIMEOUT" ? "timeout" : "skipped";
    }
    if (url === startUrl && page.finalUrl !== url) {
      const landed = landedElsewhere(startUrl, page.finalUrl);
      if (landed) askDelay(await ctx.onLanded(landed));
    }
    if (page.statusCode >= 400 || page.text === undefined || !/html|xml/.test(page.contentType || "text/html")) return "answered";
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
    return "answered";
  };

  return {
    async start(robots, timeoutMs) {
      askDelay(robots);
      if (maxDepth === 0 || ctx.maxPages <= 0) return { answered: false, timedOut: false };
      fetched = 1;
      lastFetchAt = performance.now();
      const outcome = await visit(queue.shift()!, Math.min(MAP_PAGE_TIMEOUT_MS, timeoutMs), robots);
      return { answered: outcome === "answered", timedOut: outcome === "timeout" };
    },
    async rest(endAt) {
      if (maxDepth === 0) return undefined;
      while (queue.length > 0 && fetched < ctx.maxPages && found.matching < ctx.limit) {
        let now = performance.now();
        // With a delay, one page at a time, a pause before each; never a pause the next fetch would not fit after.
        const beginAt = delayMs > 0 ? Math.max(now, lastFetchAt + delayMs) : now;
        if (endAt - beginAt < MAP_MIN_PAGE_MS) return { reason: beginAt > now ? "delay" : "time", pagesFetched: fetched, pagesLeft: queue.length, delayMs };
        if (beginAt > now) await sleep(beginAt - now, signal);
        now = lastFetchAt = performance.now();
        const batch = queue.splice(0, Math.min(delayMs > 0 ? 1 : MAP_CONCURRENCY, ctx.maxPages - fetched));
        fetched += batch.length;
        await Promise.all(batch.map((item) => visit(item, Math.min(MAP_PAGE_TIMEOUT_MS, endAt - now))));
      }
      return undefined;
    },
  };
}
