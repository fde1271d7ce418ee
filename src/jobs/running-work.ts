/**
 * @module jobs/running-work
 * What the worker pool's pages are doing now, as the claim's exclusions (ClaimLimits): hosts at their per-host
 * limit, jobs at their `maxConcurrency`, and jobs with a delay (`delay`, or robots `Crawl-delay`), which run one
 * page at a time and pause for the delay after each page ends, whatever its hosts (upstream: `maxCrawlConcurrency =
 * delay ? 1 : maxConcurrency`). This process owns every lease, so this is kept in memory.
 */
import type { ClaimLimits, Job, Task } from "./types.ts";

/**
 * The pause a job asks for after each of its pages, in ms (0: none): its `delayMs` (`delay`, or robots `Crawl-delay`
 * learned by the kickoff), or the request's `delay` in seconds rounded up to at least 1 ms (rounded to the nearest
 * ms when the job was created, a sub-millisecond `delay` became 0, and the crawl ran unpaced and in parallel).
 */
export function jobDelayMs(job: Job): number {
  const requestedS = job.options.crawlerOptions?.delay;
  const requestedMs = typeof requestedS === "number" && requestedS > 0 ? Math.max(1, Math.round(requestedS * 1000)) : 0;
  return Math.max(job.options.delayMs ?? 0, requestedMs);
}

/** Adds `d` to `m[k]`, dropping the entry at zero. */
function bump(m: Map<string, number>, k: string, d: number): void {
  const n = (m.get(k) ?? 0) + d;
  if (n <= 0) m.delete(k);
  else m.set(k, n);
}

/** The pool's running tasks, counted per host and job, and the jobs' pauses. */
export class RunningWork {
  private readonly activeByHost = new Map<string, number>();
  private readonly activeByJob = new Map<string, number>();
  /** Pages (not kickoffs) running now per job: a job with a delay runs one at a time. */
  private readonly activePagesByJob = new Map<string, number>();
  /** Per job with a delay: when its pause after the last page ends (epoch ms); also a job paused by {@link pauseJob}. */
  private readonly pacedUntil = new Map<string, number>();
  /**
   * Per job with a page running: the longest delay learned while it ran (a kickoff's robots `Crawl-delay`, a moved
   * start page's), which the running page's own copy of the job does not know yet.
   */
  private readonly learnedDelayMs = new Map<string, number>();
  /** Per `${jobId} ${host}`: none of the job's pages on that host is claimed before then (epoch ms); see throttleHost. */
  private readonly hostPausedUntil = new Map<string, number>();
  /** Jobs with a task running now (their `maxConcurrency` and delay feed {@link limits}). */
  private readonly jobs = new Map<string, Job>();

  constructor(
    private readonly perHostConcurrency: number,
    private readonly now: () => number,
  ) {}

  /** `task` of `job` starts running. */
  started(task: Task, job: Job): void {
    this.jobs.set(job.id, job);
    bump(this.activeByHost, task.host, 1);
    bump(this.activeByJob, task.jobId, 1);
    if (task.kind === "page") bump(this.activePagesByJob, task.jobId, 1);
  }

  /**
   * `task` has ended, whatever its outcome. A page's job pauses from now (upstream waits `delay` after each page):
   * a pause from the page's start let slow pages overlap.
   */
  finished(task: Task): void {
    if (task.kind === "page") {
      this.pace(task.jobId, this.delayOf(task.jobId));
      bump(this.activePagesByJob, task.jobId, -1);
    }
    bump(this.activeByHost, task.host, -1);
    bump(this.activeByJob, task.jobId, -1);
    if (!this.activeByJob.has(task.jobId)) {
      this.jobs.delete(task.jobId);
      this.learnedDelayMs.delete(task.jobId);
    }
  }

  /**
   * A delay learned while `jobId` runs (a robots.txt Crawl-delay the kickoff read while the start page was fetched
   * unpaced, or the one of the host a start page moved the crawl to): from now the job is one page at a time, and
   * paused now, or its next page would follow at once. Pages running now learn it here: their copy of the job
   * predates it.
   */
  learnedDelay(jobId: string, delayMs: number): void {
    this.learnedDelayMs.set(jobId, Math.max(this.learnedDelayMs.get(jobId) ?? 0, delayMs));
    this.pace(jobId, delayMs);
  }

  /**
   * `host` told `jobId` to slow down (a 429 or 503): none of the job's pages on that host is claimed before `untilMs`
   * (its Retry-After, else the retry's backoff), not only the page that got the answer. Before, the job's other pages
   * on the host went on at full speed into the same answer, each spending its own attempts (reliability.md B5).
   */
  throttleHost(jobId: string, host: string, untilMs: number): void {
    const key = `${jobId} ${host}`;
    this.hostPausedUntil.set(key, Math.max(this.hostPausedUntil.get(key) ?? 0, untilMs));
  }

  /**
   * None of `jobId`'s pages is claimed before `untilMs`: a page that found its job cannot go on yet (its key revoked
   * and failing the job failed) speaks for all of them.
   */
  pauseJob(jobId: string, untilMs: number): void {
    this.pacedUntil.set(jobId, Math.max(this.pacedUntil.get(jobId) ?? 0, untilMs));
  }

  /** What a claim must skip now. */
  limits(): ClaimLimits {
    const t = this.now();
    const busyHosts = [...this.activeByHost].filter(([, n]) => n >= this.perHostConcurrency).map(([h]) => h);
    const busy = new Set<string>();
    // `maxConcurrency` counts pages: the kickoff (robots.txt and sitemaps, up to 120 s) must not hold a slot the
    // start page waits for, nor leave a crawl of maxConcurrency N with N − 1 pages while it runs.
    for (const [id, n] of this.activePagesByJob) {
      const max = this.jobs.get(id)?.options.maxConcurrency;
      if (max !== undefined && n >= max) busy.add(id);
    }
    // A job with a delay: one page at a time, then the pause. (Its kickoff does not count: it fetches robots.txt and
    // sitemaps, not pages, and the start page must not wait up to 120 s for it.)
    for (const [id, n] of this.activePagesByJob) if (n > 0 && this.delayOf(id) > 0) busy.add(id);
    for (const [id, until] of this.pacedUntil) {
      if (until > t) busy.add(id);
      else this.pacedUntil.delete(id);
    }
    const busyJobHosts: string[] = [];
    for (const [key, until] of this.hostPausedUntil) {
      if (until > t) busyJobHosts.push(key);
      else this.hostPausedUntil.delete(key);
    }
    return { busyHosts, busyJobs: [...busy], busyJobHosts };
  }

  /**
   * How long an idle worker may sleep, at most `pollMs`: less when a paced job becomes claimable sooner. Nothing
   * kicks the workers when a pause ends, so without this a crawl whose remaining pages were all paced ran at one
   * page per poll (1 s) whatever its delay.
   */
  idleWaitMs(pollMs: number): number {
    let wait = pollMs;
    const t = this.now();
    for (const until of [...this.pacedUntil.values(), ...this.hostPausedUntil.values()]) wait = Math.min(wait, Math.max(1, until - t));
    return wait;
  }

  /** The delay of a job with a task running now (0 when none or unknown). */
  private delayOf(jobId: string): number {
    const job = this.jobs.get(jobId);
    return Math.max(job ? jobDelayMs(job) : 0, this.learnedDelayMs.get(jobId) ?? 0);
  }

  /** Starts (or lengthens) `jobId`'s pause: no page of it is claimed for `delayMs` from now. */
  private pace(jobId: string, delayMs: number): void {
    if (delayMs <= 0) return;
    this.pacedUntil.set(jobId, Math.max(this.pacedUntil.get(jobId) ?? 0, this.now() + delayMs));
  }
}
