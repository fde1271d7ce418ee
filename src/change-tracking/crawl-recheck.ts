/**
 * @module change-tracking/crawl-recheck
 * "Hidden" pages of a repeated crawl (api-v2.md §5.7, §6.1): when a crawl with the changeTracking format runs
 * out of work, it records the URLs it scraped; the pages the previous crawl of the same start URL (same key,
 * same tag) scraped but this one did not reach are then re-checked as extra pages, reported with
 * `visibility: "hidden"` (and `removed` when they now answer 404/410). Runs as the job store's drain hook,
 * inside its transaction, so the crawl completes only after the re-checks.
 *
 * The re-checks are pages of this crawl, so its rules hold for them as upstream's finishCrawlIfNeeded applies them
 * (its `crawler.filterLinks` of the unvisited URLs, then `limit − done`): a URL outside the crawl's scope now
 * (`includePaths`, `excludePaths`, the start path, the hosts it allows, the file types) is not re-checked, and no
 * more are planned than the places `limit` leaves. robots.txt needs a fetch, which this synchronous hook cannot make:
 * the task runner asks it before fetching a re-check (jobs/task-runner.ts), as it judges where one redirects.
 *
 * The hook runs again each time the crawl drains: the re-checks done count against `limit` then, and one that
 * failed or that robots.txt refused gives its place to the next candidate, as a failed page of the crawl does. The
 * crawl's record is rewritten each time, and marked complete the time it plans no more: only a complete record is
 * another crawl's previous one (one still running its re-checks lacks them).
 */
import type { Database } from "bun:sqlite";
import type { DrainHook } from "../jobs/sqlite-store.ts";
import type { Job, NewTask } from "../jobs/types.ts";
import { createCrawlFilter, type CrawlFilter, type FilterOptions } from "../crawl/filter.ts";
import { normalizeUrl } from "../crawl/url-normalize.ts";
import { isRemovedStatus } from "./answer-status.ts";
import type { ChangeHistory } from "./history.ts";

/** Depth that marks a hidden re-check task: the task runner reports it hidden and follows none of its links. */
export const HIDDEN_RECHECK_DEPTH = -1;

/** The dedup key of a hidden re-check task: apart from the crawl's own key of that page, so that both may exist. */
const HIDDEN_KEY_PREFIX = "hidden ";

/** A page task of the crawl as the hook reads it. */
interface PageRow {
  url: string;
  dedup_key: string;
  depth: number;
  status: string;
  /** The stored document exists (a done page with a result, not one robots.txt refused). */
  has_result: number;
  /** The status code a re-check answered, if it has a result. */
  status_code: number | null;
  /** The error code of a re-check that failed. */
  error_code: string | null;
}

/** The error of a page that redirected out of the crawl's rules (crawl/errors.ts CrawlDenialError). */
const CRAWL_DENIAL = "CRAWL_DENIAL";

/** `url`'s dedup key under the crawl's rules; the URL itself if it does not parse. */
function keyOf(scope: CrawlFilter, url: string): string {
  try {
    return scope.keyOf(url);
  } catch {
    return url;
  }
}

/**
 * The crawl's scope (its rules less robots.txt), judged from where it runs now (`originUrl` after a start page that
 * moved host); undefined when the start URL cannot make a filter (then nothing is re-checked).
 */
function scopeOf(job: Job): CrawlFilter | undefined {
  try {
    const options = (job.options.crawlerOptions ?? {}) as FilterOptions;
    return createCrawlFilter(job.options.originUrl ?? job.url!, { ...options, ignoreRobotsTxt: true });
  } catch {
    return undefined;
  }
}

/**
 * The URLs a crawl records as seen, for the next crawl's re-checks: every page it ran (done or failed), and the hidden
 * re-checks it actually fetched. Not a re-check robots.txt refused (never fetched); not one that answered 404/410:
 * it was reported `removed`, and re-checking it on every later crawl would report the same removal again at a credit
 * each, for ever; nor one that now redirects out of the crawl's rules: it is no page of this crawl any more, and kept
 * it failed again in every later crawl's `/errors`.
 */
function seenUrls(rows: readonly PageRow[]): string[] {
  const out: string[] = [];
  for (const r of rows) {
    if (r.depth !== HIDDEN_RECHECK_DEPTH) out.push(r.url);
    else if (r.status === "failed" ? r.error_code !== CRAWL_DENIAL : r.has_result === 1 && !isRemovedStatus(r.status_code ?? 0)) out.push(r.url);
  }
  return out;
}

/** The drain hook that plans hidden re-checks and records each crawl's URL set. */
export function createHiddenRecheckHook(db: Database, history: ChangeHistory, now: () => number = Date.now): DrainHook {
  return function hiddenRechecks(job) {
    // Under zero data retention changeTracking keeps nothing (the format only warns): not the crawl's URLs either.
    if (job.kind !== "crawl" || !job.url || job.options.zeroDataRetention) return [];
    const formats = (job.options.scrapeOptions.formats ?? []) as { type: string; tag?: string | null }[];
    const ct = formats.find((f) => f.type === "changeTracking");
    if (!ct) return [];
    const tag = ct.tag ?? null;
    const rows = db
      .query<PageRow, [string]>(
        // The status code of re-checks only: reading it parses the stored document, which for every page of a large
        // crawl would hold the store's transaction for a while.
        `SELECT url, dedup_key, depth, status, COALESCE(result_bytes, 0) > 0 AS has_result,
           CASE WHEN depth = ${HIDDEN_RECHECK_DEPTH} AND result IS NOT NULL THEN json_extract(result, '$.metadata.statusCode') END AS status_code,
           CASE WHEN depth = ${HIDDEN_RECHECK_DEPTH} AND error IS NOT NULL THEN json_extract(error, '$.code') END AS error_code
         FROM tasks WHERE job_id = ? AND kind = 'page' AND status IN ('done', 'failed')`,
      )
      .all(job.id);
    const tasks = recheckTasks(db, history, job, tag, rows);
    // Complete when no re-check is left to run: only then may another crawl take this record as its previous one.
    history.recordCrawl(job.id, job.keyId, job.url, tag, seenUrls(rows), now(), tasks.length === 0);
    return tasks;
  };
}

/** The re-checks to plan now: the previous crawl's URLs this crawl has not run, within its rules and its limit. */
function recheckTasks(db: Database, history: ChangeHistory, job: Job, tag: string | null, rows: readonly PageRow[]): NewTask[] {
  // The places `limit` leaves: pages scraped (a stored document) count, failed ones and refused re-checks do not.
  const limit = (job.options.crawlerOptions?.limit as number | undefined) ?? Number.MAX_SAFE_INTEGER;
  let room = limit - rows.filter((r) => r.status === "done" && r.has_result === 1).length;
  const scope = room > 0 ? scopeOf(job) : undefined;
  if (!scope) return [];
  // Pages are the same page by the crawl's own identity (www, slash, index file, and the query with
  // ignoreQueryParameters), not by the exact URL: /a?sid=1 then /a?sid=2 is one page seen again, not a hidden one.
  // A re-check already planned (whatever came of it) is not planned again when the crawl drains once more.
  const seen = new Set(rows.map((r) => (r.depth === HIDDEN_RECHECK_DEPTH ? keyOf(scope, r.url) : r.dedup_key)));
  const tasks: NewTask[] = [];
  // A task of any status holds its dedup key (a cancelled one too): one planned over it would not be inserted, and
  // the crawl would complete with its record marked incomplete.
  const taken = db.query<{ n: number }, [string, string]>("SELECT 1 AS n FROM tasks WHERE job_id = ? AND dedup_key = ?");
  for (const url of history.previousCrawlUrls(job.keyId, job.url!, tag, job.id)) {
    if (room <= 0) break;
    // Judged as a sitemap page is (found at depth -1): `maxDiscoveryDepth` counts this crawl's hops from its start
    // page, which a page known from the previous crawl did not make (upstream's filterLinks here ignores it too).
    const verdict = scope.check(url, { depth: -1 });
    if (!verdict.ok || seen.has(verdict.key)) continue;
    seen.add(verdict.key);
    const dedupKey = `${HIDDEN_KEY_PREFIX}${verdict.url}`;
    if (taken.get(job.id, dedupKey)) continue;
    tasks.push({ kind: "page", url: normalizeUrl(verdict.href), dedupKey, depth: HIDDEN_RECHECK_DEPTH });
    room--;
  }
  return tasks;
}
