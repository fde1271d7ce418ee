/**
 * @module jobs/types
 * Crawl and batch jobs and their tasks (one task per page, plus a crawl's kickoff task that reads robots.txt
 * and sitemaps). Tasks are leases: a worker owns a task until its lease expires; the reaper requeues expired
 * leases and fails tasks that stalled too often (reliability.md B3). The {@link JobStore} interface is all the
 * rest of the code knows, so a second backend (PostgreSQL) can be added without touching callers.
 */
import type { SerializedError } from "../errors.ts";

/** What a job is. */
export type JobKind = "crawl" | "batch";
/** Job lifecycle; `scraping` until every task is finished. */
export type JobStatus = "scraping" | "completed" | "failed" | "cancelled";
/** Task lifecycle. */
export type TaskStatus = "queued" | "active" | "done" | "failed" | "cancelled";
/** `page` scrapes a URL; `kickoff` reads robots.txt and sitemaps for a crawl. */
export type TaskKind = "page" | "kickoff";

/** A job row. `options` is the normalised request, as JSON-safe data. */
export interface Job {
  id: string;
  kind: JobKind;
  keyId: string;
  status: JobStatus;
  url: string | null;
  options: JobOptions;
  publicBaseUrl: string;
  total: number;
  completed: number;
  creditsUsed: number;
  error: string | null;
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
  expiresAt: number;
}

/** What a job keeps of its request. */
export interface JobOptions {
  /** Normalised scrape options for every page (src/api/scrape-options.ts `ScrapeOptions`). */
  scrapeOptions: Record<string, unknown>;
  /** Crawl only: crawler options after defaults. */
  crawlerOptions?: Record<string, unknown>;
  /** Normalised webhook, if any. */
  webhook?: { url: string; headers: Record<string, string>; metadata: Record<string, string>; events: string[] };
  maxConcurrency?: number;
  zeroDataRetention?: boolean;
  /** Crawl delay between requests to one host, in ms (from `delay` or robots `Crawl-delay`). */
  delayMs?: number;
  /**
   * Crawl only: the URL the crawl's scope is judged from (its host, and its path without `crawlEntireDomain`) when
   * the start page redirected to another host (upstream rewrites `originUrl`, api-v2.md §5.6); else the start URL.
   */
  originUrl?: string;
  /**
   * Batch only: the options of URLs added later (`appendToId`), in the order they came; a task added so carries its
   * index ({@link Task.optionsIndex}) and is scraped with those scrape options, its pages announced to that webhook.
   */
  appended?: AppendedOptions[];
  /**
   * Crawl only: the monitor check that started the crawl (monitor/crawl-target.ts). A server killed during the check
   * fails the check when it starts again, and cancels the crawls that carry its id, which otherwise ran on, charging
   * their pages to a check recorded as failed with nothing spent.
   */
  monitorCheckId?: string;
}

/** What a batch keeps of a request that added URLs to it (`appendToId`): its own scrape options and webhook. */
export interface AppendedOptions {
  scrapeOptions: Record<string, unknown>;
  webhook?: JobOptions["webhook"];
}

/**
 * The scrape options and webhook of a task with `optionsIndex` ({@link Task.optionsIndex}): those of the
 * `appendToId` request that added it, or the job's own (for the job's own tasks, and each field an addition lacks).
 */
export function taskOptions(options: JobOptions, optionsIndex: number | undefined): AppendedOptions {
  const appended = optionsIndex === undefined ? undefined : options.appended?.[optionsIndex];
  const webhook = appended?.webhook ?? options.webhook;
  return { scrapeOptions: appended?.scrapeOptions ?? options.scrapeOptions, ...(webhook ? { webhook } : {}) };
}

/** A task row. */
export interface Task {
  id: string;
  jobId: string;
  kind: TaskKind;
  seq: number;
  url: string;
  sourceUrl: string;
  depth: number;
  host: string;
  status: TaskStatus;
  attempts: number;
  stalls: number;
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  /** Added by an `appendToId` request: the index of its options in {@link JobOptions.appended}. */
  optionsIndex?: number;
}

/** A page to add to a job. `dedupKey` makes re-adding the same page a no-op. */
export interface NewTask {
  kind: TaskKind;
  url: string;
  /** The URL as the client wrote it, reported as `metadata.sourceURL` (batch URLs stay unnormalised). */
  sourceUrl?: string;
  dedupKey: string;
  depth: number;
  notBefore?: number;
  /** See {@link Task.optionsIndex}. */
  optionsIndex?: number;
}

/** A finished page, as stored. */
export interface TaskResult {
  id: string;
  url: string;
  status: "done" | "failed";
  document?: Record<string, unknown>;
  error?: SerializedError;
  finishedAt: number;
  resultBytes: number;
}

/** Counters for `/v2/team/queue-status`. */
export interface QueueCounts {
  queued: number;
  active: number;
}

/** A state change to announce (webhooks); emitted inside the transaction that makes it. */
export interface JobEvent {
  job: Job;
  event: "started" | "page" | "completed" | "failed" | "cancelled";
  success: boolean;
  data: unknown[];
  error?: string;
  /** A page event of a task added by `appendToId`: its options' index, whose webhook (if it has one) is told. */
  optionsIndex?: number;
}

/** Receives job events inside the store's transaction, so an event is recorded iff its change commits. */
export type JobEventSink = (event: JobEvent) => void;

/** What finishing a page adds: its document, its price, and (crawls) the links it discovered. */
export interface Completion {
  document: Record<string, unknown> | null;
  credits: number;
  discovered?: NewTask[];
  /** Page limit of the job, for the discovered tasks. */
  limit?: number;
  robotsBlocked?: string[];
  /** Changes to the job's options learnt while running (robots `Crawl-delay` found by the kickoff). */
  optionsPatch?: Partial<JobOptions>;
  /**
   * A crawl page that redirected: the dedup key and URL of where it landed. The store claims the key for this
   * task; when another task of the job already holds it, this copy is a duplicate and fails with
   * `SCRAPE_RACED_REDIRECT_ERROR` (hidden from `/errors`, as upstream).
   */
  redirect?: { key: string; url: string };
  /**
   * The task is not a result though it ran: a crawl's start page that robots.txt or the crawl's own rules refuse
   * (upstream's CrawlDenialError of the source page). It fails with this error; what it found (links, robots-blocked
   * URLs) still counts.
   */
  denied?: SerializedError;
}

/** Scheduling limits the worker pool computes from what it runs (one process owns every lease). */
export interface ClaimLimits {
  /** Hosts that may not get another task now (per-host concurrency reached, or politeness delay). */
  busyHosts: string[];
  /** Jobs at their `maxConcurrency`. */
  busyJobs: string[];
  /** `"<jobId> <host>"` pairs waiting out the job's politeness delay for that host. */
  busyJobHosts: string[];
}

/** The job store. Every method is atomic; `complete`/`fail`/`retry`/`release` are fenced by the lease owner. */
export interface JobStore {
  /** Creates a job and its first tasks in one transaction; throws on a reused idempotency key. */
  createJob(job: Omit<Job, "total" | "completed" | "creditsUsed" | "error" | "updatedAt" | "completedAt">, tasks: NewTask[], idempotencyKey?: string): Job;
  /** Adds tasks up to `limit` pages in total (kickoff tasks do not count); returns how many were added. */
  enqueue(jobId: string, tasks: NewTask[], limit: number): number;
  /** Leases the next runnable task for `owner`, skipping busy hosts and jobs. */
  claim(owner: string, leaseMs: number, limits: ClaimLimits): Task | undefined;
  /** Extends a lease; false when the task is no longer this owner's (reaped or cancelled). */
  renew(taskId: string, owner: string, leaseMs: number): boolean;
  /** Finishes a task with a document; false when the lease was lost (the result is dropped). */
  complete(taskId: string, owner: string, completion: Completion): boolean;
  /** Finishes a task as failed. */
  fail(taskId: string, owner: string, error: SerializedError): boolean;
  /** Puts a task back in the queue for a later attempt. */
  retry(taskId: string, owner: string, notBefore: number): boolean;
  /**
   * Puts a task back in the queue without spending an attempt (its claim's is given back): for a page that did not
   * run to an outcome, such as one aborted by a graceful shutdown. False when the lease was lost.
   */
  release(taskId: string, owner: string, notBefore: number): boolean;
  /** Requeues expired leases (stall count +1), failing tasks that stalled more than `maxStalls` times. */
  reap(maxStalls: number): number;
  /** Requeues every active task (stall count +1): at boot, all of them belong to a dead process; fails poison pages. */
  recoverAll(maxStalls: number): number;
  /**
   * Counts a page attempt on a host; gives the host up after `threshold` failures in a row: its queued pages are
   * never handed out from then on, and fail (a chunk now, returned as how many, the rest through continueGiveUps).
   */
  recordHostOutcome(jobId: string, host: string, ok: boolean, threshold: number): number;
  /**
   * Fails the next chunk of queued pages of a host given up, in one transaction; how many, 0 once no give-up is left
   * in progress. Called with the event loop free between chunks (a host's 100,000 pages at once held it 1.7 s).
   */
  continueGiveUps(): number;
  get(jobId: string): Job | undefined;
  list(keyId: string, status?: JobStatus): Job[];
}
