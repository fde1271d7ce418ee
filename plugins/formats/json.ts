/**
 * @module plugins/formats/json
 * The `json` format (api-v2.md §2.2, §6.3): `{schema?, prompt?}` → `data.json`, extracted by the configured LLM
 * from the page's markdown. The schema is compiled when the request arrives (a bad schema is a 400 with the
 * reason, before any fetch); the answer is validated against it and repaired once (src/llm/client.ts). Long
 * pages are chunked and the partial answers merged. Billed 5 credits per page, as upstream (docs/credits.md).
 * `checkPromptInjection: true` first has the model check the page for a prompt injection (llm/injection-guard.ts):
 * a detection is upstream's 403 `SCRAPE_PROMPT_INJECTION_DETECTED`; the check costs 4 credits more. A page whose
 * markdown has no text (llm/visible-text.ts) is not sent to the model, as `summary`, `question` and `highlights`
 * skip it: no `json`, a warning saying why, and its extra credits (the check's too) not charged.
 */
import type { LlmClient } from "../../src/llm/client.ts";
import { assertNoPromptInjection } from "../../src/llm/injection-guard.ts";
import { callWarning, llmCallFor, type LlmLimits } from "../../src/llm/render-call.ts";
import { compileSchema } from "../../src/llm/schema.ts";
import { hasVisibleText } from "../../src/llm/visible-text.ts";
import { waiveExtraCredits } from "../../src/scrape/costs.ts";
import { formatIndex, type FormatRenderer } from "../../src/scrape/renderer.ts";

/** Extra credits of a page with `json`: 5 in all, as upstream bills. */
export const JSON_EXTRA_CREDITS = 4;
/** Extra credits of `checkPromptInjection`'s check, as upstream bills it. */
export const INJECTION_CHECK_EXTRA_CREDITS = 4;

/** The warning instead of `json` for a page without text (worded as `summary`'s, plugins/formats/summary.ts). */
export const EMPTY_PAGE_JSON_WARNING = "JSON extraction was skipped because the markdown content has no text.";

/**
 * What `json` and `deterministicJson` share: they read the markdown, are billed as one group (5 credits, 4 more with
 * `checkPromptInjection`), and compile their optional `schema` when the request arrives (a bad one is a 400).
 */
export function jsonLikeFormat(): Pick<FormatRenderer, "views" | "extraCredits" | "creditGroup" | "validate"> {
  return {
    views: ["markdown"],
    extraCredits: (format) => JSON_EXTRA_CREDITS + (format.checkPromptInjection === true ? INJECTION_CHECK_EXTRA_CREDITS : 0),
    creditGroup: "json",
    validate(format, spec) {
      const schema = format.schema as Record<string, unknown> | undefined;
      if (schema !== undefined) compileSchema(schema, ["formats", formatIndex(spec, format), "schema"]);
    },
  };
}

/** Creates the `json` renderer; `llm` is undefined when no provider is configured (then `needs` refuses it). */
export function createJsonFormat(llm: LlmClient | undefined, limits: LlmLimits): FormatRenderer {
  return {
    type: "json",
    needs: ["llm"],
    // Both `schema` and `prompt` are optional, as upstream's schema says (`formats: ["json"]` is valid): without
    // either, the model is asked for the page's main information as a JSON object (llm/prompts.ts).
    ...jsonLikeFormat(),
    async render(ctx, format) {
      const schema = format.schema as Record<string, unknown> | undefined;
      const prompt = format.prompt as string | undefined;
      const markdown = ctx.markdown();
      // Asked about nothing, a model fills the schema with what it imagines (a "premium widget priced at $42" for an
      // empty page), and the client pays for it: no call, as for a summary.
      if (!hasVisibleText(markdown)) {
        waiveExtraCredits(ctx, format);
        return { warning: EMPTY_PAGE_JSON_WARNING };
      }
      const call = llmCallFor(ctx, limits);
      // One token budget for the format on this page, the check and the extraction together.
      const spent = { tokens: 0 };
      if (format.checkPromptInjection === true) await assertNoPromptInjection(llm!, markdown, call, spent);
      const { value } = await llm!.extract({ content: markdown, ...(schema ? { schema } : {}), ...(prompt ? { prompt } : {}) }, call, spent);
      return { json: value, ...callWarning(call) };
    },
  };
}
