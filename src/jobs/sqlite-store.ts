/**
 * @module jobs/sqlite-store
 * The SQLite {@link JobStore}. Every write is one `BEGIN IMMEDIATE` transaction (reliability.md B3): the state
 * change, the counters, the tasks it adds and the job event it announces commit together or not at all, so a
 * `kill -9` at any moment leaves a consistent database that `recoverAll` resumes from.
 *
 * This file holds the job lifecycle (create, append, read); task claiming and leases are in jobs/task-leases,
 * cancelling and failing a job in jobs/job-endings, giving up a host in jobs/host-give-up, the in-transaction steps
 * they share in jobs/store-steps, an append's checks in jobs/store-appends, large lists stored a row per transaction
 * in jobs/task-intake, row mapping in jobs/store-rows.
 */
import type { Database } from "bun:sqlite";
import type { SerializedError } from "../errors.ts";
import { immediate } from "../storage/database.ts";
import { HostGiveUps } from "./host-give-up.ts";
import { JobEndings } from "./job-endings.ts";
import { addTasks, type AddedTasks, type DeferredRow, INLINE_TASKS, loadPendingChunk, type LoadedChunk, type PendingCache } from "./pending-tasks.ts";
import { readJob, toJob, type JobRow } from "./store-rows.ts";
import { SpareTasks } from "./spare-tasks.ts";
import { acceptAppend, assertIdempotencyKeyUnused, reopenIfCompleted } from "./store-appends.ts";
import { type DrainHook, finishJobIfDone, insertTasks, type StoreContext } from "./store-steps.ts";
import {
  type AbandonedIntakes, CREATING_STATUS, dropAbandonedIntakes, findAbandonedIntakes, IntakeLostError, runIntake,
} from "./task-intake.ts";
import { claimTask, completeTask, failTask, reapExpired, recoverActive, releaseTask, renewLease, retryTask } from "./task-leases.ts";
import type { AppendedOptions, ClaimLimits, Completion, Job, JobEventSink, JobStatus, JobStore, NewTask, Task } from "./types.ts";

export { type DrainHook, JOB_TTL_MS, jobTtlMs, ZDR_JOB_TTL_MS } from "./store-steps.ts";
export { IdempotencyConflictError, MAX_APPENDED_OPTION_SETS } from "./store-appends.ts";

/** SQLite implementation of the job store. */
export class SqliteJobStore implements JobStore {
  /** What the shared steps and the task functions work with; `drainHook` lives here. */
  private readonly ctx: StoreContext;
  /** Parsed lists of tasks waiting in `job_pending_tasks` (jobs/pending-tasks.ts). */
  private readonly pendingCache: PendingCache = new Map();
  /** Cancelled and failed jobs, and what they still have waiting (jobs/job-endings.ts). */
  private readonly endings: JobEndings;
  /** Hosts given up whose queued pages are being failed (jobs/host-give-up.ts). */
  private readonly giveUps: HostGiveUps;

  constructor(
    private readonly db: Database,
    private readonly sink: JobEventSink = () => {},
    private readonly now: () => number = Date.now,
    // Time-ordered ids: task ids are the primary key, and random ones scattered a large batch's inserts over the
    // whole index (a 100,000-task insert took 1.5–2 s, 1.0–1.3 s with these).
    newId: () => string = () => Bun.randomUUIDv7(),
  ) {
    this.ctx = { db, now, newId, emit: (e) => this.sink(e), spares: new SpareTasks(db) };
    this.endings = new JobEndings(this.ctx, this.pendingCache);
    this.giveUps = new HostGiveUps(this.ctx);
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

  /** Inserts the `jobs` row of `job` with `status` (the job's own, or `creating` while its tasks are written). */
  private insertJobRow(job: Parameters<JobStore["createJob"]>[0], status: string, idempotencyKey: string | undefined, t: number): void {
    this.db
      .query(
        `INSERT INTO jobs (id, kind, key_id, status, url, options, public_base_url, max_concurrency, idempotency_key,
           created_at, updated_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(job.id, job.kind, job.keyId, status, job.url, JSON.stringify(job.options), job.publicBaseUrl,
        job.options.maxConcurrency ?? null, idempotencyKey ?? null, t, t, job.expiresAt);
  }

  createJob(job: Parameters<JobStore["createJob"]>[0], tasks: NewTask[], idempotencyKey?: string): Job {
    let added: AddedTasks = { added: 0 };
    const created = immediate(this.db, () => {
      if (idempotencyKey !== undefined) assertIdempotencyKeyUnused(this.db, job.keyId, idempotencyKey);
      this.insertJobRow(job, job.status, idempotencyKey, this.now());
      added = addTasks(this.ctx, job.id, tasks, Number.MAX_SAFE_INTEGER);
      this.ctx.emit({ job: readJob(this.db, job.id)!, event: "started", success: true, data: [] });
      // A job with nothing to do (e.g. a batch whose URLs were all invalid) is complete at once.
      finishJobIfDone(this.ctx, job.id);
      return readJob(this.db, job.id)!;
    });
    this.cacheDeferred(added.deferred);
    return created;
  }

  /**
   * {@link createJob} without holding the event loop for a large list (jobs/task-intake.ts): the job is `creating`
   * (hidden) while its tasks are written a row per transaction, then becomes the job, its rows pending, in one last
   * transaction. It resolves once that has committed; on failure nothing is left (what a dead process left is dropped
   * at the next start). A list of at most {@link INLINE_TASKS} is created by createJob, in one transaction.
   */
  async createJobYielding(job: Parameters<JobStore["createJob"]>[0], tasks: NewTask[], idempotencyKey?: string): Promise<Job> {
    if (tasks.length <= INLINE_TASKS) return this.createJob(job, tasks, idempotencyKey);
    const { result, rows } = await runIntake(this.db, job.id, tasks, this.now(), {
      creatingJobId: job.id,
      open: () => {
        // Checked (and the key taken) first: a retry of the same request meanwhile is refused, not accepted twice.
        if (idempotencyKey !== undefined) assertIdempotencyKeyUnused(this.db, job.keyId, idempotencyKey);
        this.insertJobRow(job, CREATING_STATUS, idempotencyKey, this.now());
      },
      accept: (close) => {
        const r = this.db
          .query("UPDATE jobs SET status = ?, total = ?, updated_at = ? WHERE id = ? AND status = ?")
          .run(job.status, tasks.length, this.now(), job.id, CREATING_STATUS);
        if (r.changes !== 1) throw new IntakeLostError();
        close();
        const started = readJob(this.db, job.id)!;
        this.ctx.emit({ job: started, event: "started", success: true, data: [] });
        return started;
      },
    });
    this.cacheDeferred(rows);
    return result;
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

  /** Keeps committed pending rows' parsed tasks, so that loading them does not parse them again. */
  private cacheDeferred(rows: DeferredRow[] | undefined): void {
    for (const row of rows ?? []) this.pendingCache.set(row.token, row.tasks);
  }

  /** What a previous process left half-accepted (jobs/task-intake.ts); read at start, before any request. */
  findAbandonedIntakes(): AbandonedIntakes {
    return findAbandonedIntakes(this.db);
  }

  /** Drops what {@link findAbandonedIntakes} found, a few rows per transaction with the event loop free between. */
  dropAbandonedIntakes(abandoned: AbandonedIntakes): Promise<void> {
    return dropAbandonedIntakes(this.db, abandoned);
  }

  /**
   * Leases the next runnable task (jobs/task-leases.ts claimTask), passing over the jobs whose tasks are being set
   * aside after their end (an ended job it meets is swept from then on) and the hosts given up whose pages are failed.
   */
  claim(owner: string, leaseMs: number, limits: ClaimLimits): Task | undefined {
    const sweeping = this.endings.sweepingJobs();
    if (sweeping.size > 0) limits = { ...limits, busyJobs: [...limits.busyJobs, ...sweeping] };
    if (this.giveUps.active) limits = { ...limits, busyJobHosts: [...limits.busyJobHosts, ...this.giveUps.pairs()] };
    return claimTask(this.ctx, owner, leaseMs, limits, (jobId) => this.endings.sweepInBackground(jobId));
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

  /** At start: requeues what a dead process left running, and sweeps in the background its unfinished cancels' tasks. */
  recoverAll(maxStalls: number): number {
    const recovered = recoverActive(this.ctx, maxStalls);
    this.endings.resumeSweeps();
    return recovered;
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
      const { job, optionsIndex } = acceptAppend(this.ctx, jobId, tasks.length > 0 ? appended : undefined, idempotencyKey);
      if (optionsIndex !== undefined) tasks = tasks.map((t) => ({ ...t, optionsIndex }));
      result = addTasks(this.ctx, jobId, tasks, Number.MAX_SAFE_INTEGER);
      if (result.added > 0 || result.deferred) reopenIfCompleted(this.ctx, job);
      return result.added;
    });
    this.cacheDeferred(result.deferred);
    return added;
  }

  /**
   * {@link reopenAndEnqueue} without holding the event loop for a large list (jobs/task-intake.ts): the tasks are
   * written a row per transaction, held, and become the batch's in one last transaction, which checks and records
   * what reopenAndEnqueue does. The same checks run before anything is written, so that a refused append is refused
   * at once. A list of at most {@link INLINE_TASKS} is added by reopenAndEnqueue, in one transaction.
   */
  async reopenAndEnqueueYielding(jobId: string, tasks: NewTask[], appended?: AppendedOptions, idempotencyKey?: string): Promise<number> {
    if (tasks.length <= INLINE_TASKS) return this.reopenAndEnqueue(jobId, tasks, appended, idempotencyKey);
    // A dry run: the checks of the last transaction, rolled back.
    this.db.exec("BEGIN IMMEDIATE");
    try {
      acceptAppend(this.ctx, jobId, appended, idempotencyKey);
    } finally {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
    }
    const { result: optionsIndex, rows } = await runIntake(this.db, jobId, tasks, this.now(), {
      accept: (close) => {
        const accepted = acceptAppend(this.ctx, jobId, appended, idempotencyKey);
        close(accepted.optionsIndex);
        this.db.query("UPDATE jobs SET total = total + ?, updated_at = ? WHERE id = ?").run(tasks.length, this.now(), jobId);
        reopenIfCompleted(this.ctx, accepted.job);
        return accepted.optionsIndex;
      },
    });
    if (optionsIndex !== undefined) for (const row of rows) for (const t of row.tasks) t.optionsIndex = optionsIndex;
    this.cacheDeferred(rows);
    return 0;
  }

  /**
   * Gives up on a host after `threshold` attempts in a row it did not answer (jobs/host-give-up.ts): the first chunk
   * of its queued pages fails now, the rest through {@link continueGiveUps}.
   */
  recordHostOutcome(jobId: string, host: string, ok: boolean, threshold: number): number {
    return this.giveUps.record(jobId, host, ok, threshold);
  }

  continueGiveUps(): number {
    return this.giveUps.continue();
  }

  /** The running crawls a monitor check started (JobOptions.monitorCheckId). */
  runningCrawlsOfCheck(checkId: string): string[] {
    return this.db
      .query<{ id: string }, [string]>("SELECT id FROM jobs WHERE status = 'scraping' AND kind = 'crawl' AND json_extract(options, '$.monitorCheckId') = ?")
      .all(checkId)
      .map((r) => r.id);
  }

  /** Cancels a running job (jobs/job-endings.ts); false when it was not running. */
  cancel(jobId: string): boolean {
    return this.endings.cancel(jobId);
  }

  /** Sets aside one chunk of what an ended job still has waiting (jobs/job-endings.ts); 0 once nothing is left. */
  sweepEnded(jobId: string): number {
    return this.endings.sweepEnded(jobId);
  }

  /** Marks a running job failed, but for `keepTaskId`'s page; what it had waiting is set aside (jobs/job-endings.ts). */
  failJob(jobId: string, message: string, keepTaskId?: string): void {
    this.endings.failJob(jobId, message, keepTaskId);
  }

  /** The job `jobId`; undefined for none, and for one still `creating` (its tasks are being written: not a job yet). */
  get(jobId: string): Job | undefined {
    const job = readJob(this.db, jobId);
    return job && job.status !== CREATING_STATUS ? job : undefined;
  }

  list(keyId: string, status?: JobStatus): Job[] {
    const rows = status
      ? this.db.query<JobRow, [string, string]>("SELECT * FROM jobs WHERE key_id = ? AND status = ? ORDER BY created_at").all(keyId, status)
      : this.db.query<JobRow, [string, string]>("SELECT * FROM jobs WHERE key_id = ? AND status != ? ORDER BY created_at").all(keyId, CREATING_STATUS);
    return rows.map(toJob);
  }
}
