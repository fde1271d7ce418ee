/**
 * @module server/scrape-stack
 * What the scrape service is built from, and the scrape service itself: the configured LLM client, the HTTP engine
 * (and its discovery variant through the basic upstream proxy), the robots.txt cache, the renderers (with the change
 * history, media settings and deterministic extractors they use), the browser engines (with the profile store), the
 * document and parse workers, the parsers, and the {@link ScrapeService} over all of them. Kept apart from
 * server/services.ts, the composition root, because this is one self-contained part of its graph: it needs only the
 * storage and the egress gate made before it, and everything after it (jobs, search, extract, agent, monitors) builds
 * on what it returns. The parts are created here in the order the composition root has always created them; the
 * feedback store is created among them for that reason alone. Closing stays with the composition root.
 */
import type { Database } from "bun:sqlite";
import { createLlmProviderRegistry, createParserRegistry, createRendererRegistry } from "../../plugins/index.ts";
import type { CreditLedger } from "../auth/credits.ts";
import { ChangeHistory } from "../change-tracking/history.ts";
import { createContentCleaner } from "../clean-content/cleaner.ts";
import type { Config } from "../config.ts";
import { RobotsCache } from "../crawl/robots-cache.ts";
import type { ParserRegistry } from "../documents/types.ts";
import { createDocumentWorkers, type DocumentWorkers } from "../documents/isolate/pool.ts";
import { findFfmpeg } from "../documents/media/settings.ts";
import type { EgressGate } from "../egress/index.ts";
import { createEngines, type Engines } from "../engines/browser/index.ts";
import type { BrowserPool } from "../engines/browser/pool.ts";
import { createHttpEngine } from "../engines/http/index.ts";
import { viaUpstream } from "../engines/http/via-upstream.ts";
import type { Engine } from "../engines/types.ts";
import { FeedbackStore } from "../feedback/store.ts";
import type { LlmClient } from "../llm/client.ts";
import { ExtractorStore } from "../llm/deterministic/store.ts";
import { createLlmClient } from "../llm/registry.ts";
import type { Logger } from "../log.ts";
import { createRedactor } from "../redact/redactor.ts";
import { createParsePool, type ParsePool } from "../scrape/parse-workers/pool.ts";
import type { RendererNeed } from "../scrape/renderer.ts";
import { ScrapeService } from "../scrape/service.ts";
import type { PageCache } from "../storage/page-cache.ts";
import { ProfileStore } from "../storage/profiles.ts";
import type { ScrapeResults } from "../storage/scrape-results.ts";
import type { ServiceOptions } from "./services-types.ts";

/** Capabilities beyond what the engines bring (the engine router adds `browser`); LLM providers add `llm`. */
const CAPABILITIES: ReadonlySet<RendererNeed> = new Set<RendererNeed>();

/** What the scrape stack is built on: what the composition root made before it. */
export interface ScrapeStackBase {
  db: Database;
  gate: EgressGate;
  cache: PageCache;
  results: ScrapeResults;
  ledger: CreditLedger;
  log: Logger;
  now: () => number;
}

/** The scrape stack's parts the rest of the service graph uses (server/services-types.ts says what each is for). */
export interface ScrapeStack {
  llm: LlmClient | undefined;
  http: Engine;
  discoveryHttp: Engine;
  robots: RobotsCache;
  changeHistory: ChangeHistory;
  extractors: ExtractorStore;
  profiles: ProfileStore;
  feedback: FeedbackStore;
  engines: Engines;
  documentWorkers: DocumentWorkers;
  parsers: ParserRegistry;
  parseWorkers: ParsePool;
  scrape: ScrapeService;
}

/** Builds the scrape stack for `config` on `base` (server/services.ts calls it once, right after the egress gate). */
export function createScrapeStack(config: Config, options: ServiceOptions, base: ScrapeStackBase): ScrapeStack {
  const { db, gate, cache, results, ledger, log, now } = base;
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
    formatIsBytesOnly: (type) => renderers.get(type)?.bytesOnly === true,
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
  return { llm, http, discoveryHttp, robots, changeHistory, extractors, profiles, feedback, engines, documentWorkers, parsers, parseWorkers, scrape };
}
