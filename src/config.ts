/**
 * @module config
 * The only reader of the environment. Each field declares its environment variable, its default and how the
 * string is parsed; `loadConfig` validates everything at once and throws {@link ConfigError} listing every bad
 * value, so a misconfigured server refuses to start instead of failing on the first request.
 *
 * Precedence: command-line flags (passed as `overrides`) > environment > defaults.
 * docs/configuration.md documents every field; keep the two in step.
 */
import { mkdtempSync } from "node:fs";
import { availableParallelism, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { parseUpstreamProxy } from "./egress/chain.ts";
import { standardWebhooksKey } from "./webhooks/signing.ts";

/** Thrown by {@link loadConfig} when one or more values are invalid. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
  }
}

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
   * Ollama server for LLM formats, without a trailing `/api` (upstream's .env.example writes
   * `http://localhost:11434/api`; the Ollama client adds `/api/chat` itself). @default "http://127.0.0.1:11434"
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

type Env = Record<string, string | undefined>;

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off"]);

interface Reader {
  env: Env;
  problems: string[];
}

function str(r: Reader, name: string, def: string): string {
  const v = r.env[name];
  return v === undefined || v === "" ? def : v.trim();
}

function bool(r: Reader, name: string, def: boolean): boolean {
  const v = r.env[name];
  if (v === undefined || v === "") return def;
  const s = v.trim().toLowerCase();
  if (TRUE.has(s)) return true;
  if (FALSE.has(s)) return false;
  r.problems.push(`${name} must be true or false, got "${v}"`);
  return def;
}

function int(r: Reader, name: string, def: number, min: number, max: number): number {
  const v = r.env[name];
  if (v === undefined || v === "") return def;
  // Decimal digits only: Number() would also take "0x10", "1e4" and "0b11", which nobody means in a setting.
  const n = /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    r.problems.push(`${name} must be an integer from ${min} to ${max}, got "${v}"`);
    return def;
  }
  return n;
}

function url(r: Reader, name: string, def: string): string {
  const v = str(r, name, def);
  if (v === "") return v;
  try {
    const u = new URL(v);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("scheme");
    return v.replace(/\/+$/, "");
  } catch {
    r.problems.push(`${name} must be an absolute http(s) URL, got "${v}"`);
    return def;
  }
}

/** An upstream proxy URL (validated by the gate's own parser; messages never show the password). */
function proxyUrl(r: Reader, name: string): string {
  const v = str(r, name, "");
  if (v === "") return v;
  try {
    parseUpstreamProxy(v);
    return v;
  } catch (err) {
    r.problems.push(`${name}: ${(err as Error).message}`);
    return "";
  }
}

/** `CRAWLBOX_PROXY_COUNTRIES="de=http://…,jp=http://…"`: country → upstream proxy URL. */
function proxyCountries(r: Reader): Record<string, string> {
  const name = "CRAWLBOX_PROXY_COUNTRIES";
  const out: Record<string, string> = {};
  for (const [i, entry] of str(r, name, "").split(",").entries()) {
    const e = entry.trim();
    if (e === "") continue;
    const eq = e.indexOf("=");
    const country = (eq < 0 ? e : e.slice(0, eq)).trim().toUpperCase();
    const url = eq < 0 ? "" : e.slice(eq + 1).trim();
    if (!/^[A-Z]{2}$/.test(country) || url === "") {
      // Entry number, not the text: a malformed entry may still hold a password.
      r.problems.push(`${name} entry ${i + 1} must be <two-letter country>=<http proxy URL>`);
      continue;
    }
    if (out[country] !== undefined) r.problems.push(`${name} names ${country} twice`);
    try {
      parseUpstreamProxy(url);
      out[country] = url;
    } catch (err) {
      r.problems.push(`${name} (${country}): ${(err as Error).message}`);
    }
  }
  return out;
}

/** `CRAWLBOX_CORS_ORIGINS`: `*`, or comma-separated origins (`scheme://host[:port]`); unset: `*` when auth is on. */
function corsOrigins(r: Reader, authEnabled: boolean): string[] {
  const name = "CRAWLBOX_CORS_ORIGINS";
  const raw = r.env[name];
  if (raw === undefined || raw.trim() === "") return authEnabled ? ["*"] : [];
  const out: string[] = [];
  for (const entry of raw.split(",").map((e) => e.trim()).filter(Boolean)) {
    if (entry === "*") {
      out.push("*");
      continue;
    }
    let origin: string | undefined;
    try {
      const u = new URL(entry);
      if ((u.protocol === "http:" || u.protocol === "https:") && u.origin === entry.replace(/\/$/, "")) origin = u.origin;
    } catch {
      // reported below
    }
    if (origin) out.push(origin);
    else r.problems.push(`${name} entries must be * or an origin such as https://app.example.com (scheme, host and port only), got "${entry}"`);
  }
  return out;
}

/** Default Ollama address (Ollama's own default port, on this machine). */
export const OLLAMA_DEFAULT_BASE_URL = "http://127.0.0.1:11434";

/**
 * `OLLAMA_BASE_URL` without trailing slashes and a trailing `/api`: upstream's self-host .env.example has
 * `OLLAMA_BASE_URL=http://localhost:11434/api` (its AI SDK provider appends `/chat`), while the `ollama` package we
 * use appends `/api/chat` itself, so the unnormalised value would call `/api/api/chat` (a 404).
 */
export function normaliseOllamaBaseUrl(url: string): string {
  return url.replace(/\/+$/, "").replace(/\/api$/i, "").replace(/\/+$/, "");
}

function llmProvider(r: Reader): Config["llmProvider"] {
  const v = str(r, "CRAWLBOX_LLM_PROVIDER", "auto").toLowerCase();
  if (v === "auto" || v === "ollama" || v === "openai" || v === "off") return v;
  r.problems.push(`CRAWLBOX_LLM_PROVIDER must be auto, ollama, openai or off, got "${v}"`);
  return "auto";
}

/**
 * Whether `host` (a listen address, or a request's host name) names this machine's loopback interface: `localhost`,
 * `127.x.x.x` or `::1`, with or without IPv6 brackets.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** Reads and validates the configuration. Throws {@link ConfigError} when anything is invalid. */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const r: Reader = { env, problems: [] };
  const auth = str(r, "CRAWLBOX_AUTH", "on").toLowerCase();
  if (auth !== "on" && auth !== "off") r.problems.push(`CRAWLBOX_AUTH must be "on" or "off", got "${auth}"`);
  const chromiumSandbox = str(r, "CRAWLBOX_CHROMIUM_SANDBOX", "auto").toLowerCase() as Config["chromiumSandbox"];
  if (!["auto", "on", "off"].includes(chromiumSandbox)) r.problems.push(`CRAWLBOX_CHROMIUM_SANDBOX must be auto, on or off, got "${chromiumSandbox}"`);
  const browserConcurrency = int(r, "CRAWLBOX_BROWSER_CONCURRENCY", defaultBrowserConcurrency(), 1, 256);
  const browserPageMemoryMb = int(r, "CRAWLBOX_BROWSER_PAGE_MEMORY_MB", defaultPageMemoryMb(browserConcurrency), 0, 1_048_576);
  if (browserPageMemoryMb > 0 && browserPageMemoryMb < MIN_PAGE_MEMORY_MB) {
    r.problems.push(`CRAWLBOX_BROWSER_PAGE_MEMORY_MB must be 0 (no limit) or at least ${MIN_PAGE_MEMORY_MB}, got "${browserPageMemoryMb}"`);
  }
  const documentWorkers = int(r, "CRAWLBOX_DOCUMENT_WORKERS", Math.min(2, availableParallelism()), 1, 64);
  const logLevel = str(r, "CRAWLBOX_LOG_LEVEL", "info") as Config["logLevel"];
  if (!["debug", "info", "warn", "error"].includes(logLevel)) {
    r.problems.push(`CRAWLBOX_LOG_LEVEL must be debug, info, warn or error, got "${logLevel}"`);
  }
  const config: Config = {
    port: int(r, "PORT", 3002, 0, 65535),
    host: str(r, "HOST", "0.0.0.0"),
    dataDir: resolve(str(r, "CRAWLBOX_DATA_DIR", "data")),
    apiKeys: str(r, "CRAWLBOX_API_KEYS", "")
      .split(",")
      .map((k) => k.trim())
      .filter((k) => k.length > 0),
    authEnabled: auth !== "off",
    corsOrigins: corsOrigins(r, auth !== "off"),
    allowPrivateNetwork: bool(r, "CRAWLBOX_ALLOW_PRIVATE_NETWORK", false),
    webhookSecret: str(r, "CRAWLBOX_WEBHOOK_SECRET", ""),
    publicUrl: url(r, "CRAWLBOX_PUBLIC_URL", ""),
    chromePath: str(r, "CHROME_PATH", ""),
    ollamaBaseUrl: normaliseOllamaBaseUrl(url(r, "OLLAMA_BASE_URL", OLLAMA_DEFAULT_BASE_URL)),
    ollamaBaseUrlSet: str(r, "OLLAMA_BASE_URL", "") !== "" || overrides.ollamaBaseUrl !== undefined,
    openaiBaseUrl: url(r, "OPENAI_BASE_URL", ""),
    searxngEndpoint: url(r, "SEARXNG_ENDPOINT", ""),
    smtpUrl: str(r, "CRAWLBOX_SMTP_URL", ""),
    smtpFrom: str(r, "CRAWLBOX_SMTP_FROM", "crawlbox@localhost"),
    searxngEngines: str(r, "SEARXNG_ENGINES", ""),
    searxngCategories: str(r, "SEARXNG_CATEGORIES", ""),
    openaiApiKey: str(r, "OPENAI_API_KEY", ""),
    modelName: str(r, "MODEL_NAME", ""),
    maxRequestBodyBytes: int(r, "CRAWLBOX_MAX_REQUEST_BODY_BYTES", 10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxUploadBytes: int(r, "CRAWLBOX_MAX_UPLOAD_BYTES", 50 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxPageBytes: int(r, "CRAWLBOX_MAX_PAGE_BYTES", 25 * 1024 * 1024, 1024, 2 * 1024 * 1024 * 1024),
    defaultTimeoutMs: int(r, "CRAWLBOX_DEFAULT_TIMEOUT_MS", 30_000, 1000, 300_000),
    defaultCreditQuota: int(r, "CRAWLBOX_DEFAULT_CREDIT_QUOTA", 0, 0, Number.MAX_SAFE_INTEGER),
    maxConcurrency: int(r, "CRAWLBOX_MAX_CONCURRENCY", 8, 1, 1024),
    maxWatchersPerKey: int(r, "CRAWLBOX_MAX_WATCHERS_PER_KEY", 50, 1, 100_000),
    jobConcurrency: int(r, "CRAWLBOX_JOB_CONCURRENCY", 8, 1, 256),
    perHostConcurrency: int(r, "CRAWLBOX_PER_HOST_CONCURRENCY", 4, 1, 256),
    retryBaseDelayMs: int(r, "CRAWLBOX_RETRY_BASE_DELAY_MS", 2000, 10, 60_000),
    cacheRetentionMs: int(r, "CRAWLBOX_CACHE_RETENTION_DAYS", 30, 1, 36500) * 24 * 60 * 60 * 1000,
    changeHistoryRetentionMs: int(r, "CRAWLBOX_CHANGE_HISTORY_DAYS", 365, 1, 36500) * 24 * 60 * 60 * 1000,
    profileRetentionMs: int(r, "CRAWLBOX_PROFILE_RETENTION_DAYS", 30, 1, 36500) * 24 * 60 * 60 * 1000,
    maxStoredResults: int(r, "CRAWLBOX_MAX_STORED_RESULTS", 100_000, 100, 1_000_000_000),
    logLevel,
    allowPrivateWebhooks: bool(r, "CRAWLBOX_ALLOW_PRIVATE_WEBHOOKS", false),
    webhookTimeoutMs: int(r, "CRAWLBOX_WEBHOOK_TIMEOUT_MS", 10_000, 100, 60_000),
    ocrWorkers: int(r, "CRAWLBOX_OCR_WORKERS", availableParallelism(), 1, 256),
    parseWorkers: int(r, "CRAWLBOX_PARSE_WORKERS", availableParallelism(), 0, 256),
    documentWorkers,
    documentContinuations: int(r, "CRAWLBOX_DOCUMENT_CONTINUATIONS", Math.max(0, documentWorkers - 1), 0, 64),
    tessdataDir: str(r, "CRAWLBOX_TESSDATA_DIR", ""),
    ocrDpi: int(r, "CRAWLBOX_OCR_DPI", 200, 72, 600),
    ffmpegPath: str(r, "CRAWLBOX_FFMPEG_PATH", ""),
    maxMediaBytes: int(r, "CRAWLBOX_MAX_MEDIA_BYTES", 100 * 1024 * 1024, 1024, 16 * 1024 * 1024 * 1024),
    maxMediaSeconds: int(r, "CRAWLBOX_MAX_MEDIA_SECONDS", 14_400, 1, 7 * 24 * 3600),
    browserEnabled: bool(r, "CRAWLBOX_BROWSER", true),
    chromiumSandbox,
    browserConcurrency,
    browserPageMemoryMb,
    browserRetireAfterPages: int(r, "CRAWLBOX_BROWSER_RETIRE_AFTER_PAGES", 500, 1, 1_000_000),
    browserIdleCloseMs: int(r, "CRAWLBOX_BROWSER_IDLE_CLOSE_MS", 300_000, 0, 86_400_000),
    llmProvider: llmProvider(r),
    llmContextTokens: int(r, "CRAWLBOX_LLM_CONTEXT_TOKENS", 8192, 1024, 2_000_000),
    llmTimeoutMs: int(r, "CRAWLBOX_LLM_TIMEOUT_MS", 120_000, 1000, 3_600_000),
    llmTokenBudget: int(r, "CRAWLBOX_LLM_TOKEN_BUDGET", 100_000, 1000, 100_000_000),
    proxyBasic: proxyUrl(r, "CRAWLBOX_PROXY_BASIC"),
    proxyEnhanced: proxyUrl(r, "CRAWLBOX_PROXY_ENHANCED"),
    proxyCountries: proxyCountries(r),
    environmentProxy: ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"].some((n) => str(r, n, "") !== "" || str(r, n.toLowerCase(), "") !== ""),
    ...overrides,
  };
  if (config.searxngEndpoint && /^[a-z]+:\/\/[^/]*@/i.test(config.searxngEndpoint)) {
    r.problems.push("SEARXNG_ENDPOINT must not contain credentials (put SearXNG behind a network you control instead)");
  }
  if (config.smtpUrl !== "") {
    let ok = false;
    try {
      const u = new URL(config.smtpUrl);
      ok =
        (u.protocol === "smtp:" || u.protocol === "smtps:") &&
        u.hostname !== "" &&
        ["auto", "required", "off", null].includes(u.searchParams.get("starttls")) &&
        // Only "false" turns the certificate check off (mail/smtp.ts): any other value would leave it on unnoticed.
        ["true", "false", null].includes(u.searchParams.get("tls_verify"));
      // The user and password are percent-decoded when sent: a bad escape would fail every message.
      decodeURIComponent(u.username);
      decodeURIComponent(u.password);
    } catch {
      ok = false;
    }
    if (!ok) r.problems.push("CRAWLBOX_SMTP_URL must be smtp://[user:pass@]host[:port][?starttls=auto|required|off][&tls_verify=true|false] or smtps://[user:pass@]host[:port][?tls_verify=true|false]");
  }
  if (!/^[^\s@<>]+@[^\s@<>]+$/.test(config.smtpFrom)) r.problems.push("CRAWLBOX_SMTP_FROM must be an e-mail address");
  if (config.apiKeys.some((k) => k.length < 8)) r.problems.push("CRAWLBOX_API_KEYS entries must be at least 8 characters");
  try {
    if (config.webhookSecret !== "") standardWebhooksKey(config.webhookSecret);
  } catch (err) {
    r.problems.push(`CRAWLBOX_WEBHOOK_SECRET: ${(err as Error).message}`);
  }
  if (config.llmProvider === "ollama" && config.modelName === "") r.problems.push("CRAWLBOX_LLM_PROVIDER=ollama needs MODEL_NAME (the Ollama model to use)");
  if (config.llmProvider === "auto" && config.ollamaBaseUrlSet && config.modelName === "" && (config.openaiBaseUrl !== "" || config.openaiApiKey !== "")) {
    // Refused rather than falling back to the OpenAI endpoint: OLLAMA_BASE_URL means "keep pages on this model server".
    r.problems.push("OLLAMA_BASE_URL is set, so LLM requests go to Ollama (as upstream), which needs MODEL_NAME; set MODEL_NAME, or unset OLLAMA_BASE_URL (or set CRAWLBOX_LLM_PROVIDER=openai) to use the OpenAI-compatible endpoint");
  }
  if (!config.authEnabled && !isLoopbackHost(config.host)) {
    // reliability.md B6: an unauthenticated server only where nothing but this machine can reach it.
    r.problems.push(
      `CRAWLBOX_AUTH=off needs HOST to be a loopback address (127.0.0.1, ::1 or localhost), not "${config.host}": ` +
        "anyone who can reach the server could use it (and spend its credits). Keep auth on, or put a proxy with its own authentication in front and bind crawlbox to loopback.",
    );
  }
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return config;
}

/** The smallest page memory limit: a blank page's renderer holds ~30 MB, a Python sandbox's ~150 MB. */
export const MIN_PAGE_MEMORY_MB = 256;

/**
 * A page's memory limit for this machine: half its memory shared by the pages that may be open at once, between
 * 512 MB (heavy sites need that much) and 2048 MB (what no page worth scraping needs).
 */
export function defaultPageMemoryMb(concurrency: number, memoryBytes = totalmem()): number {
  return Math.min(2048, Math.max(512, Math.floor(memoryBytes / 2 / concurrency / 2 ** 20)));
}

/** Browser pages at once for this machine: one per core (at least 2), at most one per 300 MB of memory. */
export function defaultBrowserConcurrency(cores = availableParallelism(), memoryBytes = totalmem()): number {
  return Math.max(1, Math.min(Math.max(2, cores), Math.floor(memoryBytes / (300 * 1024 * 1024)), 16));
}

/** A config for tests and embedding: defaults, a fresh temporary data dir, private network allowed. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return loadConfig({}, {
    // Only when the caller brings none: a folder made and then overridden was never removed by anyone.
    dataDir: overrides.dataDir ?? mkdtempSync(join(tmpdir(), "crawlbox-test-")),
    allowPrivateNetwork: true,
    port: 0,
    host: "127.0.0.1",
    ...overrides,
  });
}
