/**
 * @module plugins/formats/question
 * The [LATEST] `question` format (`{type:"question", question}`, api-v2.md §2.2): the configured LLM answers the
 * question from the page's markdown, in `data.answer`. Long pages are asked per chunk and the partial answers
 * combined. When no part of the page answers it there is no `answer`, and a `warning` says so. A page whose markdown
 * has no text (llm/visible-text.ts) does not answer it either: the model is not asked, and its +4 is not charged.
 */
import type { LlmClient } from "../../src/llm/client.ts";
import { callWarning, llmCallFor, type LlmLimits } from "../../src/llm/render-call.ts";
import { hasVisibleText } from "../../src/llm/visible-text.ts";
import { waiveExtraCredits } from "../../src/scrape/costs.ts";
import type { ScrapeDocument } from "../../src/scrape/document.ts";
import type { FormatRenderer, RenderContext } from "../../src/scrape/renderer.ts";
import type { FormatRequest } from "../../src/scrape/spec.ts";

/** The warning when the page does not answer the question. */
export const NOT_ANSWERED_WARNING = "The page does not answer the question.";
/** What is added to it when the page has no text at all. */
export const EMPTY_PAGE_NOT_ASKED = "Its markdown has no text, so the model was not asked.";

/** Extra credits of a page with `question` (as `summary`: one LLM call per ~context of text). */
export const QUESTION_EXTRA_CREDITS = 4;

/**
 * `data.answer` for `question` asked of the page, or a warning when no part of the page answers it. A page without
 * text is not sent to the model; `format` (the request's, when given) then has its extra credits waived.
 */
export async function answerFields(llm: LlmClient, ctx: RenderContext, question: string, limits: LlmLimits, format?: FormatRequest): Promise<Partial<ScrapeDocument>> {
  const markdown = ctx.markdown();
  if (!hasVisibleText(markdown)) {
    if (format) waiveExtraCredits(ctx, format);
    return { warning: `${NOT_ANSWERED_WARNING} ${EMPTY_PAGE_NOT_ASKED}` };
  }
  const call = llmCallFor(ctx, limits);
  const answer = await llm.answer(markdown, question, call);
  const cut = callWarning(call).warning;
  return answer === undefined ? { warning: [NOT_ANSWERED_WARNING, cut].filter(Boolean).join(" ") } : { answer, ...callWarning(call) };
}

/** Creates the `question` renderer. */
export function createQuestionFormat(llm: LlmClient | undefined, limits: LlmLimits): FormatRenderer {
  return {
    type: "question",
    needs: ["llm"],
    views: ["markdown"],
    extraCredits: QUESTION_EXTRA_CREDITS,
    creditGroup: "question",
    render: (ctx, format) => answerFields(llm!, ctx, String(format["question"]), limits, format),
  };
}
