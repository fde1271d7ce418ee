/**
 * @module plugins/formats/deterministic-json
 * The [LATEST] `deterministicJson` format (`{type:"deterministicJson", schema?, prompt?}`, api-v2.md §2.2): the
 * same `data.json` as `json`, but produced by an extractor the configured LLM writes once per URL, schema and prompt
 * and crawlbox keeps and runs in a browser sandbox (src/llm/deterministic/extract.ts), so the same page gives the
 * same JSON. Needs the LLM and the browser (for the sandbox, not for the page: the page is fetched as any other).
 * When no extractor works, the scrape still succeeds with a `warning` and no `json`, as upstream's. Billed as
 * `json`: 5 credits per page (docs/credits.md).
 */
import type { BrowserPool } from "../../src/engines/browser/pool.ts";
import type { LlmClient } from "../../src/llm/client.ts";
import { extractDeterministic } from "../../src/llm/deterministic/extract.ts";
import type { ExtractorStore } from "../../src/llm/deterministic/store.ts";
import { llmCallFor, type LlmLimits } from "../../src/llm/render-call.ts";
import { compileSchema } from "../../src/llm/schema.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";
import { JSON_EXTRA_CREDITS } from "./json.ts";

/** Where extractors run and are kept. */
export interface DeterministicDeps {
  /** The browser pool; read when a page is rendered (the pool is made after the renderers). */
  pool(): BrowserPool | undefined;
  store: ExtractorStore;
}

/** Creates the `deterministicJson` renderer; refused (`needs`) without an LLM or a browser. */
export function createDeterministicJsonFormat(llm: LlmClient | undefined, limits: LlmLimits, deps: DeterministicDeps | undefined): FormatRenderer {
  return {
    type: "deterministicJson",
    needs: ["llm", "sandbox"],
    views: ["markdown"],
    extraCredits: JSON_EXTRA_CREDITS,
    creditGroup: "json",
    validate(format) {
      const schema = format.schema as Record<string, unknown> | undefined;
      if (schema !== undefined) compileSchema(schema, ["formats", "deterministicJson", "schema"]);
    },
    async render(ctx, format) {
      const pool = deps?.pool();
      if (!pool || !deps) return { warning: "Deterministic JSON extraction needs the browser, which this server does not have." };
      const html = ctx.rawHtml();
      if (!html.trim()) return { warning: "Deterministic JSON extraction needs the page's HTML; this page has none." };
      const schema = format.schema as Record<string, unknown> | undefined;
      const prompt = format.prompt as string | undefined;
      const call = llmCallFor(ctx, limits);
      try {
        const { value } = await extractDeterministic({
          llm: llm!,
          pool,
          ...(ctx.spec.zeroDataRetention ? {} : { store: deps.store }),
          url: ctx.spec.url,
          baseUrl: ctx.baseUrl(),
          html,
          markdown: ctx.markdown(),
          ...(schema ? { schema } : {}),
          ...(prompt ? { prompt } : {}),
          call,
          spent: { tokens: 0 },
        });
        return { json: value };
      } catch (e) {
        // The client gone or the job cancelled ends the scrape; anything else leaves it standing, as upstream's.
        if (call.signal?.aborted) throw e;
        return { warning: `Deterministic JSON extraction failed: ${e instanceof Error ? e.message : String(e)}` };
      }
    },
  };
}
