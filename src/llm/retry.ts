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
 * A crawl or batch page its job will try again retries only a server that answered ({@link JOB_PAGE_LLM_RETRY}): one
 * that cannot be reached is left to the job's page retry, seconds later; and such a page's call to a server found
 * unreachable in the last second is not sent at all (llm/server-down.ts) and not retried here. A call whose failure
 * would not fail the page gets its in-call retry back ({@link retriedInCall}).
 *
 * The wait is the provider's `Retry-After` when it sent one (0 means "no delay info", as Crawlee reads it), else
 * exponential backoff with full jitter. A wait longer than the policy's cap is not waited: the error is final
 * and carries `Retry-After` to the caller. A wait that would not leave the call's deadline room for the answer is
 * not waited either. `LLM_TIMEOUT` is never retried here: the operation's deadline is what ran out.
 */
import { CrawlboxError } from "../errors.ts";
import { LlmBrokenAnswerError, LlmServerDownError } from "./errors.ts";
import { isUnreachable } from "./server-down.ts";

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
   * an answer that is no chat answer, a call the server-down memo turned away), `"server"` (a failing or unreachable
   * server only: its 5xx, a connection reset or refusal; not a 429, nor a {@link LlmBrokenAnswerError}, which the
   * same server most often repeats, nor an {@link LlmServerDownError}) or `"reached-server"` (as `"server"`, but only
   * a server that was reached: not a connection refused or a name not resolved, llm/server-down.ts).
   * @default "all"
   */
  retryOn?: "all" | "server" | "reached-server";
}

/**
 * An asynchronous extract or agent job: up to three retries (B5: "retry 2–3 times"), `Retry-After` honoured up to
 * 60 s (B5's cap), else backoff from 1 s doubling with full jitter (at most 7 s in all), always within the job's
 * LLM deadline.
 */
export const JOB_LLM_RETRY: LlmRetryPolicy = { retries: 3, baseDelayMs: 1_000, maxDelayMs: 60_000 };

/**
 * Synchronous work (a scrape's formats, a crawl or batch page's last attempt, and a long page's later parts; the
 * client's default when a call names no policy): a failing or unreachable model server (`LLM_UNAVAILABLE`: its 5xx, a connection reset) is tried twice
 * more, as the AI SDK's `generateObject` that upstream uses does by default, after a short backoff (0–0.5 s, then
 * 0–1 s, full jitter) or its `Retry-After` up to 1 s (a longer one goes to the client at once), within the scrape's
 * deadline. Without it one 503 (Ollama's "server busy" while another request held the model) failed the scrape, and
 * threw away the parts of a long page already answered and charged. A 429 is not retried here: its `Retry-After`
 * is usually longer than a scrape waits, and the client (or a crawl's page retry, jobs/task-runner.ts) gets it at
 * once to wait it out, nor an answer that is no chat answer, nor a call the server-down memo turned away (the server
 * refused another call's connection less than a second ago: llm/server-down.ts). A crawl or batch page runs under
 * {@link JOB_PAGE_LLM_RETRY} until its last attempt, then under this one.
 */
export const SYNC_LLM_RETRY: LlmRetryPolicy = { retries: 2, baseDelayMs: 500, maxDelayMs: 1_000, retryOn: "server" };

/**
 * A crawl or batch page its job will try again (set by llm/render-call.ts from the scrape's `retriedByJob`): as
 * {@link SYNC_LLM_RETRY} for a server that answered (one 503 "server busy" must not cost the page a whole new
 * attempt, its fetch and every part already answered), but a server that could not be reached (connection refused, DNS failure) fails the
 * page's attempt at once: the job tries the page again after its backoff (2 s, then 4 s), which is the better
 * retry for a server that is down. Both in-call and in the job, a dead server cost each page 9 calls, and a 100-page
 * batch 64 s, its pages holding their host's slots through the in-call backoffs.
 */
export const JOB_PAGE_LLM_RETRY: LlmRetryPolicy = { ...SYNC_LLM_RETRY, retryOn: "reached-server" };

/**
 * `call` retried in the call as synchronous work ({@link SYNC_LLM_RETRY}, a refused connection too, the server-down
 * memo not consulted) when it would otherwise run under {@link JOB_PAGE_LLM_RETRY} or the default. For calls whose
 * failure does not fail the page but is kept as a warning (a long page's later part or merge, changeTracking's
 * `json` mode, `deterministicJson`, branding's personality): the job's page retry, to which
 * {@link JOB_PAGE_LLM_RETRY} leaves an unreachable server, never comes for them, and one refusal would lose the
 * answer while the page is still charged. A call with another explicit policy (an extract or agent job's) is kept.
 */
export function retriedInCall<C extends { retry?: LlmRetryPolicy }>(call: C): C {
  return call.retry === undefined || call.retry === JOB_PAGE_LLM_RETRY ? { ...call, retry: SYNC_LLM_RETRY } : call;
}

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
  if (policy.retryOn !== undefined && policy.retryOn !== "all") {
    if (err.code !== "LLM_UNAVAILABLE" || err instanceof LlmBrokenAnswerError || err instanceof LlmServerDownError) return undefined;
    if (policy.retryOn === "reached-server" && isUnreachable(err)) return undefined;
  }
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
