/**
 * @module plugins/formats/question
 * The [LATEST] `question` format (`{type:"question", question}`, api-v2.md §2.2): the configured LLM answers the
 * question from the page's markdown, in `data.answer`. Long pages are asked per chunk and the partial answers
 * combined. When no part of the page answers it there is no `answer`, and a `warning` says so.
 */
import type { LlmClient } from "../../src/llm/client.ts";
import { callWarning, llmCallFor, type LlmLimits } from "../../src/llm/render-call.ts";
import type { ScrapeDocument } from "../../src/scrape/document.ts";
import type { FormatRenderer, RenderContext } from "../../src/scrape/renderer.ts";

/** Extra credits of a page with `question` (as `summary`: one LLM call per ~context of text). */
export const QUESTION_EXTRA_CREDITS = 4;

/** `data.answer` for `question` asked of the page, or a warning when no part of the page answers it. */
export async function answerFields(llm: LlmClient, ctx: RenderContext, question: string, limits: LlmLimits): Promise<Partial<ScrapeDocument>> {
  const call = llmCallFor(ctx, limits);
  const answer = await llm.answer(ctx.markdown(), question, call);
  const cut = callWarning(call).warning;
  return answer === undefined ? { warning: ["The page does not answer the question.", cut].filter(Boolean).join(" ") } : { answer, ...callWarning(call) };
}

/** Creates the `question` renderer. */
export function createQuestionFormat(llm: LlmClient | undefined, limits: LlmLimits): FormatRenderer {
  return {
    type: "question",
    needs: ["llm"],
    views: ["markdown"],
    extraCredits: QUESTION_EXTRA_CREDITS,
    creditGroup: "question",
    render: (ctx, format) => answerFields(llm!, ctx, String(format["question"]), limits),
  };
}
