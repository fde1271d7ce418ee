/**
 * @module plugins/formats/query
 * The deprecated `query` format (`{type:"query", prompt, mode?}`, api-v2.md §2.2), which upstream replaced by
 * `question` and `highlights`: `mode: "freeform"` (the default) answers the prompt like `question`, in
 * `data.answer`; `mode: "directQuote"` quotes the relevant passages like `highlights`, in `data.highlights`.
 */
import type { LlmClient } from "../../src/llm/client.ts";
import type { LlmLimits } from "../../src/llm/render-call.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";
import { highlightFields } from "./highlights.ts";
import { answerFields, QUESTION_EXTRA_CREDITS } from "./question.ts";

/** Creates the `query` renderer. */
export function createQueryFormat(llm: LlmClient | undefined, limits: LlmLimits): FormatRenderer {
  return {
    type: "query",
    needs: ["llm"],
    views: ["markdown"],
    extraCredits: QUESTION_EXTRA_CREDITS,
    creditGroup: "question",
    render: (ctx, format) =>
      format["mode"] === "directQuote"
        ? highlightFields(llm!, ctx, String(format["prompt"]), limits, format)
        : answerFields(llm!, ctx, String(format["prompt"]), limits, format),
  };
}
