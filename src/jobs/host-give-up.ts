/**
 * @module jobs/host-give-up
 * A job giving up a host that stopped answering: after `threshold` page attempts in a row that the host did not
 * answer (network errors, timeouts: worker-pool's attemptSaysHostDown; an HTTP answer, 5xx and 429 included, ends
 * the run), the pages of the job still queued for that host fail with `SCRAPE_HOST_GAVE_UP` instead of each waiting
 * out its retries against a dead server.
 *
 * The pages are failed {@link GIVE_UP_CHUNK_TASKS} per transaction: failing the 100,000 queued pages of a batch on
 * one site in the transaction that decided held every other request 1.7 s. From the decision on the claim passes the
 * host's pages of that job over (as it passes a busy host's, SqliteJobStore.claim), so none of them is handed out,
 * and {@link HostGiveUps.continue} fails the rest a chunk at a time (the worker pool calls it with the event loop
 * free between). The pages failed are exactly those the one transaction failed: the ones queued at the decision, with
 * the same error, counted and announced the same way. The decision lives in memory: a process that dies before the
 * last chunk leaves the rest queued, and the host's count of failures (kept in `job_hosts`) gives it up again at the
 * first page of it that fails after the restart. Until then those pages are claimed as a running job's are, within
 * the host's concurrency, so other jobs are not held up (a one-page batch behind 50,000 of them: 53 ms).
 */
import { SITE_ERROR_STATUS, type SerializedError } from "../errors.ts";
import { immediate } from "../storage/database.ts";
import { readJob, type TaskRow } from "./store-rows.ts";
import { finishJobIfDone, markFailed, type StoreContext } from "./store-steps.ts";

/**
 * Pages of a given-up host failed per transaction: each is ~15–20 µs (its row, the job's counters, its event), so a
 * chunk holds the event loop a few tens of ms at most, as a cancel's chunk does (store-steps SWEEP_CHUNK_TASKS).
 */
export const GIVE_UP_CHUNK_TASKS = 1000;

/** A give-up decided and not yet carried out to its last page. */
interface GiveUp {
  jobId: string;
  host: string;
  /** The error each page fails with (the count of attempts in it is the decision's). */
  error: SerializedError;
  /** The job's highest task `seq` at the decision: a page queued after it (found, loaded, refilled) was not queued then. */
  lastSeq: number;
  /** The ids (JSON) of the host's pages running at the decision: one requeued since (a retry) was not queued then. */
  runningIds: string;
}

/** The give-ups in progress of one job store, in the order decided. */
export class HostGiveUps {
  private readonly inProgress: GiveUp[] = [];

  constructor(private readonly ctx: StoreContext) {}

  /** The `"<jobId> <host>"` pairs being given up (the claim's busyJobHosts form): a claim must pass their pages over. */
  pairs(): string[] {
    return [...new Set(this.inProgress.map((g) => `${g.jobId} ${g.host}`))];
  }

  /** Whether a give-up is in progress (claims then pass {@link pairs} over). */
  get active(): boolean {
    return this.inProgress.length > 0;
  }

  /**
   * Records a page attempt's outcome for the job's host (JobStore.recordHostOutcome). The attempt that makes
   * `threshold` in a row gives the host up: the first {@link GIVE_UP_CHUNK_TASKS} of its queued pages fail in this
   * transaction, the rest through {@link continue}. Returns how many pages failed now.
   *
   * Each attempt after that decides again (as one transaction did, failing what was queued since: a page that was
   * running and is tried again, a page found meanwhile). Such a decision, while the host's give-up is in progress,
   * fails nothing now: it waits its turn behind the earlier one, so that each page fails with the error (the count
   * of attempts) of the first decision that found it queued, and pages running that fail together do not each fail
   * a chunk in the same turn of the event loop.
   */
  record(jobId: string, host: string, ok: boolean, threshold: number): number {
    const { db } = this.ctx;
    const busy = this.inProgress.some((g) => g.jobId === jobId && g.host === host);
    const decided = immediate(db, () => {
      if (ok) {
        db.query("UPDATE job_hosts SET failures = 0 WHERE job_id = ? AND host = ?").run(jobId, host);
        return undefined;
      }
      db
        .query("INSERT INTO job_hosts (job_id, host, next_at, failures) VALUES (?, ?, 0, 1) ON CONFLICT (job_id, host) DO UPDATE SET failures = failures + 1")
        .run(jobId, host);
      const failures = db.query<{ failures: number }, [string, string]>("SELECT failures FROM job_hosts WHERE job_id = ? AND host = ?").get(jobId, host)!.failures;
      if (failures < threshold) return undefined;
      // A cancelled job's pages aborted at once are no host's fault, and its queued ones are being set aside a chunk
      // at a time (jobs/job-endings.ts sweepEnded).
      if (readJob(db, jobId)?.status !== "scraping") return undefined;
      const giveUp: GiveUp = {
        jobId,
        host,
        error: { code: "SCRAPE_HOST_GAVE_UP", status: SITE_ERROR_STATUS, message: `Gave up on ${host} after ${failures} attempts in a row it did not answer (connection errors or timeouts).` },
        lastSeq: db.query<{ s: number | null }, [string]>("SELECT MAX(seq) AS s FROM tasks WHERE job_id = ?").get(jobId)!.s ?? 0,
        runningIds: JSON.stringify(
          db.query<{ id: string }, [string, string]>("SELECT id FROM tasks WHERE job_id = ? AND status = 'active' AND host = ?").all(jobId, host).map((r) => r.id),
        ),
      };
      return { giveUp, failed: busy ? 0 : this.failChunk(giveUp) };
    });
    // Kept once committed: a rolled-back decision is none.
    if (decided && (busy || decided.failed === GIVE_UP_CHUNK_TASKS)) this.inProgress.push(decided.giveUp);
    return decided?.failed ?? 0;
  }

  /**
   * Fails the next chunk of the oldest give-up in progress, in one transaction; returns how many pages it failed, 0
   * once none is in progress. A give-up of a job that has ended meanwhile (cancelled: its pages are being set aside)
   * ends.
   */
  continue(): number {
    while (this.inProgress.length > 0) {
      const giveUp = this.inProgress[0]!;
      const failed = immediate(this.ctx.db, () => (readJob(this.ctx.db, giveUp.jobId)?.status === "scraping" ? this.failChunk(giveUp) : 0));
      if (failed < GIVE_UP_CHUNK_TASKS) this.inProgress.shift();
      if (failed > 0) return failed;
    }
    return 0;
  }

  /**
   * Fails up to {@link GIVE_UP_CHUNK_TASKS} of the pages `giveUp` covers that are still queued, in queue order, in the
   * caller's transaction; completes the job when they were its last.
   */
  private failChunk(giveUp: GiveUp): number {
    const { db } = this.ctx;
    const queued = db
      .query<TaskRow, [string, number, string, number]>(
        // The (job, host) group's own index: the job's other hosts' queued pages are not read again for every chunk.
        `SELECT * FROM tasks INDEXED BY tasks_queued_group WHERE status = 'queued' AND queue_group = ? AND kind = 'page' AND seq <= ?
           AND id NOT IN (SELECT value FROM json_each(?)) ORDER BY created_at, seq LIMIT ?`,
      )
      .all(`${giveUp.jobId} ${giveUp.host}`, giveUp.lastSeq, giveUp.runningIds, GIVE_UP_CHUNK_TASKS);
    for (const task of queued) markFailed(this.ctx, task, giveUp.error);
    if (queued.length > 0) finishJobIfDone(this.ctx, giveUp.jobId);
    return queued.length;
  }
}
