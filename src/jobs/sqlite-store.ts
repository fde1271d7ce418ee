/**
 * @module jobs/sqlite-store
 * The SQLite {@link JobStore}. Every write is one `BEGIN IMMEDIATE` transaction (reliability.md B3): the state
 * change, the counters, the tasks it adds and the job event it announces commit together or not at all, so a
 * `kill -9` at any moment leaves a consistent database that `recoverAll` resumes from.
 *
 * This file holds the job lifecycle (create, append, cancel, fail, read); task claiming and leases are in
 * jobs/task-leases, the in-transaction steps both share in jobs/store-steps, row mapping in jobs/store-rows.
 */
import type { Database } from "bun:sqlite";
import { BadRequestError, type SerializedError } from "../errors.ts";
import { immediate } from "../storage/database.ts";
import { addTasks, type AddedTasks, dropPendingTasks, loadPendingChunk, type LoadedChunk, type PendingCache } from "./pending-tasks.ts";
import { readJob, toJob, type JobRow } from "./store-rows.ts";
import { SpareTasks } from "./spare-tasks.ts";
import { type DrainHook, finishJobIfDone, insertTasks, JOB_TTL_SQL, type StoreContext } from "./store-steps.ts";
import {
  claimTask, completeTask, failTask, reapExpired, recordHostOutcome, recoverActive, releaseTask, renewLease, retryTask,
} from "./task-leases.ts";
import type { AppendedOptions, ClaimLimits, Completion, Job, JobEventSink, JobStatus, JobStore, NewTask, Task } from "./types.ts";

/** Different option sets one batch keeps from `appendToId` requests (each is read with every page of the job). */
export const MAX_APPENDED_OPTION_SETS = 20;

export { type DrainHook, JOB_TTL_MS, jobTtlMs, ZDR_JOB_TTL_MS } from "./store-steps.ts";

/** Thrown by `createJob` when the key already used this idempotency key. */
export class IdempotencyConflictError extends Error {}

/** SQLite implementation of the job store. */
export class SqliteJobStore implements JobStore {
  /** What the shared steps and the task functions work with; `drainHook` lives here. */
  private readonly ctx: StoreContext;
  /** Parsed lists of tasks waiting in `job_pending_tasks` (jobs/pending-tasks.ts). */
  private readonly pendingCache: PendingCache = new Map();

  constructor(
    private readonly db: Database,
    private readonly sink: JobEventSink = () => {},
    private readonly now: () => number = Date.now,
    // Time-ordered ids: task ids are the primary key, and random ones scattered a large batch's inserts over the
    // whole index (a 100,000-task insert took 1.5–2 s, 1.0–1.3 s with these).
    newId: () => string = () => Bun.randomUUIDv7(),
  ) {
    this.ctx = { db, now, newId, emit: (e) => this.sink(e), spares: new SpareTasks() };
  }

  /**
   * Sets the hook asked for last tasks when a job runs out of work, before it completes (changeTracking's
   * "hidden" re-checks of pages the previous crawl saw). Runs inside the store's transaction.
   */
  setDrainHook(hook: DrainHook): void {
    this.ctx.drainHook = hook;
  }

  /**
   * Charges the job's key for each page as the page is stored, in the same transaction (StoreContext.chargeHook).
   * The task runner then scrapes without charging: charged at scrape time, a page fetched and charged whose result
   * never committed (kill -9, a lost lease, a full disk) was charged again when it ran again.
   */
  setChargeHook(hook: (keyId: string, credits: number) => void): void {
    this.ctx.chargeHook = hook;
  }

  /**
   * Throws {@link IdempotencyConflictError} when `keyId` already used `idempotencyKey` (upstream's `x-idempotency-key`),
   * to create a job or to add URLs to a batch (`batch_append_keys`). Call inside the transaction that records it.
   */
  private assertIdempotencyKeyUnused(keyId: string, idempotencyKey: string): void {
    const used = this.db
      .query(
        `SELECT 1 FROM jobs WHERE key_id = ?1 AND idempotency_key = ?2
         UNION ALL SELECT 1 FROM batch_append_keys WHERE key_id = ?1 AND idempotency_key = ?2 LIMIT 1`,
      )
      .get(keyId, idempotencyKey);
    if (used) throw new IdempotencyConflictError("Idempotency key already used");
  }

  createJob(job: Parameters<JobStore["createJob"]>[0], tasks: NewTask[], idempotencyKey?: string): Job {
    let added: AddedTasks = { added: 0 };
    const created = immediate(this.db, () => {
      if (idempotencyKey !== undefined) this.assertIdempotencyKeyUnused(job.keyId, idempotencyKey);
      const t = this.now();
      this.db
        .query(
          `INSERT INTO jobs (id, kind, key_id, status, url, options, public_base_url, max_concurrency, idempotency_key,
             created_at, updated_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(job.id, job.kind, job.keyId, job.status, job.url, JSON.stringify(job.options), job.publicBaseUrl,
          job.options.maxConcurrency ?? null, idempotencyKey ?? null, t, t, job.expiresAt);
      added = addTasks(this.ctx, job.id, tasks, Number.MAX_SAFE_INTEGER);
      this.ctx.emit({ job: readJob(this.db, job.id)!, event: "started", success: true, data: [] });
      // A job with nothing to do (e.g. a batch whose URLs were all invalid) is complete at once.
      finishJobIfDone(this.ctx, job.id);
      return readJob(this.db, job.id)!;
    });
    this.cacheDeferred(added);
    return created;
  }

  enqueue(jobId: string, tasks: NewTask[], limit: number): number {
    return immediate(this.db, () => insertTasks(this.ctx, jobId, tasks, limit));
  }

  /**
   * Queues the next chunk of up to `max` accepted tasks (jobs/pending-tasks.ts), in one transaction; a job whose
   * last pending tasks these were completes here if they have nothing left to run (all failed at once, say).
   * Undefined when nothing is pending.
   */
  loadPending(max: number): LoadedChunk | undefined {
    return immediate(this.db, () => {
      const chunk = loadPendingChunk(this.ctx, this.pendingCache, max);
      if (chunk?.rowDone) finishJobIfDone(this.ctx, chunk.jobId);
      return chunk;
    });
  }

  /** Keeps a committed pending row's parsed tasks, so that its chunks do not parse them again. */
  private cacheDeferred(added: AddedTasks): void {
    if (added.deferred) this.pendingCache.set(added.deferred.token, added.deferred.tasks);
  }

  claim(owner: string, leaseMs: number, limits: ClaimLimits): Task | undefined {
    return claimTask(this.ctx, owner, leaseMs, limits);
  }

  renew(taskId: string, owner: string, leaseMs: number): boolean {
    return renewLease(this.ctx, taskId, owner, leaseMs);
  }

  complete(taskId: string, owner: string, c: Completion): boolean {
    return completeTask(this.ctx, taskId, owner, c);
  }

  fail(taskId: string, owner: string, error: SerializedError): boolean {
    return failTask(this.ctx, taskId, owner, error);
  }

  retry(taskId: string, owner: string, notBefore: number): boolean {
    return retryTask(this.ctx, taskId, owner, notBefore);
  }

  release(taskId: string, owner: string, notBefore: number): boolean {
    return releaseTask(this.ctx, taskId, owner, notBefore);
  }

  reap(maxStalls: number): number {
    return reapExpired(this.ctx, maxStalls);
  }

  recoverAll(maxStalls: number): number {
    return recoverActive(this.ctx, maxStalls);
  }

  /**
   * Adds tasks to an existing batch (`appendToId`), with the adding request's options (`appended`); a batch that had
   * completed goes back to `scraping`. Cancelled or failed batches refuse (400): their results are final. An
   * `idempotencyKey` the batch's key already used is refused ({@link IdempotencyConflictError}), else recorded
   * (`batch_append_keys`, kept as long as the batch) in the same transaction as the tasks.
   */
  reopenAndEnqueue(jobId: string, tasks: NewTask[], appended?: AppendedOptions, idempotencyKey?: string): number {
    let result: AddedTasks = { added: 0 };
    const added = immediate(this.db, () => {
      const job = readJob(this.db, jobId);
      if (!job || job.status === "cancelled" || job.status === "failed") {
        throw new BadRequestError(`Batch ${jobId} is ${job?.status ?? "unknown"} and cannot take more URLs.`);
      }
      if (idempotencyKey !== undefined) {
        this.assertIdempotencyKeyUnused(job.keyId, idempotencyKey);
        this.db
          .query("INSERT INTO batch_append_keys (key_id, idempotency_key, job_id, created_at) VALUES (?, ?, ?, ?)")
          .run(job.keyId, idempotencyKey, jobId, this.now());
      }
      if (appended && tasks.length > 0) {
        // The request's own options go with its URLs: kept in the job, each task pointing at them. Options the job
        // already has (its own, or an earlier append's) are reused, so a client appending URL by URL adds nothing.
        // (An append without a webhook announces its pages to the batch's: its scrape options alone tell it apart.)
        const key = JSON.stringify(appended);
        const same = (o: AppendedOptions) => JSON.stringify(o) === key;
        const list = job.options.appended ?? [];
        const isOwn =
          JSON.stringify(appended.scrapeOptions) === JSON.stringify(job.options.scrapeOptions) &&
          (appended.webhook === undefined || JSON.stringify(appended.webhook) === JSON.stringify(job.options.webhook));
        let index: number | undefined = isOwn ? undefined : list.findIndex(same);
        if (index === -1) {
          if (list.length >= MAX_APPENDED_OPTION_SETS) {
            throw new BadRequestError(`Batch ${jobId} already has ${MAX_APPENDED_OPTION_SETS} different sets of options from appendToId; start a new batch for more.`);
          }
          this.db.query("UPDATE jobs SET options = ? WHERE id = ?").run(JSON.stringify({ ...job.options, appended: [...list, appended] }), jobId);
          index = list.length;
        }
        if (index !== undefined) tasks = tasks.map((t) => ({ ...t, optionsIndex: index }));
      }
      result = addTasks(this.ctx, jobId, tasks, Number.MAX_SAFE_INTEGER);
      if ((result.added > 0 || result.deferred) && job.status === "completed") {
        this.db.query("UPDATE jobs SET status = 'scraping', completed_at = NULL, updated_at = ? WHERE id = ?").run(this.now(), jobId);
      }
      return result.added;
    });
    this.cacheDeferred(result);
    return added;
  }

  /** Gives up on a host after `threshold` attempts in a row it did not answer; see {@link recordHostOutcome}. */
  recordHostOutcome(jobId: string, host: string, ok: boolean, threshold: number): number {
    return recordHostOutcome(this.ctx, jobId, host, ok, threshold);
  }

  /** The running crawls a monitor check started (JobOptions.monitorCheckId). */
  runningCrawlsOfCheck(checkId: string): string[] {
    return this.db
      .query<{ id: string }, [string]>("SELECT id FROM jobs WHERE status = 'scraping' AND kind = 'crawl' AND json_extract(options, '$.monitorCheckId') = ?")
      .all(checkId)
      .map((r) => r.id);
  }

  /** Cancels a job: queued tasks are dropped, running ones finish but their results are discarded. */
  cancel(jobId: string): boolean {
    return immediate(this.db, () => {
      const job = readJob(this.db, jobId);
      if (!job || job.status !== "scraping") return false;
      const t = this.now();
      this.db.query("UPDATE tasks SET status = 'cancelled', lease_owner = NULL WHERE job_id = ? AND status IN ('queued', 'active')").run(jobId);
      dropPendingTasks(this.db, this.pendingCache, jobId);
      this.ctx.spares.delete(jobId);
      this.db
        .query(`UPDATE jobs SET status = 'cancelled', updated_at = ?, completed_at = ?, expires_at = ? + ${JOB_TTL_SQL} WHERE id = ?`)
        .run(t, t, t, jobId);
      this.ctx.emit({ job: readJob(this.db, jobId)!, event: "cancelled", success: false, data: [], error: "The job was cancelled." });
      return true;
    });
  }

  /** Marks a job failed (e.g. its kickoff could not run); pending tasks are cancelled. */
  failJob(jobId: string, message: string): void {
    immediate(this.db, () => {
      const t = this.now();
      this.db.query("UPDATE tasks SET status = 'cancelled', lease_owner = NULL WHERE job_id = ? AND status IN ('queued', 'active')").run(jobId);
      dropPendingTasks(this.db, this.pendingCache, jobId);
      this.ctx.spares.delete(jobId);
      const r = this.db
        .query(`UPDATE jobs SET status = 'failed', error = ?, updated_at = ?, completed_at = ?, expires_at = ? + ${JOB_TTL_SQL} WHERE id = ? AND status = 'scraping'`)
        .run(message, t, t, t, jobId);
      if (r.changes > 0) this.ctx.emit({ job: readJob(this.db, jobId)!, event: "failed", success: false, data: [], error: message });
    });
  }

  get(jobId: string): Job | undefined {
    return readJob(this.db, jobId);
  }

  list(keyId: string, status?: JobStatus): Job[] {
    const rows = status
      ? this.db.query<JobRow, [string, string]>("SELECT * FROM jobs WHERE key_id = ? AND status = ? ORDER BY created_at").all(keyId, status)
      : this.db.query<JobRow, [string]>("SELECT * FROM jobs WHERE key_id = ? ORDER BY created_at").all(keyId);
    return rows.map(toJob);
  }
}
