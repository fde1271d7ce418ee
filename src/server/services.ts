/**
 * @module server/services
 * The composition root: builds every long-lived service of a crawlbox process from its {@link Config} in one
 * place (database, keys, credits, cache, egress gate, engines, renderers, scrape service) and closes them in
 * reverse order. Tests build the same graph with a test config, so they exercise the real components.
 *
 * Its parts live beside it: the graph's types in server/services-types.ts (re-exported here), the LLM client, engines,
 * renderers, parsers and scrape service in server/scrape-stack.ts, the periodic upkeep jobs in server/upkeep.ts.
 */
import { createHiddenRecheckHook } from "../change-tracking/crawl-recheck.ts";
import { CrawlPromptService } from "../llm/crawl-prompt.ts";
import { fallbackWebhook } from "../api/webhook.ts";
import { ActivityLog } from "../auth/activity.ts";
import { CreditLedger } from "../auth/credits.ts";
import { KeyStore } from "../auth/keys.ts";
import type { Config } from "../config.ts";
import { createEgressGate } from "../egress/index.ts";
import { createLogger } from "../log.ts";
import { ConcurrencyLimiter } from "../scrape/limiter.ts";
import { createSearxngBackend } from "../search/searxng.ts";
import { SearchService } from "../search/service.ts";
import { AgentService } from "../agent/service.ts";
import { AgentStore } from "../agent/store.ts";
import { MonitorService } from "../monitor/service.ts";
import { InteractSessions } from "../interact/sessions.ts";
import { MonitorStore } from "../monitor/store.ts";
import { crawlRunner } from "../monitor/crawl-target.ts";
import { searchRunner } from "../monitor/search-target.ts";
import { ExtractService } from "../extract/service.ts";
import { ExtractStore } from "../extract/store.ts";
import { createScheduler } from "../scheduler/index.ts";
import { FileStore } from "../storage/files.ts";
import { UploadRefStore } from "../parse/upload-refs.ts";
import { openDatabase } from "../storage/database.ts";
import { PageCache } from "../storage/page-cache.ts";
import { ScrapeResults } from "../storage/scrape-results.ts";
import { VERSION } from "../version.ts";
import { createWebhookDispatcher, enqueueWebhookEvent } from "../webhooks/index.ts";
import { createCrawlPlanner } from "../jobs/crawl-planner.ts";
import { IdempotencyStore } from "../idempotency/store.ts";
import { JobResults } from "../jobs/results.ts";
import { JobService } from "../jobs/service.ts";
import { SqliteJobStore } from "../jobs/sqlite-store.ts";
import { createTaskRunner } from "../jobs/task-runner.ts";
import { taskOptions, type JobEvent } from "../jobs/types.ts";
import { WorkerPool } from "../jobs/worker-pool.ts";
import { TaskLoader } from "../jobs/task-loader.ts";
import { MailOutbox } from "../mail/outbox.ts";
import { MailRecipients } from "../mail/recipients.ts";
import { FILE_TTL_MS, fileUrl } from "../storage/files.ts";
import { ScrapeStats } from "../scrape/stats.ts";
import type { ServiceOptions, Services } from "./services-types.ts";
import { createScrapeStack } from "./scrape-stack.ts";
import { RequestDrain } from "./request-drain.ts";
import { scheduleJobUpkeep, scheduleMailUpkeep, scheduleStorageUpkeep, upkeepOn } from "./upkeep.ts";

export type { ServiceOptions, Services } from "./services-types.ts";

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
  const { llm, http, discoveryHttp, robots, changeHistory, extractors, profiles, feedback, engines, documentWorkers, parsers, parseWorkers, scrape } =
    createScrapeStack(config, options, { db, gate, cache, results, ledger, log, now });
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
  const upkeep = upkeepOn(scheduler, background);
  // extractStore, agentStore and monitorStore are created further down: the hourly expiry reads them when it runs.
  const later = () => ({ extractStore, agentStore, monitorStore });
  scheduleStorageUpkeep(upkeep, { config, log, now, db, files, uploadRefs, results, activity, idempotency, feedback, extractors, cache, profiles, changeHistory, later });
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
    // A monitor check's crawl is the monitor's own work, announced by the monitor's webhook: not by the fallback.
    const fallback = e.job.options.monitorCheckId === undefined ? fallbackWebhook(config.fallbackWebhookUrl, e.job.id) : undefined;
    const webhook = taskOptions(e.job.options, e.optionsIndex).webhook ?? fallback;
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
      ledger,
      planner,
      config,
      now,
      log,
      // A job whose key was revoked: failed, and its other running pages stopped (nothing more is charged).
      failJob: (jobId, message, keepTaskId) => {
        jobStore.failJob(jobId, message, keepTaskId);
        workers.abortJob(jobId);
      },
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
  if (mail) scheduleMailUpkeep(upkeep, mail);
  const monitors = new MonitorService({
    ...research,
    store: monitorStore,
    crawl,
    stopCheckCrawls: (checkId) => jobs.cancelMonitorCrawls(checkId),
    // Links in emails point at CRAWLBOX_PUBLIC_URL only: a request's Host is the key holder's to write.
    ...(mail ? { mail, recipients: new MailRecipients(db, now), ...(config.publicUrl ? { publicBaseUrl: config.publicUrl } : {}) } : {}),
    ...(searchBackend ? { searchTarget: searchRunner(search) } : {}),
  });
  scheduleJobUpkeep(upkeep, jobResults, db);
  const drain = new RequestDrain();
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
    drain,
    async close() {
      // Requests still running stop now, answered 503 (`serve` ends the drain itself first, at its grace's end).
      drain.end();
      scheduler.stop();
      await extract.close();
      await agent.close();
      await monitors.close();
      await interact?.closeAll();
      await taskLoader.stop();
      // `serve` has let the pages and deliveries in flight finish within its grace (quiesce); what is left is aborted:
      // pages handed back to the queue, deliveries recorded interrupted, both run again at the next start.
      await workers.stop();
      await webhooks.stop();
      await mail?.stop();
      await engines.close();
      await parsers.close();
      await documentWorkers.close();
      await parseWorkers.close();
      await gate.close();
      cache.close();
      // The ledger's and the activity's queues first: their flush never throws, the results' may (a full disk).
      ledger.flush();
      activity.flush();
      results.flush();
      db.close();
    },
  };
}