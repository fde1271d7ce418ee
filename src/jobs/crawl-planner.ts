/**
 * @module jobs/crawl-planner
 * The crawl-specific part of a job (api-v2.md §5): the kickoff task reads robots.txt (its `Crawl-delay`
 * becomes the crawl's delay when the caller set none) and the sitemaps (their URLs enter at depth 0), and each
 * crawled page's links pass the crawl filter to become new tasks at depth + 1. Robots-blocked URLs are
 * reported for `/errors`. Limits and dedup are enforced by the job store with the filter's keys.
 */
import type { RobotsCache, RobotsEntry } from "../crawl/robots-cache.ts";
import { createCrawlFilter, type CrawlFilter, type FilterOptions, isSocialMediaOrEmail } from "../crawl/filter.ts";
import { filterLinksYielding } from "../crawl/filter-yielding.ts";
import { readSitemaps, sitemapCandidates } from "../crawl/sitemap.ts";
import { normalizeUrl } from "../crawl/url-normalize.ts";
import type { Engine } from "../engines/types.ts";
import type { Logger } from "../log.ts";
import type { CrawlPlanner } from "./task-runner.ts";
import type { Job, NewTask } from "./types.ts";

/** Filters kept in memory for running crawls (rebuilt on demand: they are derived from the job). */
const MAX_CACHED_FILTERS = 256;
/**
 * Links already judged, per crawl and depth: navigation, footers and sidebars repeat the same links on every
 * page, and parsing and filtering them again is most of the planner's cost. Bounded: past this many the set is
 * cleared and links are simply judged again (the job store ignores duplicates anyway).
 */
const MAX_SEEN_LINKS = 200_000;


/** What the planner keeps per running crawl. */
interface PlannerState {
  /** The URL the filters were built from (see {@link originOf}). */
  origin: string;
  full: CrawlFilter;
  scope: CrawlFilter;
  seen: Set<string>;
  queued: Set<string>;
}

/** Dependencies of the planner. */
export interface CrawlPlannerDeps {
  engine: Pick<Engine, "fetch">;
  robots: RobotsCache;
  log: Logger;
}

/** Where a crawl's scope is judged from: its start URL, or where its start page landed on another host. */
function originOf(job: Job): string {
  return job.options.originUrl ?? job.url!;
}

/** In-scope sitemap URLs a kickoff keeps per page of `limit` (slack for robots-blocked and failing pages). */
const SITEMAP_URLS_PER_LIMIT = 4;
/** Most in-scope sitemap URLs a kickoff keeps, whatever the `limit`. */
const MAX_SITEMAP_URLS_KEPT = 100_000;
/** Most sitemap URLs a kickoff looks at, in scope or not: a huge sitemap cannot keep it reading. */
const MAX_SITEMAP_URLS_SCANNED = 200_000;

/** Longest robots.txt `Crawl-delay` honoured (a site asking for an hour between pages gets a minute). */
const MAX_CRAWL_DELAY_S = 60;

const bareHost = (url: string) => new URL(url).hostname.replace(/^www\./, "");

function crawlerOptions(job: Job): FilterOptions & { sitemap?: string; limit?: number; delay?: number } {
  return (job.options.crawlerOptions ?? {}) as FilterOptions & { sitemap?: string; limit?: number; delay?: number };
}

/** Errors of a robots.txt fetch that mean the site itself could not be reached (see startAllowed). */
const NOT_REACHED_CODES: ReadonlySet<string> = new Set(["SCRAPE_DNS_RESOLUTION_ERROR", "SCRAPE_SITE_ERROR", "SCRAPE_SSL_ERROR", "EGRESS_DENIED"]);

/** Failures of a robots.txt fetch after which the host's sitemaps, on the same host, would fail alike. */
const NO_ANSWER_CODES: ReadonlySet<string> = new Set([...NOT_REACHED_CODES, "SCRAPE_TIMEOUT"]);

/**
 * Whether the kickoff can skip reading sitemaps because the start host did not answer its robots.txt at all (timed
 * out, refused, no DNS): the default sitemaps live on that same host, and a host that kept the robots.txt request
 * hanging for its whole timeout kept the crawl waiting out the sitemap budget (120 s) for URLs robots.txt's absence
 * refuses anyway (a dead site's crawl ended after 130 s with its answer known at 10 s). Not for a robots.txt that
 * answered 5xx or too much: the host does answer, and its sitemaps are read as before.
 */
function sitemapPagesAllRefused(o: { ignoreRobotsTxt?: boolean }, entry: RobotsEntry | undefined): boolean {
  return !o.ignoreRobotsTxt && entry?.status === "unreachable" && entry.errorCode !== undefined && NO_ANSWER_CODES.has(entry.errorCode);
}

/** Creates the planner used by the task runner. */
export function createCrawlPlanner(deps: CrawlPlannerDeps): CrawlPlanner {
  /**
   * Per job: the full filter, the same rules without robots.txt (the scope), the links already judged, and the
   * dedup keys already handed to the job store (a page linked from several depths is enqueued once: the store would
   * ignore the duplicate, but only after an INSERT per link per depth).
   */
  const filters = new Map<string, PlannerState>();
  /** Tasks (and kickoffs) whose links this process has planned: see plannedBefore. */
  const planned = new Set<string>();

  function filtersFor(job: Job): PlannerState {
    const origin = originOf(job);
    // Keyed by origin too: the kickoff judges its sitemaps from the start URL while pages judge from a moved origin.
    const cacheKey = `${job.id}\n${origin}`;
    let f = filters.get(cacheKey);
    if (!f) {
      if (filters.size >= MAX_CACHED_FILTERS) filters.delete(filters.keys().next().value!);
      const options = crawlerOptions(job);
      f = {
        origin,
        full: createCrawlFilter(origin, options, deps.robots),
        scope: createCrawlFilter(origin, { ...options, ignoreRobotsTxt: true }),
        seen: new Set(),
        queued: new Set(),
      };
      filters.set(cacheKey, f);
    }
    return f;
  }

  /**
   * Whether this process already planned the links of the task `id` (and now records that it has). A task planned
   * again had its completion lost (a database error, a full disk) and its attempt given back (jobs/task-leases.ts
   * release), so its attempt count does not say it runs again; without this its links were "already queued" and a
   * crawl whose start page hit a locked database ended `completed` with one page.
   */
  function plannedBefore(id: string): boolean {
    if (planned.size > MAX_SEEN_LINKS) planned.clear();
    const before = planned.has(id);
    planned.add(id);
    return before;
  }

  /**
   * The links of `links` not judged before at this depth (a link's verdict depends only on it and the depth); with
   * `again`, all of them (they are still recorded as judged).
   */
  function unseen(seen: Set<string>, links: string[], depth: number, again: boolean): string[] {
    if (seen.size > MAX_SEEN_LINKS) seen.clear();
    const out: string[] = [];
    for (const link of links) {
      const key = `${depth} ${link}`;
      if (again || !seen.has(key)) {
        seen.add(key);
        out.push(link);
      }
    }
    return out;
  }

  /**
   * Filters `links` found at `depth`. Robots.txt is fetched only for the origins of links that are in the crawl's
   * scope: fetching it for every site a page links to (external sites the crawl rejects anyway) cost a request
   * per foreign origin and dominated crawl time.
   *
   * `again` (a task on its second attempt or later) skips the memory of links already judged and handed over: the
   * memory is written when links are planned, before the job store commits them, so a page whose completion did
   * not commit (a full disk, a lost lease) would find its links "already queued" when it runs again, and the crawl
   * would end without them. The store ignores the duplicates this hands it.
   */
  async function plan(job: Job, links: string[], depth: number, baseUrl: string, signal: AbortSignal, again = false): Promise<{ discovered: NewTask[]; robotsBlocked: string[] }> {
    const { full, scope, seen, queued } = filtersFor(job);
    const inScope = await filterLinksYielding(scope, unseen(seen, links, depth, again), { depth, baseUrl });
    let accepted = inScope;
    let robotsBlocked: string[] = [];
    if (!crawlerOptions(job).ignoreRobotsTxt && inScope.length > 0) {
      const origins = new Set<string>();
      for (const a of inScope) origins.add(new URL(a.url).origin);
      await Promise.all([...origins].map((o) => (deps.robots.peek(o) ? undefined : deps.robots.get(o, signal).catch(() => undefined))));
      // Only the robots.txt rule is left to ask, now with robots.txt loaded for the origins in scope.
      accepted = [];
      for (const a of inScope) {
        if (full.robotsAllows(a.href)) accepted.push(a);
        else robotsBlocked.push(a.url);
      }
    }
    if (queued.size > MAX_SEEN_LINKS) queued.clear();
    const discovered: NewTask[] = [];
    for (const a of accepted) {
      if (queued.has(a.key) && !again) continue;
      queued.add(a.key);
      // The link as found, less its fragment: `ignoreQueryParameters` only changes the dedup key (api-v2.md §5.6,
      // upstream locks the normalised URL but fetches the link), so a page that needs its query still gets it.
      discovered.push({ kind: "page", url: normalizeUrl(a.href), dedupKey: a.key, depth: depth + 1 });
    }
    return { discovered, robotsBlocked };
  }

  /** A robots.txt `Crawl-delay` for this crawl's agents in ms (at most 60 s), unless the crawl sets its own `delay`. */
  function delayAskedBy(entry: RobotsEntry, job: Job): number | undefined {
    if (crawlerOptions(job).delay !== undefined) return undefined;
    const seconds = entry.crawlDelaySeconds(filtersFor(job).full.robotsAgents);
    if (seconds === undefined) return undefined;
    // A sub-millisecond delay is still a delay (one page at a time): not rounded to none.
    return seconds > 0 ? Math.max(1, Math.round(Math.min(seconds, MAX_CRAWL_DELAY_S) * 1000)) : 0;
  }

  return {
    initialTasks(startUrl, options) {
      const filter = createCrawlFilter(startUrl, options as FilterOptions);
      const start = filter.check(startUrl, { depth: -1 });
      // A start URL the patterns refuse is still crawled (its links followed; the page itself is then the crawl's
      // error: task-runner.ts), under its dedup key like any page (a raw URL here made `/docs` and its link `/docs/`
      // two documents).
      const key = start.ok ? start.key : filter.keyOf(startUrl);
      const tasks: NewTask[] = [];
      const o = options as { sitemap?: string; ignoreRobotsTxt?: boolean };
      if (o.sitemap !== "skip" || !o.ignoreRobotsTxt) tasks.push({ kind: "kickoff", url: startUrl, dedupKey: `kickoff ${key}`, depth: 0 });
      // The start page always, sitemap:"only" included (upstream's kickoff enqueues it whatever the sitemap mode;
      // with "only" no page's links are followed: task-runner.ts).
      tasks.push({ kind: "page", url: startUrl, dedupKey: key, depth: 0 });
      return tasks;
    },

    async kickoff(job, signal, again = false) {
      again ||= plannedBefore(`kickoff ${job.id}`);
      const o = crawlerOptions(job);
      let delayMs: number | undefined;
      let robotsSitemaps: readonly string[] = [];
      let robotsEntry: RobotsEntry | undefined;
      // robots.txt is read for its `Sitemap:` lines even with `ignoreRobotsTxt` (upstream reads it up front either
      // way, and map already did): ignoring its rules is no reason to miss the sitemaps it names. Its rules and its
      // `Crawl-delay` then do not apply (docs/crawl.md).
      if (!o.ignoreRobotsTxt || o.sitemap !== "skip") {
        const entry = await deps.robots.get(job.url!, signal);
        robotsEntry = entry;
        robotsSitemaps = entry.sitemaps;
        if (!o.ignoreRobotsTxt) delayMs = delayAskedBy(entry, job);
      }
      // Sitemap URLs enter at discovery depth 0, where `maxDiscoveryDepth: 0` already allows nothing more
      // (upstream's filterLinks returns nothing when the depth is reached): the start page alone.
      const noSitemapPages = (o.maxDiscoveryDepth !== undefined && o.maxDiscoveryDepth <= 0) || sitemapPagesAllRefused(o, robotsEntry);
      if (o.sitemap === "skip" || noSitemapPages) return { discovered: [], robotsBlocked: [], ...(delayMs !== undefined ? { delayMs } : {}) };
      const limit = o.limit ?? 10_000;
      // Sitemap URLs enter at depth 0: checked as if found at depth -1.
      // Judged from the start URL, where the sitemaps were read, whether or not the start page moved the crawl's
      // origin meanwhile (the kickoff runs beside it: the answer must not depend on which finished first).
      const atStart: Job = { ...job, options: { ...job.options, originUrl: undefined } };
      const { scope } = filtersFor(atStart);
      const read = await readSitemaps(sitemapCandidates(job.url!, robotsSitemaps), {
        engine: deps.engine,
        signal,
        // Only URLs in the crawl's scope (start path, include/exclude patterns, host) count towards the cap, as they
        // are read: capped before filtering, a crawl of /blog lost the posts a sitemap listed after other sections.
        // The slack over `limit` is for the pages robots.txt refuses or that fail; the scan bound ends huge reads.
        keep: (url) => scope.check(url, { depth: -1 }).ok,
        maxUrls: Math.min(MAX_SITEMAP_URLS_KEPT, limit * SITEMAP_URLS_PER_LIMIT),
        maxUrlsScanned: MAX_SITEMAP_URLS_SCANNED,
      });
      if (read.errors.length > 0) deps.log.debug("sitemap errors", { job: job.id, errors: read.errors.slice(0, 5) });
      const planned = await plan(atStart, read.urls, -1, job.url!, signal, again);
      return { ...planned, ...(delayMs !== undefined ? { delayMs } : {}) };
    },

    async discover(job, task, links, signal) {
      return plan(job, links, task.depth, task.url, signal, task.attempts > 1 || plannedBefore(task.id));
    },

    async startAllowed(job, signal) {
      if (crawlerOptions(job).ignoreRobotsTxt) return true;
      const entry = await deps.robots.get(job.url!, signal);
      // When robots.txt could not even be asked for (DNS, refused connection, TLS, egress), the site is not reachable
      // either: the start page's own fetch then reports that real error instead of a robots denial. A site that
      // answers slowly (a robots.txt timing out) or too much is reachable: that is RFC 9309's "unreachable", disallow
      // (reliability.md B5); it had the start page fetched while the pages under it were robots-blocked.
      if (entry.status === "unreachable" && entry.errorCode !== undefined && NOT_REACHED_CODES.has(entry.errorCode)) return true;
      if (entry.isAllowed(job.url!, filtersFor(job).full.robotsAgents) !== false) return true;
      return entry.status === "unreachable" ? "unreachable" : "disallowed";
    },

    async recheckAllowed(job, url, signal) {
      if (crawlerOptions(job).ignoreRobotsTxt) return true;
      const { full } = filtersFor(job);
      // As plan(): robots.txt loaded for the page's origin, one that cannot be read allowing (the fetch reports why).
      if (!deps.robots.peek(new URL(url).origin)) await deps.robots.get(url, signal).catch(() => undefined);
      return full.robotsAllows(url);
    },

    async crawlDelayMs(job, url, signal) {
      if (crawlerOptions(job).ignoreRobotsTxt) return undefined;
      return delayAskedBy(await deps.robots.get(url, signal), job);
    },

    originAfterRedirect(job, finalUrl) {
      try {
        const target = new URL(finalUrl);
        // A start page sent to a social network does not make that network the crawl's site.
        if (isSocialMediaOrEmail(target)) return undefined;
        return bareHost(finalUrl) === bareHost(originOf(job)) ? undefined : target.href;
      } catch {
        return undefined;
      }
    },

    judgeStart(job, finalUrl) {
      // Without robots.txt (the start page was let through it already) and with its depth ignored, as upstream's
      // filterLinks of the start page's own URL.
      const verdict = filtersFor(job).scope.check(normalizeUrl(finalUrl), { depth: -1 });
      return verdict.ok ? undefined : verdict.reason;
    },

    judgeRedirect(job, task, finalUrl) {
      const target = normalizeUrl(finalUrl);
      if (target === normalizeUrl(task.url)) return undefined; // no redirect (most pages)
      // A target with the task's own key (http → https, a trailing slash) is the store's to recognise: it compares
      // with the key the task was stored under.
      const verdict = filtersFor(job).full.check(target, { depth: task.depth - 1, redirect: true });
      return verdict.ok ? { key: verdict.key } : { denied: verdict.reason };
    },
  };
}
