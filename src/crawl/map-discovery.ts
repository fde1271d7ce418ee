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
 *
 * Pages are fetched a few at a time and read one at a time in the order they were queued (crawl/map-queue.ts has
 * that order), so a map of an unchanged site is the same list every time: read as each answer came, 5 runs gave 5
 * orders and 5 different sets. A page's many links are judged with the event loop given back every few ms, and a
 * large page is parsed on a parse worker (crawl/map-page-read.ts, crawl/map-page-offload.ts): parsing is one synchronous step, 0.45–0.65 s for
 * an 8 MB page, that held every other request.
 *
 * Without `search`, discovery stops once `limit` URLs are known. With `search` it stops once `limit` matching URLs
 * are known and none of the best min(`limit`, {@link MAP_SEARCH_SETTLED}) of them waits to be fetched: their titles
 * can still reorder them, and a `limit: 1` search for "pricing" stopped at the first weak match
 * (`/blog/post-1-pricing-update`) before `/pricing` was fetched.
 */
import { EgressDeniedError, type CrawlboxError } from "../errors.ts";
import type { Engine } from "../engines/types.ts";
import { sleep } from "../scheduler/abortable.ts";
import { isSocialMediaOrEmail } from "./filter.ts";
import type { MapListing } from "./map-listing.ts";
import type { MapPageReading } from "./map-page-offload.ts";
import { pageReader, type Fetched } from "./map-page-read.ts";
import { DiscoveryQueue, type QueuedPage } from "./map-queue.ts";
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
/**
 * With `search`, the best results known that must have been fetched (or not be waiting to) before discovery stops
 * early: enough for the first screen of results, few enough that a large `limit` met from the sitemaps costs at most
 * a few more fetches.
 */
export const MAP_SEARCH_SETTLED = 10;

/** The request fields discovery reads. */
export interface DiscoveryOptions {
  headers?: Record<string, string>;
  ignoreRobotsTxt?: boolean;
  robotsUserAgent?: string;
  maxDiscoveryDepth?: number;
  /** Seconds between fetches; robots `Crawl-delay` when unset. */
  delay?: number;
  /** Pages told apart as results are (www, scheme, trailing slash, index files folded). @default true */
  deduplicateSimilarURLs?: boolean;
  /** Results are listed without their query: a page's other queries are its variants (crawl/map-queue.ts). @default true */
  ignoreQueryParameters?: boolean;
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
  /** `performance.now()` time by which the map answers: a start page still parsed on a worker then is given up. */
  answerBy: number;
  /** Parse workers for large pages (crawl/map-page-offload.ts); without them pages are parsed on the main thread. */
  parsePool?: MapPageReading["pool"];
  /**
   * Told, before the start page's links are judged, where it landed when that is another site; answers with that
   * site's robots.txt (whose `Crawl-delay` counts too).
   */
  onLanded: (landed: string) => Promise<RobotsEntry>;
}

/**
 * How the start page went: `answered` (any HTTP answer), `timedOut` (its deadline passed), else it failed;
 * `unread`: it answered, but a parse worker was still reading it when the map's time ended (its links are missing).
 */
export interface StartOutcome {
  answered: boolean;
  timedOut: boolean;
  unread?: boolean;
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
  /**
   * Robots.txt's verdict on `url` as cached; when another site's file is not read yet, it is asked for now, while the
   * page waits in the queue (the fetch is shared, bounded by the cache's timeout, and caches its answer), so that
   * taking the page later rarely waits: asked only when each page was taken, six subdomains' files of 15 s cost a
   * map 38.5 s of its 40 (and 16 of the site's 21 pages), one after another. Asked with the map's signal, so the
   * fetch ends when the map answers (unless another caller still waits for it): it ran on for up to 10 s after.
   */
  const robotsNow = (url: string): boolean | undefined => {
    const verdict = ctx.robots.isAllowed(url, agents);
    if (verdict === undefined) ctx.robots.get(url, signal).catch(() => {});
    return verdict;
  };
  const queue = new DiscoveryQueue(
    { url: startUrl, listed: startUrl, depth: 0 },
    {
      maxPages: ctx.maxPages,
      searching: found.searching,
      deduplicateSimilarURLs: options.deduplicateSimilarURLs,
      ignoreQueryParameters: options.ignoreQueryParameters,
      // Asked before a page is queued, so a disallowed one holds no place and takes no fetch (as cached: another
      // site's robots.txt, not read yet, is asked again before the page is fetched).
      robots: options.ignoreRobotsTxt ? undefined : robotsNow,
    },
  );
  let lastFetchAt = -Infinity;

  /**
   * Whether robots.txt lets discovery fetch `url`: the one the map read for the start page (and warns about), else
   * the page's site's, waited for at most `waitMs` (one that does not answer in it counts as unreachable, disallow all).
   */
  const robotsAllow = async (url: string, waitMs: number, known?: RobotsEntry): Promise<boolean> => {
    if (options.ignoreRobotsTxt) return true;
    const entry = known ?? (await ctx.robots.getWithin(url, waitMs, signal));
    return entry.isAllowed(url, agents) === true;
  };

  /**
   * The next pages to fetch, at most `n` in queue order, each allowed by robots.txt before it takes a slot of the
   * page budget: a disallowed one gives its slot back (before, it was taken: 18 of 50 fetches behind `Disallow: /*?`)
   * and the pages after it are taken in its place. The robots.txt files of the pages taken are waited for together.
   */
  const takeAllowed = async (n: number, endAt: number): Promise<QueuedPage[]> => {
    const batch: QueuedPage[] = [];
    for (let taken = queue.take(n); taken.length > 0; taken = queue.take(n - batch.length)) {
      const waitMs = endAt - performance.now() - MAP_MIN_PAGE_MS;
      const allowed = await Promise.all(taken.map((page) => robotsAllow(page.url, waitMs)));
      taken.forEach((page, i) => (allowed[i] ? batch.push(page) : queue.giveBack()));
    }
    return batch;
  };

  /** Fetches one page (robots.txt allowed it): `answered` with its HTML when it has some to read, `timeout`, or `skipped` (a failure). */
  const fetchPage = async ({ url, depth }: QueuedPage, timeoutMs: number): Promise<Fetched> => {
    let page;
    try {
      // Certificates are not verified, as a scrape's are not by default (DISCOVERY_SKIPS_TLS_VERIFICATION).
      page = await ctx.engine.fetch({ url, headers: options.headers, headersOrigin: startUrl, timeoutMs: Math.max(1, Math.round(timeoutMs)), maxBodyBytes: MAP_MAX_PAGE_BYTES, skipTlsVerification: DISCOVERY_SKIPS_TLS_VERIFICATION }, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      const code = (err as CrawlboxError)?.code;
      if (url === startUrl && (err instanceof EgressDeniedError || code === "SCRAPE_DNS_RESOLUTION_ERROR")) throw err;
      return { outcome: code === "SCRAPE_TIMEOUT" ? "timeout" : "skipped" };
    }
    const readable = page.statusCode < 400 && page.text !== undefined && /html|xml/.test(page.contentType || "text/html");
    return { outcome: "answered", url, depth, finalUrl: page.finalUrl, ...(readable ? { html: page.text } : {}) };
  };

  const readPage = pageReader({ found, queue, maxDepth, signal, parsePool: ctx.parsePool });

  /** With `search`, whether one of the best results known (min(limit, MAP_SEARCH_SETTLED)) still waits to be fetched. */
  const bestWaiting = (): boolean => {
    if (!found.searching || queue.length === 0) return false;
    const waiting = queue.waiting();
    return found.best(Math.min(ctx.limit, MAP_SEARCH_SETTLED)).some((u) => waiting.has(u));
  };

  return {
    async start(robots, timeoutMs) {
      askDelay(robots);
      if (maxDepth === 0 || ctx.maxPages <= 0) return { answered: false, timedOut: false };
      lastFetchAt = performance.now();
      const [first] = queue.take(1);
      if (!first || !(await robotsAllow(first.url, timeoutMs, robots))) return { answered: false, timedOut: false };
      const fetched = await fetchPage(first, Math.min(MAP_PAGE_TIMEOUT_MS, timeoutMs));
      if (fetched.outcome !== "answered") return { answered: false, timedOut: fetched.outcome === "timeout" };
      if (fetched.finalUrl !== startUrl) {
        const landed = landedElsewhere(startUrl, fetched.finalUrl);
        if (landed) askDelay(await ctx.onLanded(landed));
      }
      // Its links are judged whatever the time (the map's own time limit stops them); only a worker's parse of it
      // is given up, at the map's answer time. It waits for no busy worker: read here then, as before workers.
      const read = await readPage(fetched, Infinity, ctx.answerBy, false);
      return { answered: true, timedOut: false, ...(read ? {} : { unread: true }) };
    },
    async rest(endAt) {
      if (maxDepth === 0) return undefined;
      while (queue.length > 0 && queue.withinBudget && (found.matching < ctx.limit || bestWaiting())) {
        let now = performance.now();
        // With a delay, one page at a time, a pause before each; never a pause the next fetch would not fit after.
        const beginAt = delayMs > 0 ? Math.max(now, lastFetchAt + delayMs) : now;
        if (endAt - beginAt < MAP_MIN_PAGE_MS) return { reason: beginAt > now ? "delay" : "time", pagesFetched: queue.fetched, pagesLeft: queue.fetchable, delayMs };
        if (beginAt > now) await sleep(beginAt - now, signal);
        const batch = await takeAllowed(delayMs > 0 ? 1 : MAP_CONCURRENCY, endAt);
        if (batch.length === 0) continue; // every page waiting was disallowed: the loop's test says whether more wait
        now = lastFetchAt = performance.now();
        // Fetched together, read one at a time in the order queued: a map of an unchanged site lists the same links
        // in the same order whichever answer comes first (one page's DOM in memory at a time, too).
        const fetches = batch.map((item) => fetchPage(item, Math.min(MAP_PAGE_TIMEOUT_MS, endAt - now)));
        for (const f of fetches) f.catch(() => {}); // a read that throws (the abort) leaves the others unawaited
        let readWhole = true;
        for (const f of fetches) {
          const fetched = await f;
          if (fetched.outcome === "answered" && readWhole) readWhole = await readPage(fetched, endAt);
        }
        if (!readWhole) return { reason: "time", pagesFetched: queue.fetched, pagesLeft: queue.fetchable, delayMs };
      }
      return undefined;
    },
  };
}
