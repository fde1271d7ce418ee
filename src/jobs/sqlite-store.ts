/**
 * @module jobs/sqlite-store
 * The SQLite {@link JobStore}. Every write is one `BEGIN IMMEDIATE` transaction (reliability.md B3): the state
 * change, the counters, the tasks it adds and the job event it announces commit together or not at all, so a
 * `kill -9` at any moment leaves a consistent database that `recoverAll` resumes from.
 */
import type { Database } from "bun:sqlite";
import { BadRequestError, type SerializedError } from "../errors.ts";
import { immediate } from "../storage/database.ts";
import type { ClaimLimits, Completion, Job, JobEvent, JobEventSink, JobStatus, JobStore, NewTask, Task } from "./types.ts";

/** Asked for last tasks when a job has nothing queued or running; returning none lets the job complete. */
export type DrainHook = (job: Job) => NewTask[];

/** How long finished job results stay readable (extended when read). */
export const JOB_TTL_MS = 24 * 60 * 60 * 1000;

type JobRow = {
  id: string; kind: Job["kind"]; key_id: string; status: JobStatus; url: string | null; options: string;
  public_base_url: string; total: number; completed: number; credits_used: number; error: string | null;
  created_at: number; updated_at: number; completed_at: number | null; expires_at: number;
};
type TaskRow = {
  id: string; job_id: string; kind: Task["kind"]; seq: number; url: string; source_url: string | null; depth: number; host: string;
  status: Task["status"]; attempts: number; stalls: number; lease_owner: string | null; lease_expires_at: number | null;
};

function toJob(r: JobRow): Job {
  return {
    id: r.id, kind: r.kind, keyId: r.key_id, status: r.status, url: r.url, options: JSON.parse(r.options),
    publicBaseUrl: r.public_base_url, total: r.total, completed: r.completed, creditsUsed: r.credits_used,
    error: r.error, createdAt: r.created_at, updatedAt: r.updated_at, completedAt: r.completed_at, expiresAt: r.expires_at,
  };
}

function toTask(r: TaskRow): Task {
  return {
    id: r.id, jobId: r.job_id, kind: r.kind, seq: r.seq, url: r.url, sourceUrl: r.source_url ?? r.url, depth: r.depth, host: r.host, status: r.status,
    attempts: r.attempts, stalls: r.stalls, leaseOwner: r.lease_owner, leaseExpiresAt: r.lease_expires_at,
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

/** Thrown by `createJob` when the key already used this idempotency key. */
export class IdempotencyConflictError extends Error {}

/** SQLite implementation of the job store. */
export class SqliteJobStore implements JobStore {
  constructor(
    private readonly db: Database,
    private readonly sink: JobEventSink = () => {},
    private readonly now: () => number = Date.now,
    private readonly newId: () => string = () => crypto.randomUUID(),
  ) {}

  private drainHook?: DrainHook;

  /**
   * Sets the hook asked for last tasks when a job runs out of work, before it completes (changeTracking's
   * "hidden" re-checks of pages the previous crawl saw). Runs inside the store's transaction.
   */
  setDrainHook(hook: DrainHook): void {
    this.drainHook = hook;
  }

  createJob(job: Parameters<JobStore["createJob"]>[0], tasks: NewTask[], idempotencyKey?: string): Job {
    return immediate(this.db, () => {
      if (idempotencyKey !== undefined) {
        const used = this.db.query("SELECT 1 FROM jobs WHERE key_id = ? AND idempotency_key = ?").get(job.keyId, idempotencyKey);
        if (used) throw new IdempotencyConflictError("Idempotency key already used");
      }
      const t = this.now();
      this.db
        .query(
          `INSERT INTO jobs (id, kind, key_id, status, url, options, public_base_url, max_concurrency, idempotency_key,
             created_at, updated_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(job.id, job.kind, job.keyId, job.status, job.url, JSON.stringify(job.options), job.publicBaseUrl,
          job.options.maxConcurrency ?? null, idempotencyKey ?? null, t, t, job.expiresAt);
      this.insertTasks(job.id, tasks, Number.MAX_SAFE_INTEGER);
      const created = this.getJob(job.id)!;
      this.emit({ job: created, event: "started", success: true, data: [] });
      // A job with nothing to do (e.g. a batch whose URLs were all invalid) is complete at once.
      this.finishJobIfDone(job.id);
      return this.getJob(job.id)!;
    });
  }

  enqueue(jobId: string, tasks: NewTask[], limit: number): number {
    return immediate(this.db, () => this.insertTasks(jobId, tasks, limit));
  }

  /** Adds tasks while the job has fewer than `limit` pages; duplicates (same dedup key) are ignored. */
  private insertTasks(jobId: string, tasks: NewTask[], limit: number): number {
    if (tasks.length === 0) return 0;
    const job = this.db.query<{ total: number; seq: number }, [string]>(
      "SELECT total, (SELECT COALESCE(MAX(seq), 0) FROM tasks WHERE job_id = jobs.id) AS seq FROM jobs WHERE id = ?",
    ).get(jobId);
    if (!job) return 0;
    const insert = this.db.query(
      `INSERT OR IGNORE INTO tasks (id, job_id, kind, seq, url, source_url, dedup_key, depth, host, status, not_before, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?)`,
    );
    const t = this.now();
    let total = job.total;
    let seq = job.seq;
    let added = 0;
    for (const task of tasks) {
      if (task.kind === "page" && total >= limit) break;
      const source = task.sourceUrl !== undefined && task.sourceUrl !== task.url ? task.sourceUrl : null;
      const r = insert.run(this.newId(), jobId, task.kind, ++seq, task.url, source, task.dedupKey, task.depth, hostOf(task.url), task.notBefore ?? t, t);
      if (r.changes > 0 && task.kind === "page") {
        total++;
        added++;
      }
    }
    if (added > 0) this.db.query("UPDATE jobs SET total = total + ?, updated_at = ? WHERE id = ?").run(added, t, jobId);
    return added;
  }

  claim(owner: string, leaseMs: number, limits: ClaimLimits): Task | undefined {
    return immediate(this.db, () => {
      const t = this.now();
      const row = this.db
        .query<TaskRow, [number, string, string, string]>(
          `SELECT * FROM tasks WHERE status = 'queued' AND not_before <= ?
             AND host NOT IN (SELECT value FROM json_each(?)) AND job_id NOT IN (SELECT value FROM json_each(?))
             AND (job_id || ' ' || host) NOT IN (SELECT value FROM json_each(?))
           ORDER BY created_at, seq LIMIT 1`,
        )
        .get(t, JSON.stringify(limits.busyHosts), JSON.stringify(limits.busyJobs), JSON.stringify(limits.busyJobHosts));
      if (!row) return undefined;
      this.db
        .query("UPDATE tasks SET status = 'active', lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1 WHERE id = ?")
        .run(owner, t + leaseMs, row.id);
      return toTask({ ...row, status: "active", lease_owner: owner, lease_expires_at: t + leaseMs, attempts: row.attempts + 1 });
    });
  }

  renew(taskId: string, owner: string, leaseMs: number): boolean {
    return this.db
      .query("UPDATE tasks SET lease_expires_at = ? WHERE id = ? AND lease_owner = ? AND status = 'active'")
      .run(this.now() + leaseMs, taskId, owner).changes > 0;
  }

  complete(taskId: string, owner: string, c: Completion): boolean {
    return immediate(this.db, () => {
      const task = this.ownedTask(taskId, owner);
      if (!task) return false;
      const t = this.now();
      const body = c.document === null ? null : JSON.stringify(c.document);
      this.db
        .query(
          `UPDATE tasks SET status = 'done', result = ?, result_bytes = ?, lease_owner = NULL, lease_expires_at = NULL,
             finished_at = ?, done_seq = (SELECT COALESCE(MAX(done_seq), 0) + 1 FROM tasks WHERE job_id = ?) WHERE id = ?`,
        )
        .run(body, body === null ? 0 : Buffer.byteLength(body), t, task.job_id, taskId);
      if (task.kind === "page") {
        this.db.query("UPDATE jobs SET completed = completed + 1, credits_used = credits_used + ?, updated_at = ? WHERE id = ?")
          .run(c.credits, t, task.job_id);
      }
      if (c.robotsBlocked?.length) {
        const ins = this.db.query("INSERT OR IGNORE INTO job_robots_blocked (job_id, url) VALUES (?, ?)");
        for (const u of c.robotsBlocked) ins.run(task.job_id, u);
      }
      if (c.optionsPatch) {
        const current = JSON.parse(this.db.query<{ options: string }, [string]>("SELECT options FROM jobs WHERE id = ?").get(task.job_id)!.options);
        this.db.query("UPDATE jobs SET options = ? WHERE id = ?").run(JSON.stringify({ ...current, ...c.optionsPatch }), task.job_id);
      }
      if (c.discovered?.length) this.insertTasks(task.job_id, c.discovered, c.limit ?? Number.MAX_SAFE_INTEGER);
      const job = this.getJob(task.job_id)!;
      if (task.kind === "page" && c.document && job.status === "scraping") {
        this.emit({ job, event: "page", success: true, data: [c.document] });
      }
      this.finishJobIfDone(task.job_id);
      return true;
    });
  }

  fail(taskId: string, owner: string, error: SerializedError): boolean {
    return immediate(this.db, () => {
      const task = this.ownedTask(taskId, owner);
      if (!task) return false;
      this.markFailed(task, error);
      this.finishJobIfDone(task.job_id);
      return true;
    });
  }

  private markFailed(task: TaskRow, error: SerializedError): void {
    const t = this.now();
    this.db
      .query(
        `UPDATE tasks SET status = 'failed', error = ?, lease_owner = NULL, lease_expires_at = NULL, finished_at = ?,
           done_seq = (SELECT COALESCE(MAX(done_seq), 0) + 1 FROM tasks WHERE job_id = ?) WHERE id = ?`,
      )
      .run(JSON.stringify(error), t, task.job_id, task.id);
    if (task.kind === "page") {
      this.db.query("UPDATE jobs SET completed = completed + 1, updated_at = ? WHERE id = ?").run(t, task.job_id);
      const job = this.getJob(task.job_id)!;
      if (job.status === "scraping") this.emit({ job, event: "page", success: false, data: [], error: error.message });
    }
  }

  retry(taskId: string, owner: string, notBefore: number): boolean {
    return this.db
      .query("UPDATE tasks SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, not_before = ? WHERE id = ? AND lease_owner = ? AND status = 'active'")
      .run(notBefore, taskId, owner).changes > 0;
  }

  reap(maxStalls: number): number {
    return immediate(this.db, () => {
      const t = this.now();
      const expired = this.db
        .query<TaskRow, [number]>("SELECT * FROM tasks WHERE status = 'active' AND lease_expires_at < ?")
        .all(t);
      for (const task of expired) {
        if (task.stalls + 1 > maxStalls) {
          this.db.query("UPDATE tasks SET stalls = stalls + 1 WHERE id = ?").run(task.id);
          this.markFailed(task, { code: "SCRAPE_RETRY_LIMIT", status: 500, message: `The page stalled ${task.stalls + 1} times and was given up.` });
          this.finishJobIfDone(task.job_id);
        } else {
          this.db
            .query("UPDATE tasks SET status = 'queued', stalls = stalls + 1, lease_owner = NULL, lease_expires_at = NULL WHERE id = ?")
            .run(task.id);
        }
      }
      return expired.length;
    });
  }

  recoverAll(): number {
    return this.db
      .query("UPDATE tasks SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL WHERE status = 'active'")
      .run().changes;
  }

  /**
   * Adds tasks to an existing batch (`appendToId`); a batch that had completed goes back to `scraping`.
   * Cancelled or failed batches refuse (400): their results are final.
   */
  reopenAndEnqueue(jobId: string, tasks: NewTask[]): number {
    return immediate(this.db, () => {
      const job = this.getJob(jobId);
      if (!job || job.status === "cancelled" || job.status === "failed") {
        throw new BadRequestError(`Batch ${jobId} is ${job?.status ?? "unknown"} and cannot take more URLs.`);
      }
      const added = this.insertTasks(jobId, tasks, Number.MAX_SAFE_INTEGER);
      if (added > 0 && job.status === "completed") {
        this.db.query("UPDATE jobs SET status = 'scraping', completed_at = NULL, updated_at = ? WHERE id = ?").run(this.now(), jobId);
      }
      return added;
    });
  }

  /**
   * Records a page attempt's outcome for the job's host. After `threshold` failed attempts in a row (network
   * errors, timeouts, 5xx/429) the job gives up on the host: its queued pages fail with `SCRAPE_HOST_GAVE_UP`
   * instead of hammering a dead or hostile server. Returns how many pages were given up.
   */
  recordHostOutcome(jobId: string, host: string, ok: boolean, threshold: number): number {
    return immediate(this.db, () => {
      if (ok) {
        this.db.query("UPDATE job_hosts SET failures = 0 WHERE job_id = ? AND host = ?").run(jobId, host);
        return 0;
      }
      this.db
        .query("INSERT INTO job_hosts (job_id, host, next_at, failures) VALUES (?, ?, 0, 1) ON CONFLICT (job_id, host) DO UPDATE SET failures = failures + 1")
        .run(jobId, host);
      const failures = this.db.query<{ failures: number }, [string, string]>("SELECT failures FROM job_hosts WHERE job_id = ? AND host = ?").get(jobId, host)!.failures;
      if (failures < threshold) return 0;
      const queued = this.db
        .query<TaskRow, [string, string]>("SELECT * FROM tasks WHERE job_id = ? AND host = ? AND status = 'queued' AND kind = 'page'")
        .all(jobId, host);
      const error = { code: "SCRAPE_HOST_GAVE_UP", status: 502, message: `Gave up on ${host} after ${failures} failed attempts in a row.` };
      for (const task of queued) this.markFailed(task, error);
      if (queued.length > 0) this.finishJobIfDone(jobId);
      return queued.length;
    });
  }

  /** Cancels a job: queued tasks are dropped, running ones finish but their results are discarded. */
  cancel(jobId: string): boolean {
    return immediate(this.db, () => {
      const job = this.getJob(jobId);
      if (!job || job.status !== "scraping") return false;
      const t = this.now();
      this.db.query("UPDATE tasks SET status = 'cancelled', lease_owner = NULL WHERE job_id = ? AND status IN ('queued', 'active')").run(jobId);
      this.db
        .query("UPDATE jobs SET status = 'cancelled', updated_at = ?, completed_at = ?, expires_at = ? WHERE id = ?")
        .run(t, t, t + JOB_TTL_MS, jobId);
      this.emit({ job: this.getJob(jobId)!, event: "cancelled", success: false, data: [], error: "The job was cancelled." });
      return true;
    });
  }

  /** Marks a job failed (e.g. its kickoff could not run); pending tasks are cancelled. */
  failJob(jobId: string, message: string): void {
    immediate(this.db, () => {
      const t = this.now();
      this.db.query("UPDATE tasks SET status = 'cancelled', lease_owner = NULL WHERE job_id = ? AND status IN ('queued', 'active')").run(jobId);
      const r = this.db
        .query("UPDATE jobs SET status = 'failed', error = ?, updated_at = ?, completed_at = ?, expires_at = ? WHERE id = ? AND status = 'scraping'")
        .run(message, t, t, t + JOB_TTL_MS, jobId);
      if (r.changes > 0) this.emit({ job: this.getJob(jobId)!, event: "failed", success: false, data: [], error: message });
    });
  }

  /** Completes the job when nothing is queued or running; announces it. Runs inside the caller's transaction. */
  private finishJobIfDone(jobId: string): void {
    // EXISTS stops at the first pending task; a COUNT here was a scan of the job's queue on every completion.
    const pending = this.db
      .query<{ one: number }, [string]>("SELECT 1 AS one FROM tasks WHERE job_id = ? AND status IN ('queued', 'active') LIMIT 1")
      .get(jobId);
    if (pending) return;
    if (this.drainHook) {
      const job = this.getJob(jobId);
      if (job && job.status === "scraping" && this.insertTasks(jobId, this.drainHook(job), Number.MAX_SAFE_INTEGER) > 0) return;
    }
    const t = this.now();
    const r = this.db
      .query("UPDATE jobs SET status = 'completed', updated_at = ?, completed_at = ?, expires_at = ? WHERE id = ? AND status = 'scraping'")
      .run(t, t, t + JOB_TTL_MS, jobId);
    if (r.changes > 0) this.emit({ job: this.getJob(jobId)!, event: "completed", success: true, data: [] });
  }

  private ownedTask(taskId: string, owner: string): TaskRow | undefined {
    return this.db
      .query<TaskRow, [string, string]>("SELECT * FROM tasks WHERE id = ? AND lease_owner = ? AND status = 'active'")
      .get(taskId, owner) ?? undefined;
  }

  private getJob(id: string): Job | undefined {
    const r = this.db.query<JobRow, [string]>("SELECT * FROM jobs WHERE id = ?").get(id);
    return r ? toJob(r) : undefined;
  }

  private emit(e: JobEvent): void {
    this.sink(e);
  }

  get(jobId: string): Job | undefined {
    return this.getJob(jobId);
  }

  list(keyId: string, status?: JobStatus): Job[] {
    const rows = status
      ? this.db.query<JobRow, [string, string]>("SELECT * FROM jobs WHERE key_id = ? AND status = ? ORDER BY created_at").all(keyId, status)
      : this.db.query<JobRow, [string]>("SELECT * FROM jobs WHERE key_id = ? ORDER BY created_at").all(keyId);
    return rows.map(toJob);
  }
}
