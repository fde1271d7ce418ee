/**
 * @module plugins/formats/highlights
 * The [LATEST] `highlights` format (`{type:"highlights", query}`, api-v2.md §2.2): the passages of the page
 * relevant to the query, quoted by the configured LLM, one per line, in `data.highlights` (a string, as in the
 * SDK's Document type). Long pages are read per chunk; an empty string means nothing on the page is relevant.
 */
import type { LlmClient } from "../../src/llm/client.ts";
import { llmCallFor, type LlmLimits } from "../../src/llm/render-call.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

/** Extra credits of a page with `highlights` (as `summary`). */
export const HIGHLIGHTS_EXTRA_CREDITS = 4;

/** Creates the `highlights` renderer. */
export function createHighlightsFormat(llm: LlmClient | undefined, limits: LlmLimits): FormatRenderer {
  return {
    type: "highlights",
    needs: ["llm"],
    extraCredits: HIGHLIGHTS_EXTRA_CREDITS,
    async render(ctx, format) {
      return { highlights: await llm!.highlights(ctx.markdown(), String(format["query"]), llmCallFor(ctx, limits)) };
    },
  };
}
