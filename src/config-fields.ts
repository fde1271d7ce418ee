/**
 * @module config-fields
 * The {@link Config} interface: every setting of a crawlbox process, each documented with its meaning and default.
 * Kept apart from config.ts, which reads and validates the environment, because this is the contract the rest of
 * the code is written against, and its field documentation alone would otherwise outweigh the loading code. This
 * module holds a type only: it does not read the environment itself; config.ts (`loadConfig`) stays the one reader,
 * and re-exports {@link Config}, so importers keep importing it from config.ts.
 * docs/configuration.md documents every field; keep the two in step.
 */

/** The validated configuration of one crawlbox process. */
export interface Config {
  /** TCP port of the HTTP server. @default 3002 */
  port: number;
  /** Interface to bind. @default "0.0.0.0" */
  host: string;
  /** Folder for the SQLite database and stored files. @default "./data" (relative to the working directory) */
  dataDir: string;
  /** Keys accepted besides the stored ones (CRAWLBOX_API_KEYS, comma-separated). */
  apiKeys: string[];
  /** Whether /v2 routes require a key. Only `CRAWLBOX_AUTH=off` disables it. @default true */
  authEnabled: boolean;
  /**
   * Web origins whose pages may call the API from a browser (CORS), or `["*"]` for any. @default any with
   * authentication on (a page still needs a key), none with it off (server/cors.ts)
   */
  corsOrigins: string[];
  /** Let the egress gate reach private, loopback and link-local addresses (on-prem use, tests). @default false */
  allowPrivateNetwork: boolean;
  /** HMAC secret for webhook signatures; unsigned when empty. */
  webhookSecret: string;
  /** Absolute base URL used for `next` links and file URLs; empty = the request's own origin. */
  publicUrl: string;
  /** Chromium executable; empty = look in the Debian locations. */
  chromePath: string;
  /**
   * Ollama server for LLM formats, without a trailing `/api` or `/v1` (upstream's .env.example writes
   * `http://localhost:11434/api`, Ollama's OpenAI-compatible address is `…:11434/v1`; the Ollama client adds
   * `/api/chat` itself). @default "http://127.0.0.1:11434"
   */
  ollamaBaseUrl: string;
  /**
   * Whether `OLLAMA_BASE_URL` was given (or `ollamaBaseUrl` passed as an override). In `auto` mode it selects Ollama
   * over an OpenAI-compatible endpoint, as upstream does: an operator who points at a local Ollama must not have page
   * content sent to a hosted API because an `OPENAI_API_KEY` is also set. @default false
   */
  ollamaBaseUrlSet: boolean;
  /** OpenAI-compatible endpoint; when set, the openai provider is used. */
  openaiBaseUrl: string;
  /** Key for the OpenAI-compatible endpoint. */
  openaiApiKey: string;
  /** Model name for LLM formats. */
  modelName: string;
  /** SearXNG instance for `POST /v2/search` (upstream's `SEARXNG_ENDPOINT`); empty = search is not configured. */
  searxngEndpoint: string;
  /**
   * Mail relay for monitors' email notifications (`smtp://[user:pass@]host[:port]` with STARTTLS when offered, or
   * `smtps://`); empty = email notifications are refused. @default ""
   */
  smtpUrl: string;
  /** Sender address of crawlbox's mail. @default "crawlbox@localhost" */
  smtpFrom: string;
  /** SearXNG engines to ask (upstream's `SEARXNG_ENGINES`, comma-separated); empty = the instance's defaults. */
  searxngEngines: string;
  /** SearXNG categories for web results (upstream's `SEARXNG_CATEGORIES`); empty = `general`. */
  searxngCategories: string;
  /** Largest accepted request body. @default 10 MiB */
  maxRequestBodyBytes: number;
  /** Largest file accepted by `POST /v2/parse` (the whole multipart body). @default 50 MiB, as upstream */
  maxUploadBytes: number;
  /** Largest decoded page body an engine will read. @default 25 MiB */
  maxPageBytes: number;
  /** Default scrape deadline when the request gives none. @default 30000 */
  defaultTimeoutMs: number;
  /**
   * How long a stopping `serve` (SIGTERM, SIGINT) lets the requests in flight finish. At its end those still running
   * are stopped and answered `503 SERVER_STOPPING` (server/request-drain.ts), so a client never gets an empty reply;
   * keep it below the supervisor's own kill timeout (Kubernetes' `terminationGracePeriodSeconds`, 30 s by default,
   * systemd's `TimeoutStopSec`, 90 s). @default 10000
   */
  shutdownGraceMs: number;
  /** Credits a key may spend when it has no quota of its own; 0 = unlimited. @default 0 */
  defaultCreditQuota: number;
  /** Maximum concurrent scrapes reported to clients (concurrency-check) and enforced for sync scrapes. @default 8 */
  maxConcurrency: number;
  /**
   * Job WebSockets (the SDKs' `watcher`) one API key may hold open at once; beyond it a socket closes 1013 and the JS
   * SDK polls instead. Each open socket holds a file descriptor, so one key must not take them all. @default 50
   */
  maxWatchersPerKey: number;
  /** Crawl and batch pages processed at once across all jobs. @default 8 */
  jobConcurrency: number;
  /** Crawl and batch pages of one host processed at once. @default 4 */
  perHostConcurrency: number;
  /** First backoff before a crawl/batch page is retried (doubles per attempt, capped at 60 s). @default 2000 */
  retryBaseDelayMs: number;
  /** Cached pages older than this are deleted (hourly). @default 30 days */
  cacheRetentionMs: number;
  /**
   * Change-tracking history of a URL (per key and tag) whose last scrape is older than this is deleted (hourly): each
   * snapshot holds the page's markdown, so URLs no one scrapes any more must not hold disk for ever. @default 365 days
   */
  changeHistoryRetentionMs: number;
  /** Browser profiles not used (loaded or saved) for this long are deleted (hourly). @default 30 days */
  profileRetentionMs: number;
  /**
   * Most `POST /v2/scrape` results kept for `GET /v2/scrape/{id}` (each ~7 KB of JSON and up): beyond it the oldest go
   * first, before their 24 h, so a busy server's database cannot grow without bound.
   */
  maxStoredResults: number;
  /** Log verbosity. @default "info" */
  logLevel: "debug" | "info" | "warn" | "error";
  /** Send webhooks directly, without the egress gate, so private and loopback receivers work. @default false */
  allowPrivateWebhooks: boolean;
  /** How long a webhook delivery waits for the receiver's answer. @default 10000 */
  webhookTimeoutMs: number;
  /**
   * Upstream's `SELF_HOSTED_WEBHOOK_URL`: where crawl and batch jobs sent without a `webhook` announce their events,
   * `{{JOB_ID}}` replaced by the job's id; operators who moved from upstream's self-host keep their receiver.
   * @default "" (none)
   */
  fallbackWebhookUrl: string;
  /** OCR worker threads (tesseract.js), created on the first OCR job. @default the number of CPU cores */
  ocrWorkers: number;
  /**
   * Parse worker threads for HTML pages scraped concurrently or longer than 1 Mi characters (scrape/parse-workers); 0 =
   * parse on the main thread only. @default the number of CPU cores
   */
  parseWorkers: number;
  /**
   * Documents (PDF, office files, images' decoding) parsed at the same moment, each on a document worker; up to four
   * times as many may hold a worker while they wait for OCR. Small by default: a hostile 100 KB DOCX can take
   * about 1 GB while it is converted, and Bun enforces no memory limit on a worker.
   */
  documentWorkers: number;
  /**
   * Documents that may go on converting past their `POST /v2/scrape`'s timeout at once (scrape/document-continuations.ts;
   * one per API key). Each holds a document worker, so the default leaves one worker free. @default documentWorkers - 1
   */
  documentContinuations: number;
  /** Folder of extra tesseract `<lang>.traineddata[.gz]` files picked by `location.languages`; empty = English only. */
  tessdataDir: string;
  /** Resolution PDF pages are rendered at for OCR. @default 200 */
  ocrDpi: number;
  /** ffmpeg executable for the `audio` format (mp3); empty = look it up on PATH, original stream when absent. */
  ffmpegPath: string;
  /** Largest media file the `audio` format reads (also bounded by CRAWLBOX_MAX_PAGE_BYTES). @default 100 MiB */
  maxMediaBytes: number;
  /** Longest media the `audio` format extracts, when its duration is known. @default 14400 (4 h) */
  maxMediaSeconds: number;
  /** Use the browser engine when Chromium is found (`CRAWLBOX_BROWSER=off` disables it). @default true */
  browserEnabled: boolean;
  /**
   * Chromium's own OS sandbox for its renderers (`CRAWLBOX_CHROMIUM_SANDBOX`): `auto` uses it when crawlbox does not
   * run as root (Chromium cannot sandbox itself as root) and falls back, with a warning, where the system cannot give
   * it (no user namespaces); `on` requires it (Chromium then fails to start where it cannot); `off` never uses it.
   */
  chromiumSandbox: "auto" | "on" | "off";
  /** Browser pages open at once. @default sized for the machine: max(2, cores), at most one per 300 MB of RAM */
  browserConcurrency: number;
  /**
   * Memory one browser page's renderer may hold (MB; its private resident memory: JavaScript heap, DOM, ArrayBuffers,
   * WebAssembly). Over it the renderer is killed and the scrape or script fails saying so; Python code gets
   * MemoryError at three quarters of it. 0: no limit. @default half the machine's memory shared by
   * `browserConcurrency` pages, from 512 to 2048
   */
  browserPageMemoryMb: number;
  /** Pages after which the Chromium process is replaced by a fresh one. @default 500 */
  browserRetireAfterPages: number;
  /** Chromium is closed after this long without a page in use (0: kept running). @default 300000 */
  browserIdleCloseMs: number;
  /**
   * LLM provider: `auto` (OLLAMA_BASE_URL set → ollama, as upstream; else OPENAI_* set → openai; else MODEL_NAME
   * set → ollama at the default address), `ollama`, `openai` or `off`. @default "auto"
   */
  llmProvider: "auto" | "ollama" | "openai" | "off";
  /** Context window LLM requests are sized for (tokens); long pages are split to fit. @default 8192 */
  llmContextTokens: number;
  /** Longest one LLM-backed format may take per page (also bounded by the request's timeout). @default 120000 */
  llmTimeoutMs: number;
  /** Tokens one LLM-backed format may spend per page (chunks, repair turns). @default 100000 */
  llmTokenBudget: number;
  /** Upstream proxy (`http://user:pass@host:port`) for `proxy: basic` and `auto`'s first attempt; empty = direct. */
  proxyBasic: string;
  /** Upstream proxy for `proxy: enhanced`/`stealth` and `auto`'s retry; empty = the basic one (or direct). */
  proxyEnhanced: string;
  /** Upstream proxy per `location.country` (upper-case ISO alpha-2 → URL); chosen before the mode's. @default {} */
  proxyCountries: Record<string, string>;
  /**
   * Whether `HTTP_PROXY`, `HTTPS_PROXY` or `ALL_PROXY` (either case) is set. Bun's fetch sends every request
   * without an explicit `proxy` to that proxy, so the HTTP engine then keeps going through the egress gate's
   * listener instead of connecting to checked addresses itself: scrapes never take the environment's proxy
   * (configure `CRAWLBOX_PROXY_BASIC` for that). LLM requests still do.
   */
  environmentProxy: boolean;
}
