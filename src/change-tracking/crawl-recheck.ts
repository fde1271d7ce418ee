/**
 * @module change-tracking/crawl-recheck
 * "Hidden" pages of a repeated crawl (api-v2.md §5.7, §6.1): when a crawl with the changeTracking format runs
 * out of work, it records the URLs it scraped; the pages the previous crawl of the same start URL (same key,
 * same tag) scraped but this one did not reach are then re-checked as extra pages, reported with
 * `visibility: "hidden"` (and `removed` when they now answer 404/410). Runs as the job store's drain hook,
 * inside its transaction, so the crawl completes only after the re-checks.
 */
import type { Database } from "bun:sqlite";
import type { DrainHook } from "../jobs/sqlite-store.ts";
import type { NewTask } from "../jobs/types.ts";
import { dedupKey, type DedupOptions } from "../crawl/url-normalize.ts";
import type { ChangeHistory } from "./history.ts";

function keyOf(url: string, options: DedupOptions): string {
  try {
    return dedupKey(url, options);
  } catch {
    return url;
  }
}

/** Depth that marks a hidden re-check task: the task runner reports it hidden and follows none of its links. */
export const HIDDEN_RECHECK_DEPTH = -1;

/** The drain hook that plans hidden re-checks and records each crawl's URL set. */
export function createHiddenRecheckHook(db: Database, history: ChangeHistory, now: () => number = Date.now): DrainHook {
  return function hiddenRechecks(job) {
    if (job.kind !== "crawl" || !job.url) return [];
    const formats = (job.options.scrapeOptions.formats ?? []) as { type: string; tag?: string | null }[];
    const ct = formats.find((f) => f.type === "changeTracking");
    if (!ct) return [];
    const tag = ct.tag ?? null;
    const rows = db
      .query<{ url: string; dedup_key: string; depth: number }, [string]>(
        "SELECT url, dedup_key, depth FROM tasks WHERE job_id = ? AND kind = 'page' AND status IN ('done', 'failed')",
      )
      .all(job.id);
    // Pages are the same page by the crawl's own identity (www, slash, index file, and the query with
    // ignoreQueryParameters), not by the exact URL: /a?sid=1 then /a?sid=2 is one page seen again, not a hidden one.
    const keyOptions = (job.options.crawlerOptions ?? {}) as DedupOptions; // dedupKey applies the crawl's defaults
    const seen = new Set(rows.map((r) => r.dedup_key));
    history.recordCrawl(job.id, job.keyId, job.url, tag, rows.filter((r) => r.depth !== HIDDEN_RECHECK_DEPTH).map((r) => r.url), now());
    const previous = history.previousCrawlUrls(job.keyId, job.url, tag, job.id);
    return previous
      .filter((u) => !seen.has(keyOf(u, keyOptions)))
      .map((url): NewTask => ({ kind: "page", url, dedupKey: `hidden ${url}`, depth: HIDDEN_RECHECK_DEPTH }));
  };
}
