/**
 * @module llm/retry
 * When one LLM call is tried again (reliability.md B5, applied to the model server): a provider's 429
 * (`LLM_RATE_LIMITED`, unless its quota is spent) or failing/unreachable server (`LLM_UNAVAILABLE`, e.g. Ollama's
 * "server busy" 503) is transient, and an asynchronous extract or agent job that has already read its pages must not
 * fail for good on one of them (docs/llm.md calls these errors retryable). The retry happens around the one chat
 * turn, in the LLM client, so nothing before it (pages scraped, earlier chunks answered) is done again.
 *
 * The wait is the provider's `Retry-After` when it sent one (0 means "no delay info", as Crawlee reads it), else
 * exponential backoff with full jitter. A wait longer than the policy's cap is not waited: the error is final
 * and carries `Retry-After` to the caller. A wait that would not leave the call's deadline room for the answer is
 * not waited either. `LLM_TIMEOUT` is never retried here: the operation's deadline is what ran out.
 */
import { CrawlboxError } from "../errors.ts";

/** How often and how long one LLM call is retried. */
export interface LlmRetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  /** Backoff before the first retry (doubling after), before full jitter. */
  baseDelayMs: number;
  /** Longest wait (backoff or `Retry-After`); a longer `Retry-After` ends the retries. */
  maxDelayMs: number;
}

/**
 * An asynchronous extract or agent job: up to three retries (B5: "retry 2–3 times"), `Retry-After` honoured up to
 * 60 s (B5's cap), else backoff from 1 s doubling with full jitter (at most 7 s in all), always within the job's
 * LLM deadline.
 *
 * Synchronous work (a scrape's formats, and so the pages of a crawl or batch) has no policy, so no retry here: the
 * renderer cannot tell a standalone scrape from a crawl or batch page, whose failures jobs/task-runner.ts already
 * retries after the provider's `Retry-After`; a retry here too would multiply the model calls of a failing page
 * (2 × 3). A standalone scrape's client gets the retryable 429/503 with `Retry-After` at once.
 */
export const JOB_LLM_RETRY: LlmRetryPolicy = { retries: 3, baseDelayMs: 1_000, maxDelayMs: 60_000 };

/** The least time a retried call must still have before its deadline once the wait is over. */
export const MIN_CALL_TIME_MS = 1_000;

/** The transient LLM failures a retry may cure. */
const RETRYABLE_CODES = new Set(["LLM_RATE_LIMITED", "LLM_UNAVAILABLE"]);

/** Whether `err` is a transient provider failure (a spent quota is marked not retryable by llmHttpError). */
export function isRetryableLlmError(err: unknown): err is CrawlboxError {
  return err instanceof CrawlboxError && err.retryable && RETRYABLE_CODES.has(err.code);
}

/** The provider's `Retry-After` of `err` in ms, when it sent a positive one. */
function retryAfterMs(err: CrawlboxError): number | undefined {
  const s = (err.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return typeof s === "number" && s > 0 ? s * 1000 : undefined;
}

/**
 * The wait before retry number `retry` (from 1) after `err`, or undefined when the call should not be retried:
 * retries used up, a `Retry-After` over the cap, or a wait that leaves less than {@link MIN_CALL_TIME_MS} before
 * `deadline`; never without a policy.
 */
export function retryDelayMs(err: unknown, retry: number, policy: LlmRetryPolicy | undefined, o: { now: number; deadline: number; random: () => number }): number | undefined {
  if (!policy || !isRetryableLlmError(err) || retry > policy.retries) return undefined;
  const asked = retryAfterMs(err);
  if (asked !== undefined && asked > policy.maxDelayMs) return undefined;
  const delay = asked ?? Math.round(o.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1)));
  return o.now + delay + MIN_CALL_TIME_MS <= o.deadline ? delay : undefined;
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleepMs(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
