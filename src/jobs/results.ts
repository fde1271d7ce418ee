/**
 * @module jobs/results
 * The read side of jobs: result pages for status polling (api-v2.md §3.2: pages of at most 10 MiB, `skip`
 * indexes the completion order, 100 results a page unless `limit` says otherwise), errors and robots-blocked
 * URLs, expiry. Reads never block the workers (WAL).
 */
import type { Database } from "bun:sqlite";
import type { SerializedError } from "../errors.ts";
import { JOB_TTL_MS } from "./sqlite-store.ts";
import { JOB_TTL_SQL, RACED_REDIRECT_CODE } from "./store-steps.ts";
import { HELD_SQL } from "./task-intake.ts";
import { taskOptions, type JobOptions } from "./types.ts";
import type { ScrapeReplay } from "../scrape/run-options.ts";

/** Largest serialised page of results (upstream: 10 MiB). */
export const MAX_RESULT_PAGE_BYTES = 10 * 1024 * 1024;
/**
 * When a key's job page last finished well (queue-status). CROSS JOIN keeps SQLite on the key's jobs first
 * (jobs_key_status), then their done tasks (tasks_job_status): left to choose, it scanned every done task of the
 * server through tasks_claim (130 ms at 300,000 tasks).
 */
export const LAST_PAGE_SQL = `SELECT MAX(t.finished_at) AS at FROM jobs j CROSS JOIN tasks t ON t.job_id = j.id
  WHERE j.key_id = ? AND t.kind = 'page' AND t.status = 'done' AND t.finished_at >= ?`;

/** Results per page when the client gives no `limit`. */
export const DEFAULT_RESULT_PAGE_SIZE = 100;

/** One page of results. */
export interface ResultPage {
  data: Record<string, unknown>[];
  /** Finished pages (done or failed) consumed by this page; `skip + consumed` is where the next page starts. */
  consumed: number;
  /** Finished pages of the job so far. */
  finished: number;
}

/** Where one crawl or batch page stands ({@link JobResults.pageOutcome}). */
export type PageOutcome = { document: Record<string, unknown> } | { failure: SerializedError } | { unfinished: "queued" | "active" | "cancelled" };

/** An entry of `/errors`. */
export interface JobError {
  id: string;
  timestamp?: string;
  url: string;
  code?: string;
  error: string;
}

/**
 * One page of a job's finished pages in completion order. `done_seq IS NOT NULL` lets SQLite start the
 * `tasks_job_done` range at the first finished page; without it every status poll stepped through the job's
 * unfinished tasks first (NULL sorts first), reading each row to test its status: 1.5 ms per poll with 18,000
 * queued tasks, 0.01 ms with it. Exported for the query-plan test.
 */
export const RESULT_PAGE_SQL = `SELECT status, result, result_bytes FROM tasks
  WHERE job_id = ? AND done_seq IS NOT NULL AND kind = 'page' AND status IN ('done', 'failed')
  ORDER BY done_seq LIMIT ? OFFSET ?`;

/** Tasks an expired job loses per statement when it is pruned (~20–40 ms each at ~3 KB of result a task). */
export const PRUNE_CHUNK_TASKS = 2000;

/** SQL: the `jobs` row has no intake open (no `appendToId` storing its URLs: jobs/task-intake.ts); see prune. */
const NO_OPEN_INTAKE_SQL = "NOT EXISTS (SELECT 1 FROM job_intakes i WHERE i.job_id = jobs.id AND i.open = 1)";

/** Queries over stored job results. */
export class JobResults {
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
  ) {}

  /** Results from position `skip` in completion order; failed pages count as consumed but carry no data. */
  page(jobId: string, skip: number, limit = DEFAULT_RESULT_PAGE_SIZE): ResultPage {
    // The job row counts finished pages (done or failed) as it goes: no scan of the job's tasks per poll.
    const finished = this.db.query<{ n: number }, [string]>("SELECT completed AS n FROM jobs WHERE id = ?").get(jobId)?.n ?? 0;
    // Row by row, not all(): the page stops at MAX_RESULT_PAGE_BYTES, and `limit` rows (up to 1000) of full
    // documents read at once held hundreds of MB per request only to be cut there.
    const rows = this.db
      .query<{ status: string; result: string | null; result_bytes: number | null }, [string, number, number]>(
        RESULT_PAGE_SQL,
      )
      .iterate(jobId, limit, skip);
    const data: Record<string, unknown>[] = [];
    let bytes = 0;
    let consumed = 0;
    for (const r of rows) {
      const size = r.result_bytes ?? 0;
      if (r.result !== null && bytes + size > MAX_RESULT_PAGE_BYTES && data.length > 0) break;
      consumed++;
      if (r.status === "done" && r.result !== null) {
        data.push(JSON.parse(r.result));
        bytes += size;
      }
    }
    return { data, consumed, finished };
  }

  /** Failed pages and robots-blocked URLs of a job. */
  errors(jobId: string): { errors: JobError[]; robotsBlocked: string[] } {
    const failed = this.db
      .query<{ id: string; url: string; error: string; finished_at: number | null }, [string]>(
        "SELECT id, url, error, finished_at FROM tasks WHERE job_id = ? AND kind = 'page' AND status = 'failed' ORDER BY done_seq",
      )
      .all(jobId);
    const errors = failed.flatMap((r) => {
      const e = JSON.parse(r.error) as SerializedError;
      if (e.code === RACED_REDIRECT_CODE) return [];
      const entry: JobError = { id: r.id, url: r.url, code: e.code, error: e.message };
      if (r.finished_at !== null) entry.timestamp = new Date(r.finished_at).toISOString();
      return [entry];
    });
    const robotsBlocked = this.db
      .query<{ url: string }, [string]>("SELECT url FROM job_robots_blocked WHERE job_id = ? ORDER BY rowid")
      .all(jobId)
      .map((r) => r.url);
    return { errors, robotsBlocked };
  }

  /** How many of the job's pages finished with a document, counting at most `upTo` (the status's hints need few). */
  documentCount(jobId: string, upTo: number): number {
    return this.db
      .query<{ n: number }, [string, number]>("SELECT COUNT(*) AS n FROM (SELECT 1 FROM tasks WHERE job_id = ? AND status = 'done' AND kind = 'page' LIMIT ?)")
      .get(jobId, upTo)!.n;
  }

  /**
   * Pushes a finished job's expiry to its retention from now (results stay while someone reads them): 24 h, or 1 h
   * for a zeroDataRetention job (store-steps.ts `jobTtlMs`). Returns the new expiry.
   */
  touch(jobId: string): number {
    const now = this.now();
    const row = this.db
      .query<{ expires_at: number }, [number, string]>(`UPDATE jobs SET expires_at = ? + ${JOB_TTL_SQL} WHERE id = ? AND status != 'scraping' RETURNING expires_at`)
      .get(now, jobId);
    return row?.expires_at ?? now + JOB_TTL_MS;
  }

  /**
   * Deletes expired finished jobs with their tasks; resolves to how many jobs. A job's tasks go first, in chunks of
   * {@link PRUNE_CHUNK_TASKS} with the event loop free between them: one statement for a 100,000-page batch (its
   * results cascading across the tasks' indexes) held every request for ~0.8 s. Safe to do piecemeal: an expired
   * job is answered 404 "Job expired" from the moment it expired (jobs/service.ts owned, pageDocument), so nobody
   * reads its half-deleted results or extends its life meanwhile. A job with an intake open (an `appendToId` storing
   * its URLs: jobs/task-intake.ts) is kept: deleting it under the append failed the append's next row (500).
   */
  async prune(): Promise<number> {
    const expired = this.db
      .query<{ id: string }, [number]>(`SELECT id FROM jobs WHERE status != 'scraping' AND expires_at < ? AND ${NO_OPEN_INTAKE_SQL}`)
      .all(this.now());
    let pruned = 0;
    for (const { id } of expired) {
      // An append that opened an intake meanwhile stops the deleting: the job is kept (see above).
      const chunk = this.db.query(
        "DELETE FROM tasks WHERE rowid IN (SELECT rowid FROM tasks WHERE job_id = ? LIMIT ?) AND NOT EXISTS (SELECT 1 FROM job_intakes i WHERE i.job_id = ? AND i.open = 1)",
      );
      while (chunk.run(id, PRUNE_CHUNK_TASKS, id).changes > 0) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      pruned += this.db.query(`DELETE FROM jobs WHERE id = ? AND status != 'scraping' AND expires_at < ? AND ${NO_OPEN_INTAKE_SQL}`).run(id, this.now()).changes;
    }
    return pruned;
  }

  /**
   * The document of one crawl or batch page by its `metadata.scrapeId` (the task id), for `GET /v2/scrape/{id}`:
   * only to the key that made the job, only while the job's results are kept; undefined otherwise.
   */
  pageDocument(taskId: string, keyId: string): Record<string, unknown> | undefined {
    const outcome = this.pageOutcome(taskId, keyId);
    return outcome && "document" in outcome ? outcome.document : undefined;
  }

  /**
   * Where one crawl or batch page stands, for `GET /v2/scrape/{id}`: its document once done, its failure once failed
   * (a search's `asyncScraping` client polls this id and must learn that it will never come), or its task status
   * while it waits. Same rules as {@link pageDocument}: `keyId`'s jobs only, kept results only, nothing of ZDR jobs.
   */
  pageOutcome(taskId: string, keyId: string): PageOutcome | undefined {
    const row = this.db
      .query<{ status: string; result: string | null; error: string | null; key_id: string; job_status: string; expires_at: number; zdr: number | null }, [string]>(
        `SELECT t.status, t.result, t.error, j.key_id, j.status AS job_status, j.expires_at, json_extract(j.options, '$.zeroDataRetention') AS zdr
         FROM tasks t JOIN jobs j ON j.id = t.job_id WHERE t.id = ? AND t.kind = 'page'`,
      )
      .get(taskId);
    if (!row || row.key_id !== keyId) return undefined;
    if (row.job_status !== "scraping" && row.expires_at < this.now()) return undefined;
    // A zero-data-retention job's pages are kept only for its own status pages, as a ZDR scrape keeps nothing.
    if (row.zdr === 1) return undefined;
    if (row.status === "done") return row.result === null ? undefined : { document: JSON.parse(row.result) as Record<string, unknown> };
    if (row.status === "failed" && row.error !== null) return { failure: JSON.parse(row.error) as SerializedError };
    if (row.status === "queued" || row.status === "active" || row.status === "cancelled") return { unfinished: row.status };
    return undefined;
  }

  /** When a page of `keyId`'s crawls or batches last finished well since `sinceMs` (queue-status), if one did. */
  lastPageAt(keyId: string, sinceMs: number): number | undefined {
    const r = this.db
      .query<{ at: number | null }, [string, number]>(LAST_PAGE_SQL)
      .get(keyId, sinceMs);
    return r?.at ?? undefined;
  }

  /** The page task ids of a job by URL (as the client wrote it): the scrape ids of a search's `asyncScraping`. */
  taskIdsByUrl(jobId: string): Map<string, string> {
    const rows = this.db
      .query<{ id: string; url: string; source_url: string | null }, [string]>("SELECT id, url, source_url FROM tasks WHERE job_id = ? AND kind = 'page' ORDER BY seq")
      .all(jobId);
    return new Map(rows.map((r) => [r.source_url ?? r.url, r.id]));
  }

  /**
   * The actions, device (`mobile`) and `location` a crawl or batch page was scraped with (its job's scrape options,
   * or those of the `appendToId` request that added it), for an interact session on it to replay; undefined when the
   * page is not `keyId`'s.
   */
  pageReplay(taskId: string, keyId: string): ScrapeReplay | undefined {
    const row = this.db
      .query<{ options: string; key_id: string; options_index: number | null }, [string]>(
        "SELECT j.options, j.key_id, t.options_index FROM tasks t JOIN jobs j ON j.id = t.job_id WHERE t.id = ? AND t.kind = 'page'",
      )
      .get(taskId);
    if (!row || row.key_id !== keyId) return undefined;
    const { actions, mobile, location } = taskOptions(JSON.parse(row.options) as JobOptions, row.options_index ?? undefined).scrapeOptions as { actions?: unknown; mobile?: unknown; location?: ScrapeReplay["location"] };
    return {
      ...(Array.isArray(actions) && actions.length > 0 ? { actions: actions as NonNullable<ScrapeReplay["actions"]> } : {}),
      ...(mobile === true ? { mobile } : {}),
      ...(location && typeof location === "object" ? { location } : {}),
    };
  }

  /** Queued and running pages of `keyId`'s jobs (queue-status). */
  queueCounts(keyId: string): { queued: number; active: number } {
    const r = this.db
      .query<{ queued: number | null; active: number | null }, [string]>(
        `SELECT SUM(t.status = 'queued') AS queued, SUM(t.status = 'active') AS active
         FROM tasks t JOIN jobs j ON j.id = t.job_id WHERE j.key_id = ? AND j.status = 'scraping' AND t.status IN ('queued', 'active')`,
      )
      .get(keyId);
    // Tasks accepted and not yet in the queue (a large batch's, jobs/pending-tasks.ts) are waiting all the same; not
    // those of a request still storing them (held for its intake), nor what a cancelled job has yet to set aside.
    const pending = this.db
      .query<{ n: number | null }, [string]>(
        `SELECT SUM(p.task_count - p.next_index) AS n FROM job_pending_tasks p JOIN jobs j ON j.id = p.job_id
         WHERE j.key_id = ? AND j.status = 'scraping' AND (p.intake IS NULL OR NOT ${HELD_SQL})`,
      )
      .get(keyId);
    return { queued: (r?.queued ?? 0) + (pending?.n ?? 0), active: r?.active ?? 0 };
  }
}
