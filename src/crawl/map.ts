import type { MapRequest } from "../api/map.ts";
import type { EgressGate } from "../egress/index.ts";
import type { Engine } from "../engines/types.ts";
import { EgressDeniedError } from "../errors.ts";
import { MapTimeoutError } from "./errors.ts";
import { linkDiscovery, type DiscoveryCut } from "./map-discovery.ts";
import { MAP_GROUP, MapListing, type MapLink } from "./map-listing.ts";
import { readMapSitemaps } from "./map-sitemaps.ts";
import type { RobotsCache, RobotsEntry } from "./robots-cache.ts";
import type { MapPageReading } from "./map-page-offload.ts";
export type { MapLink } from "./map-listing.ts";

/** Pages fetched for link discovery, the start page included. */
export const MAP_MAX_PAGES = 50;
/** A map's budget when the request sets no `timeout`: the start page and sitemaps may take that long. */
export const MAP_DEFAULT_BUDGET_MS = 60_000;
/**
 * Page discovery beyond the start page, when the request sets no `timeout`: a few seconds, as a user expects of a
 * "fast" map; a `timeout` gives discovery what is left of it instead.
 */
export const MAP_DISCOVERY_BUDGET_MS = 5_000;
/** Longest a map may run, whatever its `timeout` says. */
export const MAP_MAX_TIMEOUT_MS = 300_000;

/** Time kept at the end of a budget to stop the steps and assemble the answer: 5 %, within 50 ms to 1 s. */
export function answerMarginMs(budgetMs: number): number {
  return Math.min(1000, Math.max(50, Math.round(budgetMs * 0.05)));
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
  /** Parse workers that read large pages off the main thread (crawl/map-page-offload.ts); none: all are read here. */
  parsePool?: MapPageReading["pool"];
  /** @default MAP_MAX_PAGES */
  maxPages?: number;
  /** @default MAP_DEFAULT_BUDGET_MS */
  defaultBudgetMs?: number;
  /** Page discovery without `timeout` (tests shorten it). @default MAP_DISCOVERY_BUDGET_MS */
  discoveryBudgetMs?: number;
  /** Longest a map may run whatever its `timeout` (tests shorten it). @default MAP_MAX_TIMEOUT_MS */
  maxBudgetMs?: number;
}

/** What the steps of one map learnt, for its answer and its 408 (a map that learnt nothing before its `timeout`). */
interface MapProgress {
  /** The start page gave an HTTP answer (any status). */
  startAnswered: boolean;
  /** Time cut a step short (the start page, the sitemaps, discovery). */
  cutByTime: boolean;
  warnings: string[];
}

/**
 * Maps the site at `options.url`. Throws {@link MapTimeoutError} when `timeout` passed before anything was learnt,
 * and gate refusals.
 */
export async function mapSite(options: MapSiteOptions, deps: MapDeps, signal?: AbortSignal): Promise<MapResult> {
  // Upstream sets no maximum on `timeout`; like scrape we accept any value and cap the wait (a timer longer than
  // 2^31 ms would fire at once).
  const budgetMs = Math.min(options.timeout ?? deps.defaultBudgetMs ?? MAP_DEFAULT_BUDGET_MS, deps.maxBudgetMs ?? MAP_MAX_TIMEOUT_MS);
  const answerBy = performance.now() + budgetMs - answerMarginMs(budgetMs);
  const stop = new AbortController();
  const run = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  const startUrl = new URL(options.url).href;
  const found = new MapListing(startUrl, options);
  const progress: MapProgress = { startAnswered: false, cutByTime: false, warnings: [] };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), budgetMs);
  });
  try {
    const work = discover(options, deps, found, progress, run, answerBy);
    work.catch(() => {}); // after a timeout its rejection (the abort) is nobody's business
    // The steps end themselves by `answerBy`; this is the backstop for what cannot be cut (a robots.txt read).
    if ((await Promise.race([work, timedOut])) === "timeout") {
      progress.cutByTime = true;
      stop.abort(new MapTimeoutError(budgetMs));
      progress.warnings.push(`The map stopped at its time limit (${budgetMs} ms); results may be incomplete.`);
    }
  } finally {
    clearTimeout(timer);
    stop.abort();
  }
  const learnt = progress.startAnswered || found.countOf(MAP_GROUP.sitemap) + found.countOf(MAP_GROUP.discovered) > 0;
  // Named by the time waited: a `timeout` above the cap ran to the cap, not to what it asked.
  if (progress.cutByTime && !learnt && options.timeout !== undefined) throw new MapTimeoutError(budgetMs);
  // With `search`, the listing has ranked them (best first) and dropped those it does not keep.
  const links = found.links().slice(0, options.limit ?? 5000);
  return progress.warnings.length > 0 ? { links, warning: progress.warnings.join(" ") } : { links };
}

/** The warning of a discovery cut short. */
function discoveryWarning(cut: DiscoveryCut): string {
  const pages = `${cut.pagesFetched} page${cut.pagesFetched === 1 ? "" : "s"} fetched, ${cut.pagesLeft} more known`;
  return cut.reason === "delay"
    ? `Link discovery stopped (${pages}): the delay between fetches (${cut.delayMs / 1000} s, robots.txt Crawl-delay unless delay was set) does not fit in the map's time; results may be incomplete.`
    : `Link discovery stopped at the map's time limit (${pages}); results may be incomplete.`;
}

/**
 * The warning of a map whose robots.txt could not be read (a 5xx, no answer in time, a network failure): RFC 9309
 * has a crawler then fetch nothing of the site, so no page was fetched for its links; only its sitemaps were read.
 */
function unreadRobotsWarning(robots: RobotsEntry): string | undefined {
  if (robots.status !== "unreachable") return undefined;
  const why = robots.statusCode !== undefined ? `answered HTTP ${robots.statusCode}` : robots.errorCode === "SCRAPE_TIMEOUT" ? "did not answer in time" : `could not be read (${robots.errorCode ?? "error"})`;
  return `${robots.robotsUrl} ${why}: as RFC 9309 asks, no page was fetched for links, and only sitemaps were read; set ignoreRobotsTxt to follow links anyway.`;
}

async function discover(options: MapSiteOptions, deps: MapDeps, found: MapListing, progress: MapProgress, signal: AbortSignal, answerBy: number): Promise<"done"> {
  const startUrl = new URL(options.url).href;
  const limit = options.limit ?? 5000;
  const mode = options.sitemap ?? "include";
  const leftMs = () => answerBy - performance.now();
  if (deps.gate) await deps.gate.check(startUrl);
  // robots.txt gets half the map's time at most (its own fetch may take 10 s): the sitemaps need the rest.
  let robots = await deps.robots.getWithin(startUrl, leftMs() / 2, signal);
  if (robots.status === "unreachable" && robots.errorCode === "EGRESS_DENIED") throw new EgressDeniedError(`Egress refused for ${startUrl}`);
  // The site mapped: the start URL's, or the one its start page landed on (fetched first, so that its sitemaps are
  // read and its links judged as that site's own).
  let siteUrl = startUrl;
  const links =
    mode === "only"
      ? undefined
      : linkDiscovery(startUrl, options, {
          engine: deps.engine,
          robots: deps.robots,
          found,
          maxPages: deps.maxPages ?? MAP_MAX_PAGES,
          limit,
          signal,
          answerBy,
          parsePool: deps.parsePool,
          onLanded: async (landed) => {
            siteUrl = landed;
            found.moveTo(landed);
            const landedRobots = await deps.robots.getWithin(landed, leftMs() / 2, signal);
            found.add(landed, MAP_GROUP.start);
            robots = landedRobots;
            return landedRobots;
          },
        });
  if (links) {
    const unread = unreadRobotsWarning(robots);
    if (unread && !options.ignoreRobotsTxt) progress.warnings.push(unread);
    found.add(startUrl, MAP_GROUP.start);
    // With sitemaps to read, the start page gets half of what is left: one that hangs must leave them time.
    const start = await links.start(robots, mode === "skip" ? leftMs() : leftMs() / 2);
    progress.startAnswered = start.answered;
    if (start.timedOut) {
      progress.cutByTime = true;
      progress.warnings.push("The start page did not answer in time; its links are missing.");
    }
    if (start.unread) {
      progress.cutByTime = true;
      progress.warnings.push("The start page was not read in time; its links are missing.");
    }
  }
  if (mode !== "skip") {
    const { result, warning } = await readMapSitemaps({ siteUrl, startUrl, robotsSitemaps: robots.sitemaps, engine: deps.engine, found, limit, headers: options.headers, timeoutMs: leftMs(), signal });
    if (result.timedOut) progress.cutByTime = true;
    if (warning) progress.warnings.push(warning);
  }
  if (links) {
    const discoveryEnd = options.timeout !== undefined ? answerBy : Math.min(answerBy, performance.now() + (deps.discoveryBudgetMs ?? MAP_DISCOVERY_BUDGET_MS));
    const cut = await links.rest(discoveryEnd);
    if (cut) {
      progress.cutByTime = true;
      progress.warnings.push(discoveryWarning(cut));
    }
  }
  return "done";
}
