/**
 * @module llm/render-call
 * The {@link LlmCall} of one LLM-backed format on one page: deadline = the earlier of the scrape's own deadline
 * (its `timeout`) and `CRAWLBOX_LLM_TIMEOUT_MS` from now; the per-page token budget; tokens recorded for the key.
 */
import type { RenderContext } from "../scrape/renderer.ts";
import type { LlmCall } from "./client.ts";

/** Limits from the configuration. */
export interface LlmLimits {
  llmTimeoutMs: number;
  llmTokenBudget: number;
}

/** Builds the call limits for a format rendered in `ctx`. */
export function llmCallFor(ctx: RenderContext, limits: LlmLimits, now: () => number = Date.now): LlmCall {
  const run = ctx.run;
  const own = now() + limits.llmTimeoutMs;
  const call: LlmCall = {
    deadline: run ? Math.min(run.deadline, own) : own,
    tokenBudget: limits.llmTokenBudget,
  };
  if (run?.signal) call.signal = run.signal;
  if (run) call.onTokens = run.recordTokens;
  return call;
}
