/**
 * @module jobs/leased-page
 * One page a worker claimed, from its lease to its recorded outcome: the job read afresh, the lease kept alive by a
 * heartbeat while the page runs, the outcome written to the store (or the page handed back to the queue), and the
 * page's hosts, job slot and credits given back whatever happened. It is a module of its own because every rule here
 * is about one page's lease: when an attempt is spent or given back, and what a stop, a lost lease or a store error
 * does to it. The pool (jobs/worker-pool) decides when pages are claimed and how the pool starts and stops; it hands
 * each claimed page to {@link runLeasedPage}.
 */
import type { CrawlboxError } from "../errors.ts";
import type { HostOutcomes } from "./host-outcomes.ts";
import type { RunningWork } from "./running-work.ts";
import type { Completion, Job, JobStore, Task } from "./types.ts";

/** What running one task produced. */
export type Outcome = (
  | { kind: "done"; completion: Completion }
  | { kind: "failed"; error: CrawlboxError }
  /**
   * `httpStatus`: the site answered with that status (a 5xx, 429, 408) and the page is tried again.
   * `giveAttemptBack`: the page has no outcome of its own to record (its job's key was found revoked and failing the
   * job failed: jobs/task-runner.ts): it is handed back with its attempt given back (JobStore.release), and says
   * nothing of its host.
   */
  | { kind: "retry"; notBefore: number; reason: string; httpStatus?: number; giveAttemptBack?: true }
) & {
  /**
   * Called once the outcome is recorded, or the page handed back: gives back what the attempt still holds (the
   * credits of a page the store charges when it stores it, held until then so that the key cannot spend them twice).
   */
  settle?: () => void;
};

/** Runs one task of a job. */
export type TaskRunner = (task: Task, job: Job, signal: AbortSignal) => Promise<Outcome>;

/**
 * What a leased page needs from its pool: the pool's settings and the state its pages share. Passed in rather than
 * reached for, so that the pool's shutdown flag is read when a page ends (a stop may come while it runs).
 */
export interface LeaseHolder {
  readonly store: JobStore;
  readonly run: TaskRunner;
  /** The pool's lease owner id. */
  readonly owner: string;
  readonly leaseMs: number;
  readonly pollMs: number;
  readonly now: () => number;
  /** The running pages' abort controllers, by task id, with their job's id (the pool aborts them at a stop). */
  readonly inflight: Map<string, { controller: AbortController; jobId: string }>;
  /** What the running pages hold (hosts, jobs, pauses): the claim's exclusions (jobs/running-work). */
  readonly work: RunningWork;
  /** Page attempts per host, and the give-ups they decide (jobs/host-outcomes). */
  readonly hosts: HostOutcomes;
  /** False once the pool is stopping: what a page answers then is handed back instead of recorded. */
  running(): boolean;
  /** Wakes idle workers. */
  kick(): void;
  /** Logs a job-store error, rate-limited (WorkerPool.storeError). */
  storeError(what: string, err: unknown): void;
}

/**
 * Puts `task` back in the queue from `notBefore`; if the store refuses, it stays leased until the reaper frees it.
 * `giveAttemptBack`: the page did not run to an outcome, so its claim's attempt is not spent (JobStore.release).
 */
function handBack(pool: LeaseHolder, task: Task, notBefore: number, giveAttemptBack: boolean): void {
  try {
    if (giveAttemptBack) pool.store.release(task.id, pool.owner, notBefore);
    else pool.store.retry(task.id, pool.owner, notBefore);
  } catch (err) {
    pool.storeError("requeueing a page failed", err);
  }
}

/**
 * Runs a claimed page under its lease and records what it produced, or hands it back. What still throws (the
 * running work's bookkeeping, the outcome's `settle`) the worker's loop survives; the page stays leased until the
 * reaper frees it.
 */
export async function runLeasedPage(pool: LeaseHolder, task: Task): Promise<void> {
  // Read the job afresh for every task: its options change while it runs (a robots.txt `Crawl-delay` found by
  // the kickoff becomes its delay). RunningWork holds the jobs running now, for the claim limits.
  let job: Job | undefined;
  try {
    job = pool.store.get(task.jobId);
  } catch (err) {
    // Handed back now: left leased without a heartbeat, the reaper would count it as a stall, and three such
    // store errors would fail an ordinary page as a poison one.
    pool.storeError("reading a job failed", err);
    handBack(pool, task, pool.now() + pool.pollMs, true); // it never ran
    return;
  }
  if (!job) return; // deleted with its tasks
  pool.work.started(task, job);
  const controller = new AbortController();
  pool.inflight.set(task.id, { controller, jobId: task.jobId });
  const heartbeat = setInterval(() => {
    try {
      if (!pool.store.renew(task.id, pool.owner, pool.leaseMs)) controller.abort(new Error("lease lost"));
    } catch (err) {
      // Not renewed this time (a timer's exception would end the process); the next beat tries again.
      pool.storeError("renewing a lease failed", err);
    }
  }, Math.max(250, Math.floor(pool.leaseMs / 3)));
  let outcome: Outcome | undefined;
  try {
    outcome = await pool.run(task, job, controller.signal);
    if (controller.signal.aborted && !pool.running()) {
      // Shutting down: the page goes back to the queue now, whatever it answered (an aborted kickoff or link
      // check answers "done" with what it could not read). Left active, the next start would count it as a stall
      // (recoverActive), and a few restarts would fail an ordinary page as a poison one. Its attempt is given back
      // too: with `retry` every graceful restart spent one, and after two a single 5xx was final. It is not
      // charged twice: pages are charged when stored (setChargeHook).
      pool.store.release(task.id, pool.owner, pool.now());
      return;
    }
    switch (outcome.kind) {
      case "done": {
        pool.store.complete(task.id, pool.owner, outcome.completion);
        // A robots.txt Crawl-delay is known only once the kickoff has read it (or the start page moved the crawl
        // to a host that asks for one): the job is paced from now (the first gap of a crawl ignored the delay).
        const patchDelayMs = outcome.completion.optionsPatch?.delayMs;
        if (patchDelayMs) pool.work.learnedDelay(task.jobId, patchDelayMs);
        if (outcome.completion.discovered?.length) pool.kick();
        break;
      }
      case "failed":
        pool.store.fail(task.id, pool.owner, outcome.error.toJSON());
        break;
      case "retry":
        if (outcome.giveAttemptBack) {
          pool.store.release(task.id, pool.owner, outcome.notBefore);
          // The job, not only the page: its other pages would find the same thing (task-runner's revoked).
          pool.work.pauseJob(task.jobId, outcome.notBefore);
        } else pool.store.retry(task.id, pool.owner, outcome.notBefore);
        if (outcome.httpStatus === 429 || outcome.httpStatus === 503) pool.work.throttleHost(task.jobId, task.host, outcome.notBefore);
        break;
    }
    pool.hosts.record(task, outcome);
  } catch (err) {
    pool.storeError("task runner threw", err);
    // The attempt is given back when its outcome was lost to the store (a full disk refused "done" or "failed") or
    // the pool is stopping: the page did not end that way. A "retry" outcome was a real attempt (a 5xx, a timeout)
    // whatever happened when requeueing it (unless it gave its attempt back), and a runner that threw keeps its count.
    const outcomeLost = outcome !== undefined && (outcome.kind !== "retry" || outcome.giveAttemptBack === true);
    handBack(pool, task, pool.now() + (pool.running() ? 1000 : 0), outcomeLost || !pool.running());
  } finally {
    outcome?.settle?.();
    clearInterval(heartbeat);
    pool.inflight.delete(task.id);
    // A page's pause starts when it ends, whatever its outcome.
    pool.work.finished(task);
    pool.kick();
  }
}
