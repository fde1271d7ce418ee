/**
 * @module jobs/sqlite-store
 * The SQLite {@link JobStore}. Every write is one `BEGIN IMMEDIATE` transaction (reliability.md B3): the state
 * change, the counters, the tasks it adds and the job event it announces commit together or not at all, so a
 * `kill -9` at any moment leaves a consistent database that `recoverAll` resumes from.
 *
 * This file holds the job lifecycle (create, append, cancel, fail, read); task claiming and leases are in
 * jobs/task-leases, the in-transaction steps both share in jobs/store-steps, an append's checks in
 * jobs/store-appends, large lists stored a row per transaction in jobs/task-intake, row mapping in jobs/store-rows.
 */
import type { Database } from "bun:sqlite";
import type { SerializedError } from "../errors.ts";
import { immediate } from "../storage/database.ts";
import { addTasks, type AddedTasks, type DeferredRow, dropPendingTasks, INLINE_TASKS, loadPendingChunk, type LoadedChunk, type PendingCache } from "./pending-tasks.ts";
import { readJob, toJob, type JobRow } from "./store-rows.ts";
import { SpareTasks } from "./spare-tasks.ts";
import { acceptAppend, assertIdempotencyKeyUnused, reopenIfCompleted } from "./store-appends.ts";
import { type DrainHook, finishJobIfDone, insertTasks, JOB_TTL_SQL, type StoreContext, sweepQueuedTasks } from "./store-steps.ts";
import {
  type AbandonedIntakes, CREATING_STATUS, DROP_ROWS_PER_TRANSACTION, dropAbandonedIntakes, findAbandonedIntakes, IntakeLostError, runIntake,
} from "./task-intake.ts";
import {
  claimTask, completeTask, failTask, reapExpired, recordHostOutcome, recoverActive, releaseTask, renewLease, retryTask,
} from "./task-leases.ts";
import type { AppendedOptions, ClaimLimits, Completion, Job, JobEventSink, JobStatus, JobStore, NewTask, Task } from "./types.ts";

export { type DrainHook, JOB_TTL_MS, jobTtlMs, ZDR_JOB_TTL_MS } from "./store-steps.ts";
export { IdempotencyConflictError, MAX_APPENDED_OPTION_SETS } from "./store-appends.ts";

/** SQLite implementation of the job store. */
export class SqliteJobStore implements JobStore {
  /** What the shared steps and the task functions work with; `drainHook` lives here. */
  private readonly ctx: StoreContext;
  /** Parsed lists of tasks waiting in `job_pending_tasks` (jobs/pending-tasks.ts). */
  private readonly pendingCache: PendingCache = new Map();
  /**
   * Jobs cancelled by this process whose queued tasks are still being set aside ({@link sweepEnded}): claims pass
   * them over as they pass a busy job's, without reading them (task-leases.ts would set a chunk aside per claim).
   */
  private readonly sweeping = new Set<string>();

  constructor(
    private readonly db: Database,
    private readonly sink: JobEventSink = () => {},
    private readonly now: () => number = Date.now,
    // Time-ordered ids: task ids are the primary key, and random ones scattered a large batch's inserts over the
    // whole index (a 100,000-task insert took 1.5–2 s, 1.0–1.3 s with these).
    newId: () => string = () => Bun.randomUUIDv7(),
  ) {
    this.ctx = { db, now, newId, emit: (e) => this.sink(e), spares: new SpareTasks(db) };
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

  claim(owner: string, leaseMs: number, limits: ClaimLimits): Task | undefined {
    return claimTask(this.ctx, owner, leaseMs, this.sweeping.size === 0 ? limits : { ...limits, busyJobs: [...limits.busyJobs, ...this.sweeping] });
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

  /**
   * Cancels a job: running tasks end now (their results are discarded), and from this transaction on none of its
   * tasks is handed out (jobs/task-leases.ts claims only a running job's). Its pending rows and queued tasks are set
   * aside here up to a chunk, the rest by {@link sweepEnded}: one statement over a 264,000-URL batch's tasks held
   * every other request ~1 s.
   */
  cancel(jobId: string): boolean {
    return immediate(this.db, () => {
      const job = readJob(this.db, jobId);
      if (!job || job.status !== "scraping") return false;
      const t = this.now();
      // The running pages: a few (the pool's concurrency), through the job's status index.
      this.db.query("UPDATE tasks SET status = 'cancelled', lease_owner = NULL WHERE job_id = ? AND status = 'active'").run(jobId);
      this.ctx.spares.delete(jobId);
      this.db
        .query(`UPDATE jobs SET status = 'cancelled', updated_at = ?, completed_at = ?, expires_at = ? + ${JOB_TTL_SQL} WHERE id = ?`)
        .run(t, t, t, jobId);
      this.sweepStep(jobId);
      if (this.hasWaiting(jobId)) this.sweeping.add(jobId);
      this.ctx.emit({ job: readJob(this.db, jobId)!, event: "cancelled", success: false, data: [], error: "The job was cancelled." });
      return true;
    });
  }

  /**
   * Sets aside one chunk of what an ended (cancelled or failed) job still has waiting: pending rows first, then
   * queued tasks (set `cancelled`); returns how much, 0 once nothing is left. Nothing for a running job.
   */
  sweepEnded(jobId: string): number {
    const swept = immediate(this.db, () => {
      const job = readJob(this.db, jobId);
      return !job || job.status === "scraping" || job.status === CREATING_STATUS ? 0 : this.sweepStep(jobId);
    });
    if (swept === 0) this.sweeping.delete(jobId);
    return swept;
  }

  /** Whether `jobId` has tasks queued or pending rows (held ones included). */
  private hasWaiting(jobId: string): boolean {
    return (
      this.db.query("SELECT 1 FROM tasks WHERE job_id = ? AND status = 'queued' LIMIT 1").get(jobId) !== null ||
      this.db.query("SELECT 1 FROM job_pending_tasks WHERE job_id = ? LIMIT 1").get(jobId) !== null
    );
  }

  /** One chunk of {@link sweepEnded}, in the caller's transaction. */
  private sweepStep(jobId: string): number {
    const rows = dropPendingTasks(this.db, this.pendingCache, jobId, DROP_ROWS_PER_TRANSACTION);
    return rows > 0 ? rows : sweepQueuedTasks(this.db, jobId);
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
