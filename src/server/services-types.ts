/**
 * @module server/services-types
 * The shape of the service graph: {@link Services}, everything a running crawlbox holds (what the routes, the CLI
 * and the tests are handed), and {@link ServiceOptions}, what tests and embedders may inject. Kept apart from
 * server/services.ts, the composition root that builds the graph, because most modules need only these types and not
 * the wiring; services.ts re-exports both, so importers keep importing them from there. Types only: nothing here is
 * created or started.
 */
import type { Database } from "bun:sqlite";
import type { AgentService } from "../agent/service.ts";
import type { ActivityLog } from "../auth/activity.ts";
import type { CreditLedger } from "../auth/credits.ts";
import type { KeyStore } from "../auth/keys.ts";
import type { Config } from "../config.ts";
import type { RobotsCache } from "../crawl/robots-cache.ts";
import type { DocumentWorkers } from "../documents/isolate/pool.ts";
import type { AddressClassifier, EgressGate, Resolver } from "../egress/index.ts";
import type { Engines } from "../engines/browser/index.ts";
import type { Engine } from "../engines/types.ts";
import type { ExtractService } from "../extract/service.ts";
import type { FeedbackStore } from "../feedback/store.ts";
import type { IdempotencyStore } from "../idempotency/store.ts";
import type { InteractSessions } from "../interact/sessions.ts";
import type { JobResults } from "../jobs/results.ts";
import type { JobService } from "../jobs/service.ts";
import type { SqliteJobStore } from "../jobs/sqlite-store.ts";
import type { WorkerPool } from "../jobs/worker-pool.ts";
import type { LlmClient } from "../llm/client.ts";
import type { CrawlPromptService } from "../llm/crawl-prompt.ts";
import type { Logger } from "../log.ts";
import type { MailOutbox } from "../mail/outbox.ts";
import type { MonitorService } from "../monitor/service.ts";
import type { MonitorStore } from "../monitor/store.ts";
import type { UploadRefStore } from "../parse/upload-refs.ts";
import type { Scheduler } from "../scheduler/index.ts";
import type { ConcurrencyLimiter } from "../scrape/limiter.ts";
import type { ParsePool } from "../scrape/parse-workers/pool.ts";
import type { ScrapeService } from "../scrape/service.ts";
import type { ScrapeStats } from "../scrape/stats.ts";
import type { SearchService } from "../search/service.ts";
import type { FileStore } from "../storage/files.ts";
import type { PageCache } from "../storage/page-cache.ts";
import type { ProfileStore } from "../storage/profiles.ts";
import type { ScrapeResults } from "../storage/scrape-results.ts";
import type { WebhookDispatcher, WebhookFetch } from "../webhooks/index.ts";
import type { RequestDrain } from "./request-drain.ts";

/** Everything a running crawlbox holds. */
export interface Services {
  config: Config;
  log: Logger;
  version: string;
  db: Database;
  keys: KeyStore;
  ledger: CreditLedger;
  /** Each key's recent activity (`GET /v2/team/activity`). */
  activity: ActivityLog;
  cache: PageCache;
  results: ScrapeResults;
  /** `Idempotency-Key` claims and the responses they replay (src/idempotency). */
  idempotency: IdempotencyStore;
  gate: EgressGate;
  engines: Engines;
  files: FileStore;
  /** The upload flow of POST /v2/parse: reserved upload URLs and the files they received. */
  uploadRefs: UploadRefStore;
  scheduler: Scheduler;
  scrape: ScrapeService;
  /** `POST /v2/search` over the configured SearXNG instance (src/search). */
  search: SearchService;
  /** `POST /v2/extract` jobs (src/extract). */
  extract: ExtractService;
  /** `/v2/agent` runs (src/agent). */
  agent: AgentService;
  /** The mail outbox, when a relay is configured (`CRAWLBOX_SMTP_URL`; src/mail). */
  mail?: MailOutbox;
  /** Browser sessions of `/v2/scrape/{id}/interact` and `/v2/browser` (src/interact); undefined without the browser engine. */
  interact?: InteractSessions;
  /** Saved browser profiles (cookies and storage), per key. */
  profiles: ProfileStore;
  /** Feedback on jobs' results (`/v2/feedback`). */
  feedback: FeedbackStore;
  /** `/v2/monitor` (src/monitor): scheduled change monitoring; its store for the routes' check listings. */
  monitors: MonitorService;
  monitorStore: MonitorStore;
  /** Parse worker threads the scrape service hands concurrent and large pages to. */
  parseWorkers: ParsePool;
  /** The threads PDFs and office files are parsed on, stopped at a request's deadline (src/documents/isolate). */
  documentWorkers: DocumentWorkers;
  limiter: ConcurrencyLimiter;
  scrapeStats: ScrapeStats;
  /** Delivers the webhook outbox; call `kick()` after committing a transaction that enqueued events. */
  webhooks: WebhookDispatcher;
  /** The HTTP engine (through the egress gate) that the engine router uses for scrape attempts. */
  http: Engine;
  /** {@link http} through the basic upstream proxy when one is configured: robots.txt, sitemaps, map, media. */
  discoveryHttp: Engine;
  /** robots.txt per origin, shared by crawls and map (24 h). */
  robots: RobotsCache;
  /** Crawl and batch jobs: the store, its read side, the workers and the service the routes use. */
  jobStore: SqliteJobStore;
  jobResults: JobResults;
  workers: WorkerPool;
  jobs: JobService;
  /** The configured LLM (json, summary, crawl prompts, …); undefined when none is configured. */
  llm?: LlmClient;
  /** Turns crawl prompts into crawler options (POST /v2/crawl `prompt`, /v2/crawl/params-preview). */
  crawlPrompts: CrawlPromptService;
  /** The end of a stopping server's grace, which the long requests still running observe (server/request-drain.ts). */
  drain: RequestDrain;
  /** Stops background work and releases the database and sockets. */
  close(): Promise<void>;
}

/** Options for tests and embedding. */
export interface ServiceOptions {
  log?: Logger;
  /** DNS resolver for the egress gate (tests inject one). */
  resolver?: Resolver;
  /** Address policy of the egress gate (tests declare a fixture address public). */
  classify?: AddressClassifier;
  now?: () => number;
  /** fetch used for webhook deliveries (tests inject one). */
  webhookFetch?: WebhookFetch;
  /** fetch under the LLM provider's pinned fetch (tests observe it). @default fetch */
  llmFetch?: typeof fetch;
  /** fetch under the search backend's pinned fetch (tests observe it). @default fetch */
  searchFetch?: typeof fetch;
  /**
   * Start the job workers and the webhook dispatcher, which first take over what a previous process left
   * running, and the periodic upkeep (expiry, cache compaction, the mail outbox). `false` for a one-off
   * `crawlbox scrape` on the data folder of a server that may be running: it must neither requeue that server's
   * pages, nor work on its jobs, nor send its mail. @default true
   */
  background?: boolean;
  /** The parse worker pool (tests inject one that fails or that sends every page to a worker). @default `CRAWLBOX_PARSE_WORKERS` workers */
  parsePool?: ParsePool;
}
