/**
 * @module llm/render-call
 * The {@link LlmCall} of one LLM-backed format on one page: deadline = the earlier of the scrape's own deadline
 * (its `timeout`) and `CRAWLBOX_LLM_TIMEOUT_MS` from now; the per-page token budget; tokens recorded for the key.
 */
import type { RenderContext } from "../scrape/renderer.ts";
import type { LlmCall } from "./call.ts";

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
}

/** Builds the call limits for a format rendered in `ctx`. */
export function llmCallFor(ctx: RenderContext, limits: LlmLimits, now: () => number = Date.now): LlmCall {
  return llmCallForRun(ctx.run, limits, now);
}

/** The call limits of LLM work done for `run` (a format's, or the redaction of a page's markdown). */
export function llmCallForRun(run: LlmRun | undefined, limits: LlmLimits, now: () => number = Date.now): LlmCall {
  const start = now();
  const own = start + limits.llmTimeoutMs;
  const deadline = run ? Math.min(run.deadline, own) : own;
  const call: LlmCall = { deadline, limitMs: Math.max(0, Math.round(deadline - start)), tokenBudget: limits.llmTokenBudget, warnings: [] };
  if (run?.signal) call.signal = run.signal;
  if (run?.recordTokens) call.onTokens = run.recordTokens;
  return call;
}

/**
 * The document's `warning` from what the operation reported in `call.warnings` (a long page cut to the token
 * budget, a required field the page does not give), or nothing: spread into a renderer's fields.
 */
export function callWarning(call: LlmCall): { warning?: string } {
  return call.warnings && call.warnings.length > 0 ? { warning: call.warnings.join(" ") } : {};
}
