/**
 * @module llm/errors
 * Errors of LLM-backed formats. Each names the provider and its address, so an operator reading the client's
 * error knows what to fix (a wrong OLLAMA_BASE_URL, a stopped server, a model too slow for the timeout).
 */
import { CrawlboxError, SITE_ERROR_STATUS } from "../errors.ts";
import { retryAfterDelayMs } from "../jobs/retry-policy.ts";

/** What the operator sets to enable LLM formats (used in the 400 below and in docs/llm.md). */
export const LLM_SETUP_HINT =
  "Set MODEL_NAME to use a local Ollama (OLLAMA_BASE_URL, default http://127.0.0.1:11434), or OPENAI_BASE_URL and/or OPENAI_API_KEY (with MODEL_NAME) for an OpenAI-compatible endpoint.";

/** 400: a request needs an LLM and none is configured. */
export class LlmNotConfiguredError extends CrawlboxError {
  constructor(what: string) {
    super("LLM_NOT_CONFIGURED", 400, `${what} needs an LLM provider, and none is configured. ${LLM_SETUP_HINT}`);
  }
}

/** Who answered (or did not). */
export interface LlmEndpoint {
  name: string;
  address: string;
  model?: string;
}

function where(p: LlmEndpoint): string {
  return `the ${p.name} provider at ${p.address}`;
}

/** Characters of a provider's own error text kept in ours (a server may answer an error page of megabytes). */
const MAX_REASON_CHARS = 300;

/** Whether an error code is an LLM's failure (not the scraped site's: a job does not count it against the host). */
export function isLlmErrorCode(code: string): boolean {
  return code.startsWith("LLM_");
}

/**
 * HTTP status of {@link LlmUnavailableError}: 503, the model server behind us cannot serve the request now (its own
 * 5xx, unreachable, a broken answer), as `SCRAPE_BROWSER_UNAVAILABLE` for the browser. Not 500, which reads as a
 * bug of ours; not 502, which the official SDKs retry three times (api-v2.md §7.1).
 */
export const LLM_UNAVAILABLE_STATUS = 503;

/** Longest `Retry-After` passed on (a day). */
const MAX_RETRY_AFTER_SECONDS = 86_400;

/** `Retry-After` (delay-seconds or an HTTP date, RFC 9110 §10.2.3) in whole seconds from `now`; undefined when unreadable. */
export function retryAfterSeconds(header: string | null | undefined, now = Date.now()): number | undefined {
  const ms = retryAfterDelayMs(header, now);
  // Capped at a day: a 400-digit value became Infinity, and a `Retry-After: Infinity` header.
  return ms === undefined ? undefined : Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, Math.ceil(ms / 1000)));
}

function cut(reason: string): string {
  return reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS)}… (${reason.length} characters)` : reason;
}

function endpointDetails(p: LlmEndpoint, retryAfter?: number): Record<string, unknown> {
  return { provider: p.name, address: p.address, model: p.model, ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}) };
}

/**
 * 503 ({@link LLM_UNAVAILABLE_STATUS}): the provider could not be reached or answered with an error. Retryable.
 * `retryAfterSeconds` (in `details`) is the provider's `Retry-After`, when it sent one.
 */
export class LlmUnavailableError extends CrawlboxError {
  constructor(p: LlmEndpoint, reason: string, cause?: unknown, retryAfter?: number, retryable = true) {
    super("LLM_UNAVAILABLE", LLM_UNAVAILABLE_STATUS, `The LLM request to ${where(p)} failed: ${cut(reason)}`, {
      details: endpointDetails(p, retryAfter),
      retryable,
      cause,
    });
  }
}

/**
 * 503 `LLM_UNAVAILABLE`, as {@link LlmUnavailableError}: the provider answered (HTTP 200), but not with a chat answer
 * (content that is not text, no choices, a body that is no JSON object). Its own class so that a synchronous call
 * does not ask again at once (llm/retry.ts `SYNC_LLM_RETRY`): the same server most often answers the same.
 */
export class LlmBrokenAnswerError extends LlmUnavailableError {
  constructor(p: LlmEndpoint, reason: string) {
    super(p, reason);
  }
}

/**
 * 503 `LLM_UNAVAILABLE`, as {@link LlmUnavailableError}: not sent, because a call to the same server found it
 * unreachable (connection refused, name not resolved) less than `memoMs` ago (llm/server-down.ts). Retryable: a
 * crawl or batch page is tried again by its job, after the memo has passed. Its own class so that a synchronous call
 * does not wait and knock again (llm/retry.ts), and so that it never arms the memo itself.
 */
export class LlmServerDownError extends LlmUnavailableError {
  constructor(p: LlmEndpoint, reason: string, ageMs: number, memoMs: number, cause?: unknown) {
    super(p, `not sent: the server could not be reached ${Math.round(ageMs)} ms ago (${reason}); calls to it are not sent for ${memoMs} ms after that`, cause);
  }
}

/**
 * 429: the provider refused the request with HTTP 429 (its rate limit or quota). Retryable, unless the provider
 * says the account's quota is spent (waiting will not help). `details.retryAfterSeconds` is the provider's
 * `Retry-After`, when it sent one; the response also carries it as its own `Retry-After` header (server/app.ts), and
 * crawl and batch retries wait that long (jobs/task-runner.ts).
 */
export class LlmRateLimitedError extends CrawlboxError {
  constructor(p: LlmEndpoint, reason: string, cause?: unknown, retryAfter?: number, retryable = true) {
    const after = retryAfter !== undefined ? ` (retry after ${retryAfter} s)` : "";
    super("LLM_RATE_LIMITED", 429, `The LLM at ${where(p)} is rate limiting requests${after}: ${cut(reason)}`, {
      details: endpointDetails(p, retryAfter),
      retryable,
      cause,
    });
  }
}

/**
 * OpenAI's 429 for an account out of credit carries the code `insufficient_quota` (the provider quotes it in the
 * reason). Not the message: Gemini words its per-minute limit "You exceeded your current quota" too.
 */
const QUOTA_SPENT = /\binsufficient_quota\b/;

/**
 * Statuses that say the request itself (or the configuration: the key, the model name) is wrong, so that sending it
 * again changes nothing: a 400 for a context too long, a 401 for a bad key, a 404 for an unknown model. They were
 * retried as transient, a job three times with backoff, before it failed with the same message.
 */
const PERMANENT_STATUSES: ReadonlySet<number> = new Set([400, 401, 403, 404, 405, 413, 422]);

/**
 * The error for a provider's failed HTTP answer: {@link LlmRateLimitedError} for 429, {@link LlmUnavailableError}
 * for anything else (not retryable for {@link PERMANENT_STATUSES}), either with the answer's `Retry-After`. The one
 * place providers classify a status.
 */
export function llmHttpError(p: LlmEndpoint, status: number, reason: string, retryAfter?: string | null, cause?: unknown): LlmRateLimitedError | LlmUnavailableError {
  const after = retryAfterSeconds(retryAfter);
  if (status === 429) return new LlmRateLimitedError(p, reason, cause, after, !QUOTA_SPENT.test(reason));
  return new LlmUnavailableError(p, reason, cause, after, !PERMANENT_STATUSES.has(status));
}

/** 504: the provider did not answer within the request's deadline. */
export class LlmTimeoutError extends CrawlboxError {
  constructor(p: LlmEndpoint, timeoutMs: number) {
    super("LLM_TIMEOUT", 504, `The LLM at ${where(p)} did not answer within the ${timeoutMs} ms the operation had.`, {
      details: { provider: p.name, address: p.address, model: p.model, timeoutMs },
      retryable: true,
    });
  }
}

/** 500 ({@link SITE_ERROR_STATUS}): the answer was not valid JSON for the schema, even after one repair turn. */
export class LlmInvalidAnswerError extends CrawlboxError {
  constructor(p: LlmEndpoint, problems: string[]) {
    const listed = problems.slice(0, 20).map((x) => (x.length > MAX_REASON_CHARS ? `${x.slice(0, MAX_REASON_CHARS)}…` : x));
    super("LLM_INVALID_ANSWER", SITE_ERROR_STATUS, `The LLM at ${where(p)} returned an answer that does not match the schema, also after a repair turn: ${listed.slice(0, 3).join("; ")}`, {
      details: { provider: p.name, address: p.address, model: p.model, problems: listed },
    });
  }
}

/**
 * 500 ({@link SITE_ERROR_STATUS}), code `LLM_INVALID_ANSWER`: the model answered nothing where text was asked for (a
 * summary, an answer). Most often a reasoning model that spent its answer tokens (`answerTokens`) thinking: Ollama
 * then answers an empty `content` beside its `thinking`, an OpenAI-compatible server `content: null` beside its
 * `reasoning_content`, both stopped at the limit (`truncated`). An empty summary passed as a success before.
 */
export class LlmEmptyAnswerError extends CrawlboxError {
  constructor(p: LlmEndpoint, truncated: boolean, answerTokens: number) {
    const why = truncated
      ? `: it stopped at the answer limit of ${answerTokens} tokens before answering, probably while reasoning. Use a model without thinking, or turn its thinking off on the model server`
      : "";
    super("LLM_INVALID_ANSWER", SITE_ERROR_STATUS, `The LLM at ${where(p)} gave an empty answer${why}.`, {
      details: { provider: p.name, address: p.address, model: p.model, problems: [truncated ? "empty answer, cut off at the token limit" : "empty answer"] },
    });
  }
}

/** 400: the request's token budget cannot cover even one call. */
export class LlmBudgetExceededError extends CrawlboxError {
  constructor(budget: number, used: number) {
    super("LLM_TOKEN_BUDGET_EXCEEDED", 400, `The LLM token budget of this request (${budget}) is spent (${used} used).`, {
      details: { budget, used },
    });
  }
}

/**
 * 400: the caller's prompt (with the schema and our instructions) leaves no room for page content in the model's
 * context window (`CRAWLBOX_LLM_CONTEXT_TOKENS`). Refused before any call: sent anyway, Ollama would silently drop
 * the start of the request — our system rules first — and OpenAI-compatible servers answer an error.
 */
export class LlmPromptTooLongError extends CrawlboxError {
  constructor(promptTokens: number, contextTokens: number) {
    super(
      "LLM_PROMPT_TOO_LONG",
      400,
      `The prompt and schema of this request (about ${promptTokens} tokens) leave no room for page content in the model's context window of ${contextTokens} tokens (CRAWLBOX_LLM_CONTEXT_TOKENS). Shorten the prompt or schema, or raise the context window.`,
      { details: { promptTokens, contextTokens } },
    );
  }
}
