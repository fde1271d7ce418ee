/**
 * @module jobs/worker-pool
 * In-process workers for crawl and batch pages. `concurrency` loops claim tasks from the {@link JobStore} and run
 * each under its lease (jobs/leased-page: the heartbeat, the outcome recorded or the page handed back). This process
 * owns every lease, so per-host concurrency, per-job `maxConcurrency` and politeness delays are tracked in memory
 * (jobs/running-work) and handed to `claim` as exclusions. A reaper requeues leases that expired (a hung page), and
 * at start every task left active by a dead process is requeued at once. Hosts that stop answering are given up
 * (jobs/host-outcomes).
 *
 * A graceful stop has two steps: {@link WorkerPool.quiesce} at the stop signal (no page is claimed from then on; the
 * pages running finish and their outcomes are recorded), then {@link WorkerPool.stop} at the grace's end (what still
 * runs is aborted and handed back, its attempt given back). Aborting every page at once, as the stop used to, fetched
 * each of them again after the restart: 24 pages fetched twice in 3 SIGTERMs of a 400-page run, though the 10 s
 * grace was mostly unused.
 */
import { createYielder } from "../crawl/filter-yielding.ts";
import type { Logger } from "../log.ts";
import { HostOutcomes } from "./host-outcomes.ts";
import { type LeaseHolder, runLeasedPage, type TaskRunner } from "./leased-page.ts";
import { RunningWork } from "./running-work.ts";
import type { JobStore, Task } from "./types.ts";
export { attemptSaysHostDown } from "./host-outcomes.ts";
export type { Outcome, TaskRunner } from "./leased-page.ts";

/** Pool settings. */
export interface WorkerPoolOptions {
  store: JobStore;
  run: TaskRunner;
  log: Logger;
  /** Pages processed at once across all jobs. */
  concurrency: number;
  /** Pages of one host processed at once. */
  perHostConcurrency: number;
  /** Lease length; renewed every third of it. @default 30000 */
  leaseMs?: number;
  /** How often idle workers look for work when not kicked (new tasks kick them at once; this catches retries whose time has come). @default 1000 */
  pollMs?: number;
  /** Expired leases a task may have before it is failed as poison. @default 3 */
  maxStalls?: number;
  /** Attempts in a row on one host that it did not answer ({@link attemptSaysHostDown}) after which a job gives that host up. @default 10 */
  hostGiveUpAfter?: number;
  now?: () => number;
}

/** Shortest time between two logged job-store errors (see WorkerPool.storeError). */
const STORE_ERROR_LOG_INTERVAL_MS = 10_000;

/** The worker pool. */
export class WorkerPool {
  private readonly owner = `worker-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly maxStalls: number;
  private readonly now: () => number;
  private running = false;
  /** False from {@link quiesce}: the loops claim nothing more and end after their page. */
  private claiming = false;
  private loops: Promise<void>[] = [];
  private wake: (() => void)[] = [];
  private reaper?: ReturnType<typeof setInterval>;
  /** The running pages' abort controllers, by task id, with their job's id. */
  private readonly inflight = new Map<string, { controller: AbortController; jobId: string }>();
  /** What the running pages hold (hosts, jobs, pauses): the claim's exclusions (jobs/running-work). */
  private readonly work: RunningWork;
  /** Page attempts per host, and the give-ups they decide (jobs/host-outcomes). */
  private readonly hosts: HostOutcomes;
  /** Gives the event loop back once 10 ms have passed without doing so; `pausing`: the turn awaited ({@link pauseAll}). */
  private readonly pause = createYielder();
  private pausing?: Promise<void>;
  private lastStoreErrorLogAt = -Infinity;
  private unloggedStoreErrors = 0;
  /** What each claimed page is run with (jobs/leased-page). */
  private readonly lease: LeaseHolder;

  constructor(private readonly o: WorkerPoolOptions) {
    this.leaseMs = o.leaseMs ?? 30_000;
    this.pollMs = o.pollMs ?? 1000;
    this.maxStalls = o.maxStalls ?? 3;
    this.now = o.now ?? Date.now;
    this.work = new RunningWork(o.perHostConcurrency, this.now);
    this.hosts = new HostOutcomes({
      store: o.store,
      threshold: o.hostGiveUpAfter ?? 10,
      storeError: (what, err) => this.storeError(what, err),
      onSettled: () => this.kick(),
      retryAfterErrorMs: this.pollMs,
    });
    this.lease = {
      store: o.store,
      run: o.run,
      owner: this.owner,
      leaseMs: this.leaseMs,
      pollMs: this.pollMs,
      now: this.now,
      inflight: this.inflight,
      work: this.work,
      hosts: this.hosts,
      running: () => this.running,
      kick: () => this.kick(),
      storeError: (what, err) => this.storeError(what, err),
    };
  }

  /** Requeues what a dead process left active, then starts the loops and the reaper. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.claiming = true;
    const recovered = this.o.store.recoverAll(this.maxStalls);
    if (recovered > 0) this.o.log.info(`requeued ${recovered} page(s) left running by a previous process`);
    for (let i = 0; i < this.o.concurrency; i++) this.loops.push(this.loop());
    this.hosts.start();
    this.reaper = setInterval(() => {
      try {
        if (this.o.store.reap(this.maxStalls) > 0) this.kick();
      } catch (err) {
        this.o.log.error("lease reaper failed", { error: String(err) });
      }
    }, Math.max(1000, Math.floor(this.leaseMs / 2)));
  }

  /** Wakes idle workers (new tasks were enqueued). */
  kick(): void {
    const waiting = this.wake;
    this.wake = [];
    for (const w of waiting) w();
  }

  /**
   * Stops claiming at once and resolves when the pages running now have ended, their outcomes recorded as usual
   * (done, failed, or retried later); a stopping server calls it at the stop signal and waits for it within its
   * shutdown grace, then calls {@link stop}, which aborts what is still running. Tasks queued meanwhile (links a
   * finishing page found) stay queued for the next start. Idempotent; resolves at once when the pool is not running.
   */
  async quiesce(): Promise<void> {
    if (!this.running) return;
    this.claiming = false;
    this.kick();
    // Settled, not all: a loop that failed must not keep the server from stopping.
    await Promise.allSettled(this.loops);
  }

  /**
   * Aborts the running pages and hands them back to the queue now, their attempts given back, without waiting for
   * them: for a stop that cannot wait (a second stop signal during the grace). Left active, each would count as a
   * stall at the next start, and four such stops failed a healthy page for good ("stalled 4 times").
   */
  releaseRunning(): void {
    this.running = false;
    this.claiming = false;
    clearInterval(this.reaper);
    for (const [taskId, { controller }] of this.inflight) {
      controller.abort(new Error("worker pool stopping"));
      try {
        this.o.store.release(taskId, this.owner, this.now());
      } catch (err) {
        this.storeError("handing back a page failed", err);
      }
    }
  }

  /** Stops claiming, aborts running pages (their leases are released to the queue) and waits for the loops. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.claiming = false;
    clearInterval(this.reaper);
    for (const { controller } of this.inflight.values()) controller.abort(new Error("worker pool stopping"));
    this.kick();
    // Settled, not all: a loop that failed must not keep the process from stopping.
    await Promise.allSettled([...this.loops, this.hosts.stop()]);
    this.loops = [];
  }

  /**
   * Stops the running pages of a job that was just cancelled: their fetches, renders and parses end now,
   * not when their heartbeat next finds the lease gone (up to a third of the lease, 10 s), holding the host's slots
   * and the job's credits until then. The store has already settled those pages; what they answer is dropped.
   */
  abortJob(jobId: string): void {
    for (const { controller, jobId: id } of this.inflight.values()) if (id === jobId) controller.abort(new Error("job cancelled"));
  }

  /** Pages running now. */
  get active(): number {
    return this.inflight.size;
  }

  /**
   * Logs a job-store error, at most once per {@link STORE_ERROR_LOG_INTERVAL_MS} with the number left out: a full
   * disk fails every claim of every worker, several times a second.
   */
  private storeError(what: string, err: unknown): void {
    const t = this.now();
    if (t - this.lastStoreErrorLogAt < STORE_ERROR_LOG_INTERVAL_MS) {
      this.unloggedStoreErrors++;
      return;
    }
    this.o.log.error(what, { error: String(err), ...(this.unloggedStoreErrors > 0 ? { similarErrorsNotLogged: this.unloggedStoreErrors } : {}) });
    this.lastStoreErrorLogAt = t;
    this.unloggedStoreErrors = 0;
  }

  /**
   * One worker: claims and runs pages until the pool stops. It survives any error (a full disk, a locked or broken
   * database): such a loop used to end for good, leaving its pages stalled and the pool short of a worker until
   * the process restarted. After an error it waits a poll interval, which nothing cuts short.
   */
  private async loop(): Promise<void> {
    while (this.running && this.claiming) {
      const wait = this.pauseAll();
      if (wait) {
        await wait;
        if (!this.running || !this.claiming) break;
      }
      let task: Task | undefined;
      try {
        task = this.o.store.claim(this.owner, this.leaseMs, this.work.limits());
      } catch (err) {
        this.storeError("claim failed", err);
        await Bun.sleep(this.pollMs);
        continue;
      }
      if (!task) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.work.idleWaitMs(this.pollMs));
          this.wake.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
        continue;
      }
      try {
        await runLeasedPage(this.lease, task);
      } catch (err) {
        // The page stays leased to this process; the reaper hands it out again when the lease ends.
        this.storeError("running a page failed", err);
        await Bun.sleep(this.pollMs);
      }
    }
  }

  /**
   * What a loop awaits before each claim: a page that ends without I/O (refused for a port or an address by the
   * egress gate, or for a key whose credits ran out; served from the scrape cache) ends in microtasks, and the loops
   * claimed and ran the next one at once: 100,000 such queued pages held every other request (`/health` too) 34–48 s.
   * One turn for all: a loop that waited alone gave the next its own 10 ms, and 8 loops held the event loop 80 ms.
   */
  private pauseAll(): Promise<void> | undefined {
    if (this.pausing) return this.pausing;
    const wait = this.pause();
    if (wait) this.pausing = wait.then(() => (this.pausing = undefined));
    return this.pausing;
  }
}
