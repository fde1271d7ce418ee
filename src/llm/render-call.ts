/**
 * @module llm/render-call
 * The {@link LlmCall} of one LLM-backed format on one page: deadline = the earlier of the scrape's own deadline
 * (its `timeout`) and `CRAWLBOX_LLM_TIMEOUT_MS` from now; the per-page token budget; tokens recorded for the key;
 * the retry policy: `JOB_PAGE_LLM_RETRY` in a crawl or batch page its job will try again (`retriedByJob`), else the
 * client's default (llm/retry.ts).
 */
import type { RenderContext } from "../scrape/renderer.ts";
import type { LlmCall } from "./call.ts";
import { JOB_PAGE_LLM_RETRY, retriedInCall } from "./retry.ts";

/** Limits from the configuration. */
export interface LlmLimits {
  llmTimeoutMs: number;
  llmTokenBudget: number;
}

/** What of a scrape's run an LLM call is bounded by and reports to. */
export interface LlmRun {
  deadline: number;
  signal?: AbortSignal;
  recordTokens?: (tokens: number) => void;
  /**
   * A crawl or batch page before its last attempt: the job tries it again on a retryable failure, so its calls run
   * under `JOB_PAGE_LLM_RETRY` (an unreachable server left to that retry; llm/server-down.ts). Carried explicitly from
   * jobs/task-runner.ts through the scrape's run options (scrape/run-options.ts), never by an ambient context: the
   * work a page merely joins (a shared browser's handlers) must not inherit it. @default false
   */
  retriedByJob?: boolean;
}

/** How a format's call is made, beyond its run. */
export interface LlmCallOptions {
  /**
   * The format keeps the call's failure as a warning instead of failing the page (changeTracking's `json` mode,
   * branding's personality): the call keeps its in-call retry in a job page too (llm/retry.ts {@link retriedInCall}),
   * as the job's page retry never comes for it. @default false
   */
  failureKept?: boolean;
  now?: () => number;
}

/** Builds the call limits for a format rendered in `ctx`. */
export function llmCallFor(ctx: RenderContext, limits: LlmLimits, options: LlmCallOptions = {}): LlmCall {
  const call = llmCallForRun(ctx.run, limits, options.now);
  return options.failureKept ? retriedInCall(call) : call;
}

/** The call limits of LLM work done for `run` (a format's, or the redaction of a page's markdown). */
export function llmCallForRun(run: LlmRun | undefined, limits: LlmLimits, now: () => number = Date.now): LlmCall {
  const start = now();
  const own = start + limits.llmTimeoutMs;
  const deadline = run ? Math.min(run.deadline, own) : own;
  const call: LlmCall = { deadline, limitMs: Math.max(0, Math.round(deadline - start)), tokenBudget: limits.llmTokenBudget, warnings: [] };
  if (run?.signal) call.signal = run.signal;
  if (run?.recordTokens) call.onTokens = run.recordTokens;
  if (run?.retriedByJob) call.retry = JOB_PAGE_LLM_RETRY;
  return call;
}

/**
 * The document's `warning` from what the operation reported in `call.warnings` (a long page cut to the token
 * budget, a required field the page does not give), or nothing: spread into a renderer's fields.
 */
export function callWarning(call: LlmCall): { warning?: string } {
  return call.warnings && call.warnings.length > 0 ? { warning: call.warnings.join(" ") } : {};
}
