/**
 * @module plugins/formats/json
 * The `json` format (api-v2.md §2.2, §6.3): `{schema?, prompt?}` → `data.json`, extracted by the configured LLM
 * from the page's markdown. The schema is compiled when the request arrives (a bad schema is a 400 with the
 * reason, before any fetch); the answer is validated against it and repaired once (src/llm/client.ts). Long
 * pages are chunked and the partial answers merged. Billed 5 credits per page, as upstream (docs/credits.md).
 */
import type { LlmClient } from "../../src/llm/client.ts";
import { llmCallFor, type LlmLimits } from "../../src/llm/render-call.ts";
import { compileSchema } from "../../src/llm/schema.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

/** Extra credits of a page with `json`: 5 in all, as upstream bills. */
export const JSON_EXTRA_CREDITS = 4;

/** Creates the `json` renderer; `llm` is undefined when no provider is configured (then `needs` refuses it). */
export function createJsonFormat(llm: LlmClient | undefined, limits: LlmLimits): FormatRenderer {
  return {
    type: "json",
    needs: ["llm"],
    views: ["markdown"],
    extraCredits: JSON_EXTRA_CREDITS,
    creditGroup: "json",
    // Both `schema` and `prompt` are optional, as upstream's schema says (`formats: ["json"]` is valid): without
    // either, the model is asked for the page's main information as a JSON object (llm/prompts.ts).
    validate(format) {
      const schema = format.schema as Record<string, unknown> | undefined;
      if (schema !== undefined) compileSchema(schema, ["formats", "json", "schema"]);
    },
    async render(ctx, format) {
      const schema = format.schema as Record<string, unknown> | undefined;
      const prompt = format.prompt as string | undefined;
      const { value } = await llm!.extract({ content: ctx.markdown(), ...(schema ? { schema } : {}), ...(prompt ? { prompt } : {}) }, llmCallFor(ctx, limits));
      return { json: value };
    },
  };
}
