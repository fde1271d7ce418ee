/**
 * @module plugins/formats/highlights
 * The [LATEST] `highlights` format (`{type:"highlights", query}`, api-v2.md §2.2): the passages of the page
 * relevant to the query, quoted by the configured LLM, one per line, in `data.highlights` (a string, as in the
 * SDK's Document type). Long pages are read per chunk; an empty string means nothing on the page is relevant.
 */
import type { LlmClient } from "../../src/llm/client.ts";
import { callWarning, llmCallFor, type LlmLimits } from "../../src/llm/render-call.ts";
import type { ScrapeDocument } from "../../src/scrape/document.ts";
import type { FormatRenderer, RenderContext } from "../../src/scrape/renderer.ts";

/** Extra credits of a page with `highlights` (as `summary`). */
export const HIGHLIGHTS_EXTRA_CREDITS = 4;

/** `data.highlights` for `query` asked of the page. */
export async function highlightFields(llm: LlmClient, ctx: RenderContext, query: string, limits: LlmLimits): Promise<Partial<ScrapeDocument>> {
  const call = llmCallFor(ctx, limits);
  return { highlights: await llm.highlights(ctx.markdown(), query, call), ...callWarning(call) };
}

/** Creates the `highlights` renderer. */
export function createHighlightsFormat(llm: LlmClient | undefined, limits: LlmLimits): FormatRenderer {
  return {
    type: "highlights",
    needs: ["llm"],
    views: ["markdown"],
    extraCredits: HIGHLIGHTS_EXTRA_CREDITS,
    render: (ctx, format) => highlightFields(llm!, ctx, String(format["query"]), limits),
  };
}
