/**
 * @module jobs/store-steps
 * The steps the SQLite job store runs inside its `BEGIN IMMEDIATE` transactions and that both the job lifecycle
 * (jobs/sqlite-store) and task leases (jobs/task-leases) need: adding tasks, failing a task, completing a job
 * that ran out of work. None of them opens a transaction; the caller's transaction makes them atomic.
 */
import type { Database } from "bun:sqlite";
import type { SerializedError } from "../errors.ts";
import { hostOf, optionsIndexOf, readJob, type TaskRow } from "./store-rows.ts";
import { refillBudget, type SpareTasks } from "./spare-tasks.ts";
import { HELD_SQL } from "./task-intake.ts";
import type { Job, JobEvent, NewTask } from "./types.ts";

/** Asked for last tasks when a job has nothing queued or running; returning none lets the job complete. */
export type DrainHook = (job: Job) => NewTask[];

/** How long finished job results stay readable (extended when read). */
export const JOB_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How long a `zeroDataRetention` job's results stay readable (extended when read). Its pages are kept only so that
 * its status can return them: long enough for a waiter or a poller to collect them, not a day.
 */
export const ZDR_JOB_TTL_MS = 60 * 60 * 1000;

/** The retention of a job with `options`: {@link ZDR_JOB_TTL_MS} under zero data retention, else {@link JOB_TTL_MS}. */
export function jobTtlMs(options: { zeroDataRetention?: boolean }): number {
  return options.zeroDataRetention ? ZDR_JOB_TTL_MS : JOB_TTL_MS;
}

/** {@link jobTtlMs} in SQL, over the `jobs` row's `options`: what a statement adds to the time a job ends or is read. */
export const JOB_TTL_SQL = `(CASE WHEN json_extract(options, '$.zeroDataRetention') = 1 THEN ${ZDR_JOB_TTL_MS} ELSE ${JOB_TTL_MS} END)`;

/**
 * What the store's steps share: the database, the clock, the id source, the event sink and the drain hook.
 * One per {@link SqliteJobStore}; `drainHook` is set later, so it is read at each use.
 */
export interface StoreContext {
  readonly db: Database;
  readonly now: () => number;
  readonly newId: () => string;
  readonly emit: (e: JobEvent) => void;
  drainHook?: DrainHook;
  /**
   * Charges a key for a finished page, inside the transaction that records the page: a page is charged if and only
   * if it is stored, so one fetched again after a crash or a lost lease is not charged twice (see setChargeHook).
   */
  chargeHook?: (keyId: string, credits: number) => void;
  /** Pages crawls found at their limit, enqueued as failed pages give their places back (jobs/spare-tasks.ts). */
  readonly spares: SpareTasks;
}

/**
 * Adds tasks while the job has fewer than `limit` pages that did not fail; duplicates (same dedup key) are ignored.
 * `createdAt` orders them in the queue (tasks loaded later from a pending row keep the time they were accepted);
 * `countInTotal: false` for tasks the job's `total` already counts (a pending row's, counted when it was accepted).
 * A failed page gives its place back, as upstream removes it from the set its limit counts (api-v2.md §5.6): a crawl
 * of `limit: 10` with a page that failed or redirected onto another still ends with ten results when the site has
 * them (it ended with nine).
 */
export function insertTasks(ctx: StoreContext, jobId: string, tasks: NewTask[], limit: number, createdAt = ctx.now(), countInTotal = true, keepTurnedAway = true): number {
  const { db } = ctx;
  if (tasks.length === 0) return 0;
  const job = db.query<{ total: number; seq: number }, [string]>(
    `SELECT total - (SELECT COUNT(*) FROM tasks WHERE job_id = jobs.id AND status = 'failed' AND kind = 'page') AS total,
       (SELECT COALESCE(MAX(seq), 0) FROM tasks WHERE job_id = jobs.id) AS seq FROM jobs WHERE id = ?`,
  ).get(jobId);
  if (!job) return 0;
  const insert = db.query(
    `INSERT OR IGNORE INTO tasks (id, job_id, kind, seq, url, source_url, dedup_key, depth, host, status, not_before, created_at, options_index)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?)`,
  );
  const t = createdAt;
  let total = job.total;
  let seq = job.seq;
  let added = 0;
  for (const [i, task] of tasks.entries()) {
    if (task.kind === "page" && total >= limit) {
      if (keepTurnedAway) ctx.spares.keep(jobId, tasks.slice(i));
      break;
    }
    const source = task.sourceUrl !== undefined && task.sourceUrl !== task.url ? task.sourceUrl : null;
    const r = insert.run(ctx.newId(), jobId, task.kind, ++seq, task.url, source, task.dedupKey, task.depth, hostOf(task.url), task.notBefore ?? t, t, task.optionsIndex ?? null);
    if (r.changes > 0 && task.kind === "page") {
      total++;
      added++;
    }
  }
  if (added > 0 && countInTotal) db.query("UPDATE jobs SET total = total + ?, updated_at = ? WHERE id = ?").run(added, ctx.now(), jobId);
  return added;
}

/**
 * Queued tasks of an ended job that one transaction sets `cancelled` (job-endings.ts sweepEnded): ~10–20 µs each
 * across the tasks' indexes, so one chunk stays within a few tens of ms.
 */
export const SWEEP_CHUNK_TASKS = 1000;

/** Sets up to {@link SWEEP_CHUNK_TASKS} of `jobId`'s queued tasks `cancelled`; how many. In the caller's transaction. */
export function sweepQueuedTasks(db: Database, jobId: string): number {
  return db
    .query("UPDATE tasks SET status = 'cancelled', lease_owner = NULL WHERE rowid IN (SELECT rowid FROM tasks WHERE job_id = ? AND status = 'queued' LIMIT ?)")
    .run(jobId, SWEEP_CHUNK_TASKS).changes;
}

/**
 * The error of a crawl page that redirected to a page the crawl already has (upstream's code). It counts as a
 * finished page but is left out of `/errors` (api-v2.md §3.3, §5.6): the page itself is in the results.
 */
export const RACED_REDIRECT_CODE = "SCRAPE_RACED_REDIRECT_ERROR";

/** Finishes a task as failed; a failed page counts as completed and is announced while the job runs. */
export function markFailed(ctx: StoreContext, task: TaskRow, error: SerializedError): void {
  const { db } = ctx;
  const t = ctx.now();
  db
    .query(
      `UPDATE tasks SET status = 'failed', error = ?, lease_owner = NULL, lease_expires_at = NULL, finished_at = ?,
         done_seq = (SELECT COALESCE(MAX(done_seq), 0) + 1 FROM tasks WHERE job_id = ?) WHERE id = ?`,
    )
    .run(JSON.stringify(error), t, task.job_id, task.id);
  if (task.kind === "page") {
    db.query("UPDATE jobs SET completed = completed + 1, updated_at = ? WHERE id = ?").run(t, task.job_id);
    const job = readJob(db, task.job_id)!;
    // Upstream sends a minimal document so that a receiver can tell which URL failed.
    const data = [{ metadata: { sourceURL: task.source_url ?? task.url } }];
    if (job.status === "scraping") ctx.emit({ job, event: "page", success: false, data, error: error.message, ...optionsIndexOf(task) });
    // Its place is free: the first page found while the crawl was at its limit takes it, unless every page would
    // fail alike (the key's credits are spent).
    if (job.status !== "scraping") ctx.spares.delete(job.id);
    else if (!JOB_WIDE_FAILURES.has(error.code)) refill(ctx, job);
  }
}

/** Failures that are the job's, not the page's: a spare page taking the place would fail the same way. */
const JOB_WIDE_FAILURES: ReadonlySet<string> = new Set(["INSUFFICIENT_CREDITS"]);

/** Enqueues one of `job`'s spare pages in a freed place, except on hosts failing to answer now, within its budget. */
function refill(ctx: StoreContext, job: Job): void {
  if (!ctx.spares.has(job.id)) return;
  const failing = new Set(ctx.db.query<{ host: string }, [string]>("SELECT host FROM job_hosts WHERE job_id = ? AND failures > 0").all(job.id).map((r) => r.host));
  const limit = (job.options.crawlerOptions?.limit as number | undefined) ?? Number.MAX_SAFE_INTEGER;
  const inJob = ctx.db.query<{ one: number }, [string, string]>("SELECT 1 AS one FROM tasks WHERE job_id = ? AND dedup_key = ? LIMIT 1");
  for (;;) {
    const task = ctx.spares.take(job.id, failing, refillBudget(limit));
    if (!task || insertTasks(ctx, job.id, [task], limit, ctx.now(), true, false) > 0) return;
    // Not enqueued: the job has the page already (the next spare is tried), or its places are full again (kept).
    if (inJob.get(job.id, task.dedupKey)) continue;
    ctx.spares.giveBack(job.id, task);
    return;
  }
}

/** Completes the job when nothing is queued or running; announces it. Runs inside the caller's transaction. */
export function finishJobIfDone(ctx: StoreContext, jobId: string): void {
  const { db } = ctx;
  // EXISTS stops at the first pending task; a COUNT here was a scan of the job's queue on every completion.
  const pending = db
    .query<{ one: number }, [string]>("SELECT 1 AS one FROM tasks WHERE job_id = ? AND status IN ('queued', 'active') LIMIT 1")
    .get(jobId);
  // Tasks accepted but not yet queued (jobs/pending-tasks.ts): the job is not done, they have yet to run. Not those
  // an append is still storing (held, jobs/task-intake.ts): its last transaction runs a completed batch again.
  if (pending || db.query(`SELECT 1 FROM job_pending_tasks p WHERE p.job_id = ? AND (p.intake IS NULL OR NOT ${HELD_SQL}) LIMIT 1`).get(jobId)) return;
  if (ctx.drainHook) {
    const job = readJob(db, jobId);
    if (job && job.status === "scraping" && insertTasks(ctx, jobId, ctx.drainHook(job), Number.MAX_SAFE_INTEGER) > 0) return;
  }
  const t = ctx.now();
  const r = db
    .query(`UPDATE jobs SET status = 'completed', updated_at = ?, completed_at = ?, expires_at = ? + ${JOB_TTL_SQL} WHERE id = ? AND status = 'scraping'`)
    .run(t, t, t, jobId);
  ctx.spares.delete(jobId);
  if (r.changes > 0) ctx.emit({ job: readJob(db, jobId)!, event: "completed", success: true, data: [] });
}
