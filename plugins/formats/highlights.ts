/**
 * @module plugins/formats/highlights
 * The [LATEST] `highlights` format (`{type:"highlights", query}`, api-v2.md §2.2): the passages of the page
 * relevant to the query, quoted by the configured LLM, one per line, in `data.highlights` (a string, as in the
 * SDK's Document type). Long pages are read per chunk; an empty string means nothing on the page is relevant. A page
 * whose markdown has no text (llm/visible-text.ts) has nothing relevant: `""` with a warning, the model not asked
 * and its +4 not charged.
 */
import type { LlmClient } from "../../src/llm/client.ts";
import { callWarning, llmCallFor, type LlmLimits } from "../../src/llm/render-call.ts";
import { hasVisibleText } from "../../src/llm/visible-text.ts";
import { waiveExtraCredits } from "../../src/scrape/costs.ts";
import type { ScrapeDocument } from "../../src/scrape/document.ts";
import type { FormatRenderer, RenderContext } from "../../src/scrape/renderer.ts";
import type { FormatRequest } from "../../src/scrape/spec.ts";

/** The warning with the empty highlights of a page without text. */
export const EMPTY_PAGE_HIGHLIGHTS_WARNING = "No highlights: the page's markdown has no text, so the model was not asked.";

/** Extra credits of a page with `highlights` (as `summary`). */
export const HIGHLIGHTS_EXTRA_CREDITS = 4;

/**
 * `data.highlights` for `query` asked of the page. A page without text is not sent to the model; `format` (the
 * request's, when given) then has its extra credits waived.
 */
export async function highlightFields(llm: LlmClient, ctx: RenderContext, query: string, limits: LlmLimits, format?: FormatRequest): Promise<Partial<ScrapeDocument>> {
  const markdown = ctx.markdown();
  if (!hasVisibleText(markdown)) {
    if (format) waiveExtraCredits(ctx, format);
    return { highlights: "", warning: EMPTY_PAGE_HIGHLIGHTS_WARNING };
  }
  const call = llmCallFor(ctx, limits);
  return { highlights: await llm.highlights(markdown, query, call), ...callWarning(call) };
}

/** Creates the `highlights` renderer. */
export function createHighlightsFormat(llm: LlmClient | undefined, limits: LlmLimits): FormatRenderer {
  return {
    type: "highlights",
    needs: ["llm"],
    views: ["markdown"],
    extraCredits: HIGHLIGHTS_EXTRA_CREDITS,
    render: (ctx, format) => highlightFields(llm!, ctx, String(format["query"]), limits, format),
  };
}
