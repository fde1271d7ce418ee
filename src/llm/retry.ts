/**
 * @module llm/retry
 * When one LLM call is tried again (reliability.md B5, applied to the model server): a provider's 429
 * (`LLM_RATE_LIMITED`, unless its quota is spent) or failing/unreachable server (`LLM_UNAVAILABLE`, e.g. Ollama's
 * "server busy" 503, a connection reset) is transient, and work that has already read its pages or answered parts
 * of a long page must not fail for good on one of them (docs/llm.md calls these errors retryable). The retry happens
 * around the one chat turn, in the LLM client, so nothing before it (pages scraped, earlier chunks answered) is done
 * again. Asynchronous extract and agent jobs retry both ({@link JOB_LLM_RETRY}); synchronous work the failing server
 * only ({@link SYNC_LLM_RETRY}).
 *
 * The wait is the provider's `Retry-After` when it sent one (0 means "no delay info", as Crawlee reads it), else
 * exponential backoff with full jitter. A wait longer than the policy's cap is not waited: the error is final
 * and carries `Retry-After` to the caller. A wait that would not leave the call's deadline room for the answer is
 * not waited either. `LLM_TIMEOUT` is never retried here: the operation's deadline is what ran out.
 */
import { CrawlboxError } from "../errors.ts";
import { LlmBrokenAnswerError } from "./errors.ts";

/** How often and how long one LLM call is retried. */
export interface LlmRetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  /** Backoff before the first retry (doubling after), before full jitter. */
  baseDelayMs: number;
  /** Longest wait (backoff or `Retry-After`); a longer `Retry-After` ends the retries. */
  maxDelayMs: number;
  /**
   * Which transient failures are retried: `"all"` (a 429 unless the quota is spent, a failing or unreachable server,
   * an answer that is no chat answer) or `"server"` (a failing or unreachable server only: its 5xx, a connection
   * reset or refusal; not a 429, nor a {@link LlmBrokenAnswerError}, which the same server most often repeats).
   * @default "all"
   */
  retryOn?: "all" | "server";
}

/**
 * An asynchronous extract or agent job: up to three retries (B5: "retry 2–3 times"), `Retry-After` honoured up to
 * 60 s (B5's cap), else backoff from 1 s doubling with full jitter (at most 7 s in all), always within the job's
 * LLM deadline.
 */
export const JOB_LLM_RETRY: LlmRetryPolicy = { retries: 3, baseDelayMs: 1_000, maxDelayMs: 60_000 };

/**
 * Synchronous work (a scrape's formats, and so the pages of a crawl or batch; the client's default when a call names
 * no policy): a failing or unreachable model server (`LLM_UNAVAILABLE`: its 5xx, a connection reset) is tried twice
 * more, as the AI SDK's `generateObject` that upstream uses does by default, after a short backoff (0–0.5 s, then
 * 0–1 s, full jitter) or its `Retry-After` up to 1 s (a longer one goes to the client at once), within the scrape's
 * deadline. Without it one 503 (Ollama's "server busy" while another request held the model) failed the scrape, and
 * threw away the parts of a long page already answered and charged. A 429 is not retried here: its `Retry-After`
 * is usually longer than a scrape waits, and the client (or a crawl's page retry, jobs/task-runner.ts) gets it at
 * once to wait it out, nor an answer that is no chat answer. A crawl or batch page that still fails is retried by its job as before: a dead model server
 * costs such a page at most 3 calls per attempt.
 */
export const SYNC_LLM_RETRY: LlmRetryPolicy = { retries: 2, baseDelayMs: 500, maxDelayMs: 1_000, retryOn: "server" };

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
  if (policy.retryOn === "server" && (err.code !== "LLM_UNAVAILABLE" || err instanceof LlmBrokenAnswerError)) return undefined;
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
