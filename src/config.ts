/**
 * @module config
 * The only reader of the environment. Each field declares its environment variable, its default and how the
 * string is parsed; `loadConfig` validates everything at once and throws {@link ConfigError} listing every bad
 * value, so a misconfigured server refuses to start instead of failing on the first request.
 *
 * Precedence: `overrides` (tests and embedders; no command-line flag sets configuration) > environment > defaults.
 * docs/configuration.md documents every field; keep the two in step.
 *
 * The fields themselves are declared in config-fields.ts and the value readers live in config-readers.ts; neither
 * reads the environment, and {@link Config} is re-exported here, so importers keep importing from this module.
 */
import { mkdtempSync } from "node:fs";
import { availableParallelism, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import type { Config } from "./config-fields.ts";
import { bool, corsOrigins, type Env, int, llmProvider, proxyCountries, proxyUrl, type Reader, str, url } from "./config-readers.ts";
import { standardWebhooksKey } from "./webhooks/signing.ts";

export type { Config } from "./config-fields.ts";

/** Thrown by {@link loadConfig} when one or more values are invalid. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
  }
}

/** Default Ollama address (Ollama's own default port, on this machine). */
export const OLLAMA_DEFAULT_BASE_URL = "http://127.0.0.1:11434";

/**
 * `OLLAMA_BASE_URL` without trailing slashes and a trailing `/api` or `/v1`, as the `ollama` package we use appends
 * `/api/chat` itself:
 * - upstream's self-host .env.example has `OLLAMA_BASE_URL=http://localhost:11434/api` (its AI SDK provider appends
 *   `/chat`): unnormalised, crawlbox called `/api/api/chat` (a 404);
 * - `http://host:11434/v1` is Ollama's OpenAI-compatible address, which its own docs and many guides give:
 *   unnormalised, crawlbox called `/v1/api/chat` (a 404, reported only as a 503 on the first LLM format).
 */
export function normaliseOllamaBaseUrl(url: string): string {
  return url.replace(/\/+$/, "").replace(/\/(api|v1)$/i, "").replace(/\/+$/, "");
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
    shutdownGraceMs: int(r, "CRAWLBOX_SHUTDOWN_GRACE_MS", 10_000, 0, 600_000),
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
    fallbackWebhookUrl: url(r, "SELF_HOSTED_WEBHOOK_URL", "", true),
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
