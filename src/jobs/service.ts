/**
 * @module jobs/service
 * Crawl and batch jobs as the routes see them: create (validated before anything is accepted), status pages,
 * cancel, errors, active crawls. The work itself happens in the worker pool; this service only writes to
 * and reads from the job store.
 */
import type { BatchScrapeRequest, BatchUrl } from "../api/batch.ts";
import type { CrawlRequest } from "../api/crawl.ts";
import type { ScrapeOptions } from "../api/scrape-options.ts";
import type { CreditLedger } from "../auth/credits.ts";
import type { KeyIdentity } from "../auth/keys.ts";
import type { Config } from "../config.ts";
import { BadRequestError, JobFinishedError, NotFoundError, UnsupportedOptionError } from "../errors.ts";
import { createYielder } from "../crawl/filter-yielding.ts";
import { IdempotencyKeyUsedError } from "../idempotency/errors.ts";
import { specFromOptions } from "../scrape/from-options.ts";
import type { ScrapeService } from "../scrape/service.ts";
import type { JobResults } from "./results.ts";
import { IdempotencyConflictError, jobTtlMs, type SqliteJobStore } from "./sqlite-store.ts";
import type { CrawlPlanner } from "./task-runner.ts";
import type { AppendedOptions, Job, JobOptions, NewTask } from "./types.ts";
import { INLINE_TASKS } from "./pending-tasks.ts";
import type { TaskLoader } from "./task-loader.ts";
import type { WorkerPool } from "./worker-pool.ts";

/**
 * The 409 for cancelling a job that ended, in its kind's words: upstream's "Crawl is already completed" for a crawl;
 * a batch (cancelled by `DELETE /v2/batch/scrape/{id}`, or by `/v2/crawl/{id}`, which serves both as upstream's does)
 * says "Batch scrape", where upstream's shared controller said "Crawl" for it too. Same code and status either way.
 */
function finishedError(kind: Job["kind"], status: "completed" | "failed"): JobFinishedError {
  const err = new JobFinishedError(status);
  if (kind === "batch") err.message = status === "completed" ? "Batch scrape is already completed" : "Batch scrape has already failed";
  return err;
}

/** A job as a caller creates it: what the store fills in left out. */
type NewJob = Omit<Job, "total" | "completed" | "creditsUsed" | "error" | "updatedAt" | "completedAt">;

/** Batch URLs built between two looks at the clock (createBatchYielding): a look costs more than a task. */
const TASKS_PER_CLOCK_READ = 1024;

/** The task of a batch's `index`th URL; `stamp` makes its dedup key unique to the request (a batch may repeat a URL). */
function batchTask(u: BatchUrl, stamp: string, index: number): NewTask {
  return { kind: "page", url: u.url, sourceUrl: u.sourceURL, dedupKey: `${stamp}#${index}`, depth: 0 };
}

/** Dependencies of the job service. */
export interface JobServiceDeps {
  store: SqliteJobStore;
  results: JobResults;
  pool: Pick<WorkerPool, "kick" | "abortJob">;
  /** Queues what a large batch defers (jobs/pending-tasks.ts). */
  loader: Pick<TaskLoader, "kick">;
  scrape: ScrapeService;
  ledger: CreditLedger;
  planner: CrawlPlanner;
  config: Pick<Config, "defaultTimeoutMs">;
  now?: () => number;
  newId?: () => string;
}

/** The status body of a crawl or batch (api-v2.md §3.2), before `next` is added. */
export interface JobStatusBody {
  success: true;
  status: Job["status"];
  completed: number;
  total: number;
  creditsUsed: number;
  expiresAt: string;
  next?: string;
  data: Record<string, unknown>[];
  /**
   * Why a `failed` job failed (its key was revoked: "The API key of this job was revoked."). Not in upstream's body,
   * whose SDKs read the fields they know and drop the rest; without it a failed job's status did not say why.
   */
  error?: string;
}

/** Creates and reads jobs. */
export class JobService {
  private readonly now: () => number;
  private readonly newId: () => string;

  constructor(private readonly d: JobServiceDeps) {
    this.now = d.now ?? Date.now;
    this.newId = d.newId ?? (() => crypto.randomUUID());
  }

  /** Refuses scrape options this build cannot honour, before a job is accepted (400 at creation, not per page). */
  private validateScrapeOptions(url: string, options: ScrapeOptions, zdr: boolean | undefined): void {
    this.d.scrape.validate(specFromOptions(url, url, options, { zeroDataRetention: zdr }, this.d.config));
  }

  private create(job: NewJob, tasks: NewTask[], idempotencyKey?: string): Job {
    let created: Job;
    try {
      created = this.d.store.createJob(job, tasks, idempotencyKey);
    } catch (err) {
      throw err instanceof IdempotencyConflictError ? new IdempotencyKeyUsedError() : err;
    }
    this.kickAfterAdding(tasks.length);
    return created;
  }

  /** Tells the pool about new tasks, and the loader when some were deferred (more than INLINE_TASKS). */
  private kickAfterAdding(tasks: number): void {
    this.d.pool.kick();
    if (tasks > INLINE_TASKS) this.d.loader.kick();
  }

  /** Starts a crawl. */
  createCrawl(req: CrawlRequest, who: KeyIdentity, publicBaseUrl: string, idempotencyKey?: string, extra: Pick<JobOptions, "monitorCheckId"> = {}): Job {
    if (req.prompt !== undefined) {
      throw new UnsupportedOptionError("BAD_REQUEST", "Crawl prompts need an LLM provider, which is not configured in this crawlbox build.");
    }
    this.validateScrapeOptions(req.url, req.scrapeOptions, req.zeroDataRetention);
    this.d.ledger.assertCanSpend(who, 1);
    const usage = this.d.ledger.usage(who);
    const crawlerOptions = { ...req.crawlerOptions } as Record<string, unknown>;
    // Like upstream, the page limit is clamped to the credits left.
    if (usage.remainingCredits !== null) crawlerOptions.limit = Math.min(Number(crawlerOptions.limit), usage.remainingCredits);
    const options: JobOptions = { scrapeOptions: req.scrapeOptions as unknown as Record<string, unknown>, crawlerOptions };
    if (req.webhook) options.webhook = req.webhook;
    if (req.maxConcurrency !== undefined) options.maxConcurrency = req.maxConcurrency;
    if (req.zeroDataRetention !== undefined) options.zeroDataRetention = req.zeroDataRetention;
    if (extra.monitorCheckId !== undefined) options.monitorCheckId = extra.monitorCheckId;
    // Never rounded to none: a sub-millisecond `delay` is still a delay (one page at a time, jobs/worker-pool.ts).
    if (typeof crawlerOptions.delay === "number") options.delayMs = crawlerOptions.delay > 0 ? Math.max(1, Math.round(crawlerOptions.delay * 1000)) : 0;
    const id = this.newId();
    return this.create(
      { id, kind: "crawl", keyId: who.keyId, status: "scraping", url: req.url, options, publicBaseUrl, createdAt: this.now(), expiresAt: this.now() + jobTtlMs(options) },
      this.d.planner.initialTasks(req.url, crawlerOptions),
      idempotencyKey,
    );
  }

  /**
   * Starts a batch, or adds URLs to an existing one (`appendToId`). The key must have a credit for each of its
   * valid URLs left before anything is queued (upstream's checkCreditsMiddleware asks for `urls.length`, appends
   * included; docs/credits.md): with only 1 asked for, a key with 3 credits left got a batch of 6 pages charged.
   * `creditsUpFront` is for callers that already checked what they may spend (search's `asyncScraping`, which
   * paid for the search before its results become a batch).
   */
  createBatch(req: BatchScrapeRequest, who: KeyIdentity, publicBaseUrl: string, idempotencyKey?: string, creditsUpFront = req.urls.length): Job {
    const plan = this.planBatch(req, who, creditsUpFront);
    const tasks = req.urls.map((u, i) => batchTask(u, plan.stamp, i));
    if (!plan.append) return this.create(this.newBatchJob(req, who, publicBaseUrl), tasks, idempotencyKey);
    try {
      // Checked and recorded with the URLs, in one transaction: a retried append is refused, not queued twice.
      this.d.store.reopenAndEnqueue(plan.append.jobId, tasks, plan.append.options, idempotencyKey);
    } catch (err) {
      throw err instanceof IdempotencyConflictError ? new IdempotencyKeyUsedError() : err;
    }
    this.kickAfterAdding(tasks.length);
    return this.d.store.get(plan.append.jobId)!;
  }

  /**
   * {@link createBatch} for a request's list of any size without holding the event loop (POST /v2/batch/scrape): the
   * tasks are built a slice at a time, and more than INLINE_TASKS are stored a row per transaction, all or nothing
   * (jobs/task-intake.ts). Resolves once they are all stored.
   */
  async createBatchYielding(req: BatchScrapeRequest, who: KeyIdentity, publicBaseUrl: string, idempotencyKey?: string): Promise<Job> {
    if (req.urls.length <= INLINE_TASKS) return this.createBatch(req, who, publicBaseUrl, idempotencyKey);
    const plan = this.planBatch(req, who, req.urls.length);
    const tasks: NewTask[] = new Array(req.urls.length);
    const pause = createYielder();
    for (let i = 0; i < req.urls.length; i++) {
      if (i % TASKS_PER_CLOCK_READ === 0) {
        const wait = pause();
        if (wait) await wait;
      }
      tasks[i] = batchTask(req.urls[i]!, plan.stamp, i);
    }
    try {
      if (!plan.append) {
        const created = await this.d.store.createJobYielding(this.newBatchJob(req, who, publicBaseUrl), tasks, idempotencyKey);
        this.kickAfterAdding(tasks.length);
        return created;
      }
      await this.d.store.reopenAndEnqueueYielding(plan.append.jobId, tasks, plan.append.options, idempotencyKey);
    } catch (err) {
      throw err instanceof IdempotencyConflictError ? new IdempotencyKeyUsedError() : err;
    }
    this.kickAfterAdding(tasks.length);
    return this.d.store.get(plan.append.jobId)!;
  }

  /** Checks a batch request before anything is stored: its scrape options, the key's credits, the batch it adds to. */
  private planBatch(req: BatchScrapeRequest, who: KeyIdentity, creditsUpFront: number): { stamp: string; append?: { jobId: string; options: AppendedOptions } } {
    const first = req.urls[0]?.url ?? "http://example.com/";
    this.validateScrapeOptions(first, req.scrapeOptions, req.zeroDataRetention);
    if (creditsUpFront > 0) this.d.ledger.assertCanSpend(who, creditsUpFront);
    const stamp = this.newId();
    if (!req.appendToId) return { stamp };
    const job = this.owned(req.appendToId, who, "batch");
    // Whether a page is kept is the batch's (its results, GET /v2/scrape/{id}): an append cannot change it.
    if ((req.zeroDataRetention ?? false) !== (job.options.zeroDataRetention ?? false)) {
      throw new BadRequestError(`appendToId: zeroDataRetention must match the batch's (${job.options.zeroDataRetention ?? false}).`);
    }
    const options: AppendedOptions = { scrapeOptions: req.scrapeOptions as unknown as Record<string, unknown> };
    if (req.webhook) options.webhook = req.webhook;
    return { stamp, append: { jobId: job.id, options } };
  }

  /** The job row of a new batch. */
  private newBatchJob(req: BatchScrapeRequest, who: KeyIdentity, publicBaseUrl: string): NewJob {
    const options: JobOptions = { scrapeOptions: req.scrapeOptions as unknown as Record<string, unknown> };
    if (req.webhook) options.webhook = req.webhook;
    if (req.maxConcurrency !== undefined) options.maxConcurrency = req.maxConcurrency;
    if (req.zeroDataRetention !== undefined) options.zeroDataRetention = req.zeroDataRetention;
    return { id: this.newId(), kind: "batch", keyId: who.keyId, status: "scraping", url: null, options, publicBaseUrl, createdAt: this.now(), expiresAt: this.now() + jobTtlMs(options) };
  }

  /** The job `id` if it belongs to `who` and is of `kind` (or one of them); 404 otherwise (no probing other keys' ids). */
  owned(id: string, who: KeyIdentity, kind: Job["kind"] | readonly Job["kind"][]): Job {
    const job = this.d.store.get(id);
    if (!job || job.keyId !== who.keyId || (typeof kind === "string" ? job.kind !== kind : !kind.includes(job.kind))) throw new NotFoundError("Job not found");
    if (job.status !== "scraping" && job.expiresAt < this.now()) throw new NotFoundError("Job expired");
    return job;
  }

  /** A status page from `skip`; `nextUrl(skip)` builds the absolute `next` link. */
  status(job: Job, skip: number, limit: number | undefined, nextUrl: (skip: number) => string): JobStatusBody {
    return this.statusPage(job, skip, limit, nextUrl).body;
  }

  /**
   * {@link status} plus `cursor`: where the page ended in completion order (failed pages are consumed without
   * data, so `skip + data.length` would fall short), for readers that follow the job (the WebSocket).
   */
  statusPage(job: Job, skip: number, limit: number | undefined, nextUrl: (skip: number) => string): { body: JobStatusBody; cursor: number; finished: number } {
    const page = this.d.results.page(job.id, skip, limit);
    const expiresAt = job.status === "scraping" ? this.now() + jobTtlMs(job.options) : this.d.results.touch(job.id);
    const body: JobStatusBody = {
      success: true,
      status: job.status,
      completed: job.completed,
      total: job.total,
      creditsUsed: job.creditsUsed,
      expiresAt: new Date(Math.floor(expiresAt / 1000) * 1000).toISOString(),
      data: page.data,
    };
    if (job.status === "failed" && job.error) body.error = job.error;
    const cursor = skip + page.consumed;
    if (cursor < page.finished) body.next = nextUrl(cursor);
    return { body, cursor, finished: page.finished };
  }

  /**
   * Cancels a running job; cancelling a cancelled one again is a no-op. A finished one keeps its status and the
   * caller gets a 409 (upstream's), also when it finished between the caller reading it and this.
   */
  cancel(job: Job): void {
    // Its tasks are never handed out from here on (jobs/task-leases.ts); the ones still queued are set aside after.
    if (this.cancelNow(job)) void this.sweep(job.id).catch(() => {}); // a claim that meets what is left sets it aside
  }

  /**
   * {@link cancel}, resolved once every task the job had waiting is set aside (`DELETE /v2/{crawl,batch/scrape}/{id}`):
   * a chunk per transaction with the event loop free between (a 264,000-URL batch's in one statement held every
   * other request ~1 s). A cancelled job's own cancel sets aside what a failed earlier sweep left.
   */
  async cancelAndSettle(job: Job): Promise<void> {
    if (this.cancelNow(job) || this.d.store.get(job.id)?.status === "cancelled") await this.sweep(job.id);
  }

  /** Cancels `job` in the store (true), or says why not: false when it was cancelled already; a 409 when it ended. */
  private cancelNow(job: Job): boolean {
    if (this.d.store.cancel(job.id)) {
      this.d.pool.abortJob(job.id);
      return true;
    }
    const status = this.d.store.get(job.id)?.status ?? job.status;
    if (status === "completed" || status === "failed") throw finishedError(job.kind, status);
    return false;
  }

  /** Sets aside what the ended job `jobId` still has waiting, a chunk per transaction with the event loop free between. */
  private async sweep(jobId: string): Promise<void> {
    while (this.d.store.sweepEnded(jobId) > 0) await new Promise((resolve) => setImmediate(resolve));
  }

  /** Cancels the crawls a monitor check started that are still running (see {@link JobOptions.monitorCheckId}); how many. */
  cancelMonitorCrawls(checkId: string): number {
    const cancelled = this.d.store.runningCrawlsOfCheck(checkId).filter((id) => this.d.store.cancel(id));
    for (const id of cancelled) {
      this.d.pool.abortJob(id);
      void this.sweep(id).catch(() => {});
    }
    return cancelled.length;
  }
}
