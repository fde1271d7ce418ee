/**
 * @module server/services
 * The composition root: builds every long-lived service of a crawlbox process from its {@link Config} in one
 * place (database, keys, credits, cache, egress gate, engines, renderers, scrape service) and closes them in
 * reverse order. Tests build the same graph with a test config, so they exercise the real components.
 */
import type { Database } from "bun:sqlite";
import { createLlmProviderRegistry, createParserRegistry, createRendererRegistry } from "../../plugins/index.ts";
import { createHiddenRecheckHook } from "../change-tracking/crawl-recheck.ts";
import { ChangeHistory } from "../change-tracking/history.ts";
import type { LlmClient } from "../llm/client.ts";
import { CrawlPromptService } from "../llm/crawl-prompt.ts";
import { createLlmClient } from "../llm/registry.ts";
import { ActivityLog } from "../auth/activity.ts";
import { CreditLedger } from "../auth/credits.ts";
import { KeyStore } from "../auth/keys.ts";
import type { Config } from "../config.ts";
import { type AddressClassifier, createEgressGate, type EgressGate, type Resolver } from "../egress/index.ts";
import { createHttpEngine } from "../engines/http/index.ts";
import { viaUpstream } from "../engines/http/via-upstream.ts";
import type { Engine } from "../engines/types.ts";
import { createEngines, type Engines } from "../engines/browser/index.ts";
import { createLogger, type Logger } from "../log.ts";
import { ConcurrencyLimiter } from "../scrape/limiter.ts";
import type { RendererNeed } from "../scrape/renderer.ts";
import { createParsePool, type ParsePool } from "../scrape/parse-workers/pool.ts";
import { createDocumentWorkers, type DocumentWorkers } from "../documents/isolate/pool.ts";
import { createRedactor } from "../redact/redactor.ts";
import { createContentCleaner } from "../clean-content/cleaner.ts";
import { ScrapeService } from "../scrape/service.ts";
import { createSearxngBackend } from "../search/searxng.ts";
import { SearchService } from "../search/service.ts";
import { AgentService } from "../agent/service.ts";
import { AgentStore } from "../agent/store.ts";
import { pruneTraces } from "../agent/trace.ts";
import { MonitorService } from "../monitor/service.ts";
import { InteractSessions } from "../interact/sessions.ts";
import { MonitorStore } from "../monitor/store.ts";
import { crawlRunner } from "../monitor/crawl-target.ts";
import { searchRunner } from "../monitor/search-target.ts";
import { ExtractService } from "../extract/service.ts";
import { ExtractStore } from "../extract/store.ts";
import { createScheduler, type Scheduler } from "../scheduler/index.ts";
import { FileStore } from "../storage/files.ts";
import { UploadRefStore } from "../parse/upload-refs.ts";
import { openDatabase } from "../storage/database.ts";
import { PageCache } from "../storage/page-cache.ts";
import { ProfileStore } from "../storage/profiles.ts";
import { FeedbackStore } from "../feedback/store.ts";
import { ScrapeResults } from "../storage/scrape-results.ts";
import { VERSION } from "../version.ts";
import { createWebhookDispatcher, enqueueWebhookEvent, type WebhookDispatcher, type WebhookFetch } from "../webhooks/index.ts";
import { RobotsCache } from "../crawl/robots-cache.ts";
import { createCrawlPlanner } from "../jobs/crawl-planner.ts";
import { IdempotencyStore } from "../idempotency/store.ts";
import { JobResults } from "../jobs/results.ts";
import { JobService } from "../jobs/service.ts";
import { SqliteJobStore } from "../jobs/sqlite-store.ts";
import { createTaskRunner } from "../jobs/task-runner.ts";
import { taskOptions, type JobEvent } from "../jobs/types.ts";
import { WorkerPool } from "../jobs/worker-pool.ts";
import { TaskLoader } from "../jobs/task-loader.ts";
import type { BrowserPool } from "../engines/browser/pool.ts";
import { ExtractorStore } from "../llm/deterministic/store.ts";
import { MailOutbox } from "../mail/outbox.ts";
import { MailRecipients } from "../mail/recipients.ts";
import { FILE_TTL_MS, fileUrl } from "../storage/files.ts";
import { findFfmpeg } from "../documents/media/settings.ts";
import { ScrapeStats } from "../scrape/stats.ts";

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

/** Capabilities beyond what the engines bring (the engine router adds `browser`); LLM providers add `llm`. */
const CAPABILITIES: ReadonlySet<RendererNeed> = new Set<RendererNeed>();

/** Builds the service graph for `config`. */
export async function createServices(config: Config, options: ServiceOptions = {}): Promise<Services> {
  const log = options.log ?? createLogger(config.logLevel);
  const now = options.now ?? Date.now;
  const db = openDatabase(config.dataDir);
  const keys = new KeyStore(db, config.apiKeys, now);
  const ledger = new CreditLedger(db, config.defaultCreditQuota, now, (err) => log.warn("credit charges not written yet (kept, tried again)", { error: String(err) }));
  const activity = new ActivityLog(db, now, (err) => log.warn("activity entries not written yet (kept, tried again)", { error: String(err) }));
  const cache = new PageCache(db, config.dataDir);
  const results = new ScrapeResults(db);
  const idempotency = new IdempotencyStore(db);
  const files = new FileStore(db, config.dataDir, now);
  const uploadRefs = new UploadRefStore(db, files, now);
  const gate = await createEgressGate({
    allowPrivateNetwork: config.allowPrivateNetwork,
    resolver: options.resolver,
    classify: options.classify,
    logger: log,
    // One gate listener per configured upstream proxy; the engine router picks one per attempt (docs/browser.md).
    upstreamProxies: [...new Set([config.proxyBasic, config.proxyEnhanced, ...Object.values(config.proxyCountries)].filter((u) => u !== ""))],
  });
  // LLM traffic bypasses the egress gate, but only to the configured provider address (llm/pinned-fetch.ts).
  const llm = createLlmClient(config, createLlmProviderRegistry(), options.llmFetch);
  if (llm) log.info("LLM provider configured", { provider: llm.provider.name, address: llm.provider.address, model: llm.provider.model });
  // One HTTP engine and one robots.txt cache for scrapes, crawls and map. Fetches that are not a scrape attempt
  // take the basic upstream proxy like a scrape's first attempt (engines/http/via-upstream.ts).
  const http = createHttpEngine({ gate, pinned: !config.environmentProxy });
  if (config.environmentProxy) {
    log.warn("HTTP_PROXY/HTTPS_PROXY/ALL_PROXY is set: scrapes do not use it (set CRAWLBOX_PROXY_BASIC for an upstream proxy); LLM requests do");
  }
  const discoveryHttp = viaUpstream(http, config.proxyBasic);
  const robots = new RobotsCache({ engine: discoveryHttp, now });
  const changeHistory = new ChangeHistory(db);
  const media = {
    ffmpegPath: findFfmpeg(config.ffmpegPath),
    maxBytes: Math.min(config.maxMediaBytes, config.maxPageBytes),
    maxSeconds: config.maxMediaSeconds,
    fetch: (url: string, maxBodyBytes: number, timeoutMs: number, signal?: AbortSignal) => discoveryHttp.fetch({ url, timeoutMs, maxBodyBytes }, signal),
  };
  const extractors = new ExtractorStore(db);
  // The pool is made with the engines, after the renderers: `deterministicJson` reads it when it renders a page.
  let browserPool: BrowserPool | undefined;
  const renderers = createRendererRegistry({ llm, llmLimits: config, changeHistory, media, deterministic: { pool: () => browserPool, store: extractors } });
  const profiles = new ProfileStore(db, now);
  const feedback = new FeedbackStore(db);
  const engines = createEngines({
    config,
    gate,
    http,
    profiles,
    log,
    formatNeedsBrowser: (type) => renderers.get(type)?.needs.includes("browser") ?? false,
  });
  browserPool = engines.pool;
  const documentWorkers = createDocumentWorkers({ size: config.documentWorkers, onWorkerError: (message) => log.warn(message) });
  const parsers = createParserRegistry({
    documents: documentWorkers,
    ocrWorkers: config.ocrWorkers,
    tessdataDir: config.tessdataDir,
    ocrDpi: config.ocrDpi,
    onWorkerError: (message) => log.warn(message),
  });
  const parseWorkers = options.parsePool ?? createParsePool({ size: config.parseWorkers, onWorkerError: (message) => log.warn(message) });
  const scrape = new ScrapeService({
    engines,
    renderers,
    parsers,
    cache,
    results,
    ledger,
    maxPageBytes: config.maxPageBytes,
    privateNetwork: config.allowPrivateNetwork,
    maxDocumentContinuations: config.documentContinuations,
    capabilities: new Set<RendererNeed>([...CAPABILITIES, ...(llm ? ["llm" as const] : []), ...(engines.pool ? ["sandbox" as const] : [])]),
    now,
    log,
    parseWorkers,
    redactor: createRedactor(llm, config),
    ...(llm ? { cleaner: createContentCleaner(llm, config) } : {}),
  });
  const limiter = new ConcurrencyLimiter(config.maxConcurrency);
  // Like the LLM provider, SearXNG is the operator's own service: reached by a pinned fetch, not the egress gate.
  const searchBackend = config.searxngEndpoint
    ? createSearxngBackend({
        endpoint: config.searxngEndpoint,
        engines: config.searxngEngines,
        categories: config.searxngCategories,
        log: (message, fields) => log.warn(message, fields),
        ...(options.searchFetch ? { fetch: options.searchFetch } : {}),
      })
    : undefined;
  const search = new SearchService({
    ...(searchBackend ? { backend: searchBackend } : {}),
    scrape,
    limiter,
    ledger,
    config,
    // asyncScraping: the results' pages become a batch job (created below; called only once requests arrive).
    startScrapes: (urls, scrapeOptions, who, base) => {
      // The search checked its first page's credit before it searched and paid (search/service.ts); asking for one per
      // result now would refuse the batch after the search was charged. Each page is still charged as it is stored.
      const job = jobs.createBatch({ urls: urls.map((url) => ({ url, sourceURL: url })), scrapeOptions, ignoreInvalidURLs: true, origin: "search" }, who, base, undefined, 1);
      return jobResults.taskIdsByUrl(job.id);
    },
  });
  const scheduler = createScheduler(log);
  const background = options.background ?? true;
  /**
   * Periodic upkeep (expiry, compaction, the mail outbox) belongs to the server: a one-off `crawlbox scrape` on the
   * same data folder (background: false) must not run it beside the server (it sent the outbox's due mail, which
   * the server sends too: the outbox has no claim across processes).
   */
  const upkeep = (name: string, cron: string, run: () => void) => {
    if (background) scheduler.every(name, cron, run);
  };
  upkeep("expire-files-trim-results", "0 * * * * *", () => {
    void files.prune();
    uploadRefs.prune();
    // Checked every minute: a busy server stores hundreds of results a second.
    results.trim(config.maxStoredResults);
  });
  upkeep("expire-results", "0 7 * * * *", () => {
    activity.prune();
    results.prune(now());
    idempotency.prune(now());
    extractStore.prune(now());
    agentStore.prune(now());
    pruneTraces(db);
    monitorStore.prune(now());
    feedback.prune(now());
    extractors.prune(now());
    cache.prune(now() - config.cacheRetentionMs);
    profiles.prune(now() - config.profileRetentionMs);
    changeHistory.prune(now() - config.changeHistoryRetentionMs);
  });
  // Every five minutes: pages fetched again and again (maxAge: 0) leave their old copies behind quickly (a soak at
  // ~140 misses a second left 473 MB of segments for 208 live pages before the hourly run).
  upkeep("compact-cache", "0 */5 * * * *", () => {
    void cache
      .compact()
      .then((r) => r.segments > 0 && log.info("page cache compacted", { ...r }))
      .catch((err: unknown) => log.warn("page cache compaction failed", { error: err instanceof Error ? err.message : String(err) }));
  });
  const webhooks = createWebhookDispatcher({
    db,
    secret: config.webhookSecret,
    allowPrivateWebhooks: config.allowPrivateWebhooks,
    gate,
    timeoutMs: config.webhookTimeoutMs,
    now,
    fetch: options.webhookFetch,
    scheduler,
    log,
  });
  if (config.allowPrivateWebhooks) log.warn("CRAWLBOX_ALLOW_PRIVATE_WEBHOOKS is on: webhooks bypass the egress gate");
  if (background) webhooks.start();

  // Jobs: every state change and its webhook event commit in one transaction (the sink runs inside it).
  const announce = (e: JobEvent) => {
    // Pages added by `appendToId` are announced to that request's webhook when it gave one.
    const { webhook } = taskOptions(e.job.options, e.optionsIndex);
    if (!webhook) return;
    const input = { jobId: e.job.id, keyId: e.job.keyId, jobKind: e.job.kind === "crawl" ? ("crawl" as const) : ("batch_scrape" as const), event: e.event, success: e.success, data: e.data, webhook };
    if (enqueueWebhookEvent(db, e.error === undefined ? input : { ...input, error: e.error }, { now: now() })) queueMicrotask(() => webhooks.kick());
  };
  const jobStore = new SqliteJobStore(db, announce, now);
  jobStore.setDrainHook(createHiddenRecheckHook(db, changeHistory, now));
  jobStore.setChargeHook((keyId, credits) => ledger.charge(keys.identityOf(keyId), credits));
  const jobResults = new JobResults(db, now);
  const planner = createCrawlPlanner({ engine: discoveryHttp, robots, log });
  const workers = new WorkerPool({
    store: jobStore,
    log,
    concurrency: config.jobConcurrency,
    perHostConcurrency: config.perHostConcurrency,
    now,
    run: createTaskRunner({
      scrape,
      keys,
      planner,
      config,
      now,
      log,
      // A page's files live as long as its job's results (storage/files.ts), not 24 h from the page.
      filesFor: (job) => async (bytes, contentType, extension) => fileUrl(job.publicBaseUrl, await files.put(bytes, contentType, job.keyId, extension, FILE_TTL_MS, job.id)),
    }),
  });
  // What the LLM research services (extract jobs, agent runs) share: they read pages, search and ask the model.
  const research = {
    db,
    ...(llm ? { llm } : {}),
    scrape,
    limiter,
    ledger,
    keys,
    search,
    canSearch: searchBackend !== undefined,
    config,
    kickWebhooks: () => webhooks.kick(),
    log,
    now,
  };
  const extractStore = new ExtractStore(db);
  const extract = new ExtractService({ ...research, store: extractStore, map: { engine: discoveryHttp, robots, gate } });
  const agentStore = new AgentStore(db);
  const agent = new AgentService({ ...research, store: agentStore });
  const interact = engines.pool ? new InteractSessions(engines.pool, config.browserConcurrency, (url) => gate.check(url), config.maxPageBytes, now, engines.proxyServerFor) : undefined;
  // A large batch's tasks are queued a chunk at a time after the request is answered (jobs/pending-tasks.ts).
  const taskLoader = new TaskLoader({ store: jobStore, onLoaded: () => workers.kick(), log });
  const jobs = new JobService({ store: jobStore, results: jobResults, pool: workers, loader: taskLoader, scrape, ledger, planner, config, now });
  const monitorStore = new MonitorStore(db);
  // A monitor's crawl is made by no request: its links use CRAWLBOX_PUBLIC_URL, else the address the server listens on.
  const listenHost = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host.includes(":") ? `[${config.host}]` : config.host;
  const crawl = crawlRunner({ jobs, jobStore, jobResults, publicBaseUrl: config.publicUrl || `http://${listenHost}:${config.port}` });
  // Email notifications go through the operator's relay, like the LLM and SearXNG reached without the egress gate.
  const mail = config.smtpUrl ? new MailOutbox(db, { url: config.smtpUrl, from: config.smtpFrom }, (message, fields) => log.warn(message, fields), now) : undefined;
  if (mail) {
    upkeep("deliver-mail", "*/30 * * * * *", () => void mail.deliver());
    upkeep("expire-mail", "0 23 * * * *", () => mail.prune());
  }
  const monitors = new MonitorService({
    ...research,
    store: monitorStore,
    crawl,
    stopCheckCrawls: (checkId) => jobs.cancelMonitorCrawls(checkId),
    // Links in emails point at CRAWLBOX_PUBLIC_URL only: a request's Host is the key holder's to write.
    ...(mail ? { mail, recipients: new MailRecipients(db, now), ...(config.publicUrl ? { publicBaseUrl: config.publicUrl } : {}) } : {}),
    ...(searchBackend ? { searchTarget: searchRunner(search) } : {}),
  });
  upkeep("expire-jobs", "0 17 * * * *", () => void jobResults.prune());
  if (background) {
    workers.start();
    taskLoader.start();
  }

  return {
    config,
    log,
    version: VERSION,
    db,
    keys,
    ledger,
    activity,
    cache,
    results,
    idempotency,
    gate,
    engines,
    files,
    uploadRefs,
    scheduler,
    scrape,
    search,
    extract,
    agent,
    ...(interact ? { interact } : {}),
    profiles,
    feedback,
    monitors,
    ...(mail ? { mail } : {}),
    monitorStore,
    parseWorkers,
    documentWorkers,
    limiter,
    scrapeStats: new ScrapeStats(),
    webhooks,
    http,
    discoveryHttp,
    robots,
    jobStore,
    jobResults,
    workers,
    jobs,
    ...(llm ? { llm } : {}),
    crawlPrompts: new CrawlPromptService(llm, ledger, config),
    async close() {
      scheduler.stop();
      await extract.close();
      await agent.close();
      await monitors.close();
      await interact?.closeAll();
      await taskLoader.stop();
      await workers.stop();
      await webhooks.stop();
      await mail?.stop();
      await engines.close();
      await parsers.close();
      await documentWorkers.close();
      await parseWorkers.close();
      await gate.close();
      cache.close();
      results.flush();
      ledger.flush();
      activity.flush();
      db.close();
    },
  };
}
