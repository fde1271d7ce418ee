/**
 * @module plugins/formats/summary
 * The `summary` format (api-v2.md §6.3): a short summary of the page's markdown by the configured LLM, in
 * `data.summary`. Long pages are summarised per chunk and the chunk summaries combined.
 */
import type { LlmClient } from "../../src/llm/client.ts";
import { callWarning, llmCallFor, type LlmLimits } from "../../src/llm/render-call.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

/** Extra credits of a page with `summary`: none, as upstream bills it (its LLM tokens are counted per key). */
export const SUMMARY_EXTRA_CREDITS = 0;

/** Creates the `summary` renderer. */
export function createSummaryFormat(llm: LlmClient | undefined, limits: LlmLimits): FormatRenderer {
  return {
    type: "summary",
    needs: ["llm"],
    views: ["markdown"],
    extraCredits: SUMMARY_EXTRA_CREDITS,
    async render(ctx) {
      const call = llmCallFor(ctx, limits);
      return { summary: await llm!.summarize(ctx.markdown(), call), ...callWarning(call) };
    },
  };
}
