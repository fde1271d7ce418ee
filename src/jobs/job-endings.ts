/**
 * @module jobs/job-endings
 * A job ended before its work did: cancelled (`DELETE /v2/{crawl,batch/scrape}/{id}`, a monitor's check) or failed
 * (its key was revoked). From the transaction that ends it none of its tasks is handed out; what it still had
 * waiting (pending rows, queued tasks) is set aside a chunk per transaction ({@link JobEndings.sweepEnded}): one
 * statement over a 264,000-URL batch's tasks held every other request ~1 s. {@link SqliteJobStore} delegates here.
 *
 * Which jobs are being swept lives in memory: a process that dies mid-sweep leaves the rest queued. The next start
 * finds such jobs ({@link JobEndings.resumeSweeps}) and sweeps them in the background, and a claim that meets a task
 * of an ended job starts its sweep ({@link JobEndings.sweepInBackground}) and looks on: when claims did the sweeping,
 * 1,000 a claim and then an idle poll (1 s) per worker, a one-page batch waited ~11 s behind 99,000 cancelled pages.
 */
import { immediate } from "../storage/database.ts";
import { dropPendingTasks, type PendingCache } from "./pending-tasks.ts";
import { readJob } from "./store-rows.ts";
import { JOB_TTL_SQL, type StoreContext, sweepQueuedTasks } from "./store-steps.ts";
import { CREATING_STATUS, DROP_ROWS_PER_TRANSACTION } from "./task-intake.ts";

/** Cancelling and failing jobs, and setting aside what an ended job had waiting, for one job store. */
export class JobEndings {
  /**
   * Ended jobs whose queued tasks are still being set aside ({@link sweepEnded}): claims pass them over as they pass
   * a busy job's, without reading them.
   */
  private readonly sweeping = new Set<string>();

  constructor(
    private readonly ctx: StoreContext,
    private readonly pendingCache: PendingCache,
  ) {}

  /** The jobs whose tasks are being set aside: a claim passes them over. */
  sweepingJobs(): ReadonlySet<string> {
    return this.sweeping;
  }

  /**
   * Cancels a job (JobStore `cancel`): running tasks end now (their results are discarded), and from this transaction
   * on none of its tasks is handed out (jobs/task-leases.ts claims only a running job's). Its pending rows and queued
   * tasks are set aside here up to a chunk, the rest by {@link sweepEnded}.
   */
  cancel(jobId: string): boolean {
    const { db } = this.ctx;
    return immediate(db, () => {
      const job = readJob(db, jobId);
      if (!job || job.status !== "scraping") return false;
      const t = this.ctx.now();
      // The running pages: a few (the pool's concurrency), through the job's status index.
      db.query("UPDATE tasks SET status = 'cancelled', lease_owner = NULL WHERE job_id = ? AND status = 'active'").run(jobId);
      this.ctx.spares.delete(jobId);
      db
        .query(`UPDATE jobs SET status = 'cancelled', updated_at = ?, completed_at = ?, expires_at = ? + ${JOB_TTL_SQL} WHERE id = ?`)
        .run(t, t, t, jobId);
      this.sweepStep(jobId);
      if (this.hasWaiting(jobId)) this.sweeping.add(jobId);
      this.ctx.emit({ job: readJob(db, jobId)!, event: "cancelled", success: false, data: [], error: "The job was cancelled." });
      return true;
    });
  }

  /**
   * Sets aside one chunk of what an ended (cancelled or failed) job still has waiting: pending rows first, then
   * queued tasks (set `cancelled`); returns how much, 0 once nothing is left. Nothing for a running job.
   */
  sweepEnded(jobId: string): number {
    const swept = immediate(this.ctx.db, () => {
      const job = readJob(this.ctx.db, jobId);
      return !job || job.status === "scraping" || job.status === CREATING_STATUS ? 0 : this.sweepStep(jobId);
    });
    if (swept === 0) this.sweeping.delete(jobId);
    return swept;
  }

  /**
   * Finds the cancelled or failed jobs a previous process left with tasks queued or rows pending (it died mid-sweep)
   * and sweeps them in the background; returns their ids. Call at start (the store's recoverAll), before the first
   * claim: from then on claims pass them over. One index seek per ended job kept (a day's worth). A completed job is
   * left alone: it has nothing queued, and rows pending under it are an append's, which the task loader drops at
   * start when their request died with the process, and which a live append is writing otherwise (a sweep would
   * drop them under it).
   */
  resumeSweeps(): string[] {
    const ids = this.ctx.db
      .query<{ id: string }, []>(
        `SELECT id FROM jobs j WHERE status IN ('cancelled', 'failed') AND (
           EXISTS (SELECT 1 FROM tasks WHERE job_id = j.id AND status = 'queued') OR EXISTS (SELECT 1 FROM job_pending_tasks WHERE job_id = j.id))`,
      )
      .all()
      .map((r) => r.id);
    for (const id of ids) this.sweepInBackground(id);
    return ids;
  }

  /**
   * Sets aside what the ended job `jobId` still has waiting, a chunk per transaction with the event loop free between,
   * unless it is being swept already; claims pass it over meanwhile. Safe to call inside a transaction (a claim's):
   * the first chunk runs after it. A store error ends the sweep and lets claims meet the job again, which starts it
   * anew; what a dead process leaves is found by the next start's {@link resumeSweeps}.
   */
  sweepInBackground(jobId: string): void {
    if (this.sweeping.has(jobId)) return;
    this.sweeping.add(jobId);
    const next = () => new Promise((resolve) => setImmediate(resolve));
    void (async () => {
      await next();
      while (this.sweepEnded(jobId) > 0) await next();
    })().catch(() => this.sweeping.delete(jobId));
  }

  /**
   * Marks a running job failed (its key was revoked: jobs/task-runner.ts) and sends its `failed` event once; nothing
   * for a job that ended already. As {@link cancel}: its running pages end now, except `keepTaskId` (the page whose
   * failure says why, recorded by its runner after this), and what it had waiting is set aside a chunk per
   * transaction, in the background: one statement over a 264,000-task batch held the database 0.8-0.9 s.
   */
  failJob(jobId: string, message: string, keepTaskId?: string): void {
    const { db } = this.ctx;
    const failed = immediate(db, () => {
      const job = readJob(db, jobId);
      if (!job || job.status !== "scraping") return false;
      const t = this.ctx.now();
      db.query("UPDATE tasks SET status = 'cancelled', lease_owner = NULL WHERE job_id = ? AND status = 'active' AND id != ?").run(jobId, keepTaskId ?? "");
      this.ctx.spares.delete(jobId);
      db
        .query(`UPDATE jobs SET status = 'failed', error = ?, updated_at = ?, completed_at = ?, expires_at = ? + ${JOB_TTL_SQL} WHERE id = ?`)
        .run(message, t, t, t, jobId);
      this.sweepStep(jobId);
      this.ctx.emit({ job: readJob(db, jobId)!, event: "failed", success: false, data: [], error: message });
      return this.hasWaiting(jobId);
    });
    if (failed) this.sweepInBackground(jobId);
  }

  /** Whether `jobId` has tasks queued or pending rows (held ones included). */
  private hasWaiting(jobId: string): boolean {
    const { db } = this.ctx;
    return (
      db.query("SELECT 1 FROM tasks WHERE job_id = ? AND status = 'queued' LIMIT 1").get(jobId) !== null ||
      db.query("SELECT 1 FROM job_pending_tasks WHERE job_id = ? LIMIT 1").get(jobId) !== null
    );
  }

  /** One chunk of {@link sweepEnded}, in the caller's transaction. */
  private sweepStep(jobId: string): number {
    const rows = dropPendingTasks(this.ctx.db, this.pendingCache, jobId, DROP_ROWS_PER_TRANSACTION);
    return rows > 0 ? rows : sweepQueuedTasks(this.ctx.db, jobId);
  }
}
