/**
 * @module plugins/formats/question
 * The [LATEST] `question` format (`{type:"question", question}`, api-v2.md §2.2): the configured LLM answers the
 * question from the page's markdown, in `data.answer`. Long pages are asked per chunk and the partial answers
 * combined. When no part of the page answers it there is no `answer`, and a `warning` says so.
 */
import type { LlmClient } from "../../src/llm/client.ts";
import { llmCallFor, type LlmLimits } from "../../src/llm/render-call.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

/** Extra credits of a page with `question` (as `summary`: one LLM call per ~context of text). */
export const QUESTION_EXTRA_CREDITS = 4;

/** Creates the `question` renderer. */
export function createQuestionFormat(llm: LlmClient | undefined, limits: LlmLimits): FormatRenderer {
  return {
    type: "question",
    needs: ["llm"],
    extraCredits: QUESTION_EXTRA_CREDITS,
    async render(ctx, format) {
      const question = String(format["question"]);
      const answer = await llm!.answer(ctx.markdown(), question, llmCallFor(ctx, limits));
      return answer === undefined ? { warning: "The page does not answer the question." } : { answer };
    },
  };
}
