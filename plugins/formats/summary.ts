/**
 * @module plugins/formats/summary
 * The `summary` format (api-v2.md §6.3): a short summary of the page's markdown by the configured LLM, in
 * `data.summary`. Long pages are summarised per chunk and the chunk summaries combined. A page whose markdown has no
 * text (llm/visible-text.ts) is not sent to the model: no `summary`, and upstream's warning saying why.
 */
import type { LlmClient } from "../../src/llm/client.ts";
import { callWarning, llmCallFor, type LlmLimits } from "../../src/llm/render-call.ts";
import { hasVisibleText } from "../../src/llm/visible-text.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

/** The warning instead of a summary of a page without text (upstream's, which omits `summary` too). */
export const EMPTY_PAGE_SUMMARY_WARNING = "Summary generation was skipped because the markdown content has no text.";

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
      const markdown = ctx.markdown();
      // Asked about nothing, a model invents a page: no call, as upstream (it has no extra credits to waive).
      if (!hasVisibleText(markdown)) return { warning: EMPTY_PAGE_SUMMARY_WARNING };
      const call = llmCallFor(ctx, limits);
      return { summary: await llm!.summarize(markdown, call), ...callWarning(call) };
    },
  };
}
