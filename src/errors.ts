/**
 * @module errors
 * Typed errors with a stable wire `code` and an HTTP `status`. Every failure a client can see is one of these
 * classes; `server/error-handler.ts` is the one place that turns them into the /v2 envelope
 * `{success:false, code, error, details?}` (api-v2.md §3.4). Codes are upstream's where upstream has one.
 *
 * Errors are serialisable (`toJSON` / `fromJSON`) so that they survive the job-store boundary.
 */

/** Base class: a client-visible error with a stable code. */
export class CrawlboxError extends Error {
  /** Stable machine-readable code, e.g. `SCRAPE_TIMEOUT`. */
  readonly code: string;
  /** HTTP status the error maps to. */
  readonly status: number;
  /** Extra structured information for the client (validation issues, limits). */
  readonly details?: unknown;
  /** Whether a job runner may retry the work that failed with this error. */
  readonly retryable: boolean;

  constructor(
    code: string,
    status: number,
    message: string,
    options: { details?: unknown; retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.details = options.details;
    this.retryable = options.retryable ?? false;
  }

  /** The /v2 error envelope for this error. */
  toBody(): { success: false; code: string; error: string; details?: unknown } {
    const body: { success: false; code: string; error: string; details?: unknown } = {
      success: false,
      code: this.code,
      error: this.message,
    };
    if (this.details !== undefined) body.details = this.details;
    return body;
  }

  /** Serialisable form, for storing a failure with a job or page. */
  toJSON(): SerializedError {
    return { code: this.code, status: this.status, message: this.message, details: this.details, retryable: this.retryable };
  }

  /** Rebuilds an error stored with `toJSON`. */
  static fromJSON(e: SerializedError): CrawlboxError {
    return new CrawlboxError(e.code, e.status, e.message, { details: e.details, retryable: e.retryable });
  }
}

/** The stored form of a {@link CrawlboxError}. */
export interface SerializedError {
  code: string;
  status: number;
  message: string;
  details?: unknown;
  retryable?: boolean;
}

/** 400: the request body or query failed validation. `details` lists the issues. */
export class BadRequestError extends CrawlboxError {
  constructor(message = "Bad Request", details?: unknown, code = "BAD_REQUEST") {
    super(code, 400, message, { details });
  }
}

/** 400: the body was not valid JSON. */
export class InvalidJsonError extends CrawlboxError {
  constructor() {
    super("BAD_REQUEST_INVALID_JSON", 400, "Bad request, malformed JSON");
  }
}

/** 401: missing or unknown API key. Message mirrors upstream exactly ("Unauthorized"). */
export class UnauthorizedError extends CrawlboxError {
  constructor(message = "Unauthorized") {
    super("UNAUTHORIZED", 401, message);
  }
}

/** 402: the key's credit quota is exhausted. */
export class InsufficientCreditsError extends CrawlboxError {
  constructor() {
    super(
      "INSUFFICIENT_CREDITS",
      402,
      "Insufficient credits to perform this request. The server's operator can raise this API key's quota (crawlbox keys quota <key_id> --quota <credits>).",
    );
  }
}

/**
 * 401: the API key a job runs under was revoked (`crawlbox keys revoke`), or removed from `CRAWLBOX_API_KEYS`, while
 * the job ran or waited: an operator revoking a leaked key expects its work to stop and charge nothing more. The
 * job (crawl, batch, extract, agent run) ends failed with this; not retryable.
 */
export class KeyRevokedError extends CrawlboxError {
  constructor() {
    super("KEY_REVOKED", 401, "The API key of this job was revoked.");
  }
}

/** 403: the egress gate refused the destination (private, loopback, reserved address, or bad scheme). */
export class EgressDeniedError extends CrawlboxError {
  constructor(message: string, details?: unknown) {
    super("EGRESS_DENIED", 403, message, { details });
  }
}

/**
 * 403: Firecrawl Exchange ("Alexandria", the cloud's catalogue of paid data providers: a search `source`, a scrape's
 * `alexandria` calls, `/v2/exchange`) is a cloud service crawlbox has no part of. Upstream's answer for a team
 * without it, word for word: the Firecrawl MCP server's search then asks again with web results only.
 */
export class ExchangeNotEnabledError extends CrawlboxError {
  constructor() {
    super("EXCHANGE_NOT_ENABLED", 403, "Exchange is not enabled for this team.");
  }
}

/** 404: unknown or expired job/scrape id. */
export class NotFoundError extends CrawlboxError {
  constructor(message = "Job not found", code = "NOT_FOUND") {
    super(code, 404, message);
  }
}

/** 409: a crawl or batch that already finished cannot be cancelled (upstream: "Crawl is already completed"). */
export class JobFinishedError extends CrawlboxError {
  constructor(status: "completed" | "failed") {
    super("JOB_ALREADY_FINISHED", 409, status === "completed" ? "Crawl is already completed" : "Crawl has already failed");
  }
}

/** 404: `minAge` asked for cached data only and there is none. */
export class NoCachedDataError extends CrawlboxError {
  constructor() {
    super("SCRAPE_NO_CACHED_DATA", 404, "No cached data is available for this URL within the requested minAge.");
  }
}

/** 408: the request's deadline passed. */
export class ScrapeTimeoutError extends CrawlboxError {
  constructor(timeoutMs: number) {
    super("SCRAPE_TIMEOUT", 408, `Scrape timed out after ${timeoutMs} ms.`, { details: { timeoutMs }, retryable: true });
  }
}

/** 413: body larger than the configured limit. */
export class PayloadTooLargeError extends CrawlboxError {
  constructor(limitBytes: number) {
    super("PAYLOAD_TOO_LARGE", 413, `Request body exceeds the limit of ${limitBytes} bytes.`, { details: { limitBytes } });
  }
}

/**
 * HTTP status of a failure on the far side (connection refused, TLS, an oversized body): 500, as upstream answers
 * these (api-v2.md §3.4, "Other TransportableErrors"). Not 502: the official SDKs retry a 502 up to three times
 * (api-v2.md §7.1), which repeated every scrape of a dead site three times over. The stable `code` tells these
 * apart from a bug (`UNKNOWN_ERROR`). An LLM provider that is down or rate limiting is 503 or 429 (llm/errors.ts).
 */
export const SITE_ERROR_STATUS = 500;

/** Failures from the site side: network failure, DNS, TLS, oversized body. Retryable unless stated. */
export class SiteError extends CrawlboxError {
  constructor(code: string, message: string, options: { status?: number; retryable?: boolean; cause?: unknown; details?: unknown } = {}) {
    super(code, options.status ?? SITE_ERROR_STATUS, message, { retryable: options.retryable ?? true, cause: options.cause, details: options.details });
  }
}

/** 400: the request asks for something this build cannot do yet (e.g. browser options before the browser engine). */
export class UnsupportedOptionError extends CrawlboxError {
  constructor(code: string, message: string, details?: unknown) {
    super(code, 400, message, { details });
  }
}

/** 422: the fetched content type cannot be turned into the requested formats. */
export class UnsupportedFileError extends CrawlboxError {
  constructor(contentType: string) {
    super("SCRAPE_UNSUPPORTED_FILE_ERROR", 422, `Unsupported file type: ${contentType}`, { details: { contentType } });
  }
}

/**
 * 503: crawlbox's own database could not take a write just now: locked by another process past the busy timeout
 * (a backup tool, `sqlite3` holding a transaction), the disk full, an I/O error. Transient by nature, so retryable:
 * a job's page is tried again rather than failed for good, and a client may retry.
 */
export class StorageUnavailableError extends CrawlboxError {
  constructor(sqliteCode: string, cause?: unknown) {
    const why = sqliteCode === "SQLITE_FULL" ? "its disk is full" : sqliteCode.startsWith("SQLITE_IOERR") ? "of a disk error" : "it is locked by another process";
    super("STORAGE_UNAVAILABLE", 503, `The server's database cannot be written just now because ${why}; try again shortly.`, { details: { sqliteCode }, retryable: true, cause });
  }
}

/**
 * 503: the server is stopping (SIGTERM, Ctrl-C) and this request was still running when its shutdown grace ended
 * (`CRAWLBOX_SHUTDOWN_GRACE_MS`), so its work was stopped; or a browser session asked to open meanwhile. Retryable:
 * the same request against the restarted server. Its code is the one interact/sessions.ts already answers.
 */
export class ServerStoppingError extends CrawlboxError {
  constructor(message = "The server is stopping, and this request was still running when its shutdown grace ended; retry it once the server is back.") {
    super("SERVER_STOPPING", 503, message, { retryable: true });
  }
}

/** SQLite result codes that say the database is unavailable for now, not that the statement is wrong. */
const TRANSIENT_SQLITE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR)/;

/** Wraps anything unknown so it never leaks a stack to the client. */
export function toCrawlboxError(err: unknown): CrawlboxError {
  if (err instanceof CrawlboxError) return err;
  const sqliteCode = (err as { code?: unknown } | null)?.code;
  if (typeof sqliteCode === "string" && TRANSIENT_SQLITE.test(sqliteCode)) return new StorageUnavailableError(sqliteCode, err);
  const id = crypto.randomUUID();
  const e = new CrawlboxError("UNKNOWN_ERROR", 500, `An unexpected error occurred. Your exception ID is ${id}`, {
    cause: err,
  });
  return e;
}

/** 429: the server is busy with as many requests of this kind as it takes at once; retry shortly. */
export class TooManyRequestsError extends CrawlboxError {
  /**
   * @param retryAfterSeconds when to try again, sent as `Retry-After` (and `details.retryAfterSeconds`): every 429
   *   says so (reliability.md B6); a guess where the limit frees up when other work ends.
   */
  constructor(code: string, message: string, retryAfterSeconds = DEFAULT_RETRY_AFTER_SECONDS) {
    super(code, 429, message, { retryable: true, details: { retryAfterSeconds } });
  }
}

/** `Retry-After` of a 429 whose limit frees up when other work (an upload, a job, a session) ends. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** 408: the client did not send its request body within the time allowed. */
export class RequestBodyTimeoutError extends CrawlboxError {
  constructor(timeoutMs: number) {
    super("REQUEST_BODY_TIMEOUT", 408, `The request body did not arrive within ${timeoutMs} ms.`, { details: { timeoutMs } });
  }
}
