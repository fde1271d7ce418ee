/**
 * @module plugins/formats/deterministic-json
 * The [LATEST] `deterministicJson` format (`{type:"deterministicJson", schema?, prompt?, checkPromptInjection?}`,
 * api-v2.md §2.2): the same `data.json` as `json`, but produced by an extractor the configured LLM writes once per
 * URL, schema and prompt (per API key) and crawlbox keeps and runs in a browser sandbox (src/llm/deterministic/extract.ts),
 * so the same page gives the same JSON. Needs the LLM and the browser (for the sandbox, not for the page: the page is
 * fetched as any other). When no extractor works, the scrape still succeeds with a `warning` and no `json`, as
 * upstream's. Billed as `json`: 5 credits per page, 4 more with `checkPromptInjection` (docs/credits.md), which has
 * the model check the page first, as for `json`. With `redactPII`, the model reads the redacted markdown, and the
 * rest of the page that goes to it (the HTML outline's texts, a failed run's problem, the extractor's `askLlm`
 * prompts and schemas) is redacted where it is built (llm/deterministic/extract.ts), its model reads counted in the
 * format's token budget (`RenderRun.redact`'s budget); the caller's schema and prompt go as they are. The
 * extractor runs on the page as served, so the strings of its `json` are redacted too (redact/json-strings.ts), as is
 * a failure's warning, which may quote what the extractor read. Extractors are kept per redaction (its options are
 * part of the store key): one written from redacted text is not reused without redaction, nor the other way round.
 */
import type { BrowserPool } from "../../src/engines/browser/pool.ts";
import type { OperationSpent } from "../../src/llm/call.ts";
import type { LlmClient } from "../../src/llm/client.ts";
import { extractDeterministic } from "../../src/llm/deterministic/extract.ts";
import type { ExtractorStore } from "../../src/llm/deterministic/store.ts";
import { assertNoPromptInjection } from "../../src/llm/injection-guard.ts";
import { llmCallFor, type LlmLimits } from "../../src/llm/render-call.ts";
import { isSharedFetch } from "../../src/scrape/cache-key.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";
import { redactJsonStrings } from "../../src/redact/json-strings.ts";
import type { PiiOptions } from "../../src/redact/redactor.ts";
import { jsonLikeFormat } from "./json.ts";

/** The redaction a page is read under, for the extractor's store key: "off", or the normalised options. */
function redactionKey(options: PiiOptions | undefined): string {
  return options ? JSON.stringify({ mode: options.mode, entities: [...options.entities].sort(), replaceStyle: options.replaceStyle }) : "off";
}

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
    ...jsonLikeFormat(),
    async render(ctx, format) {
      const pool = deps?.pool();
      if (!pool || !deps) return { warning: "Deterministic JSON extraction needs the browser, which this server does not have." };
      const html = ctx.rawHtml();
      if (!html.trim()) return { warning: "Deterministic JSON extraction needs the page's HTML; this page has none." };
      const schema = format.schema as Record<string, unknown> | undefined;
      const prompt = format.prompt as string | undefined;
      const call = llmCallFor(ctx, limits);
      const spent: OperationSpent = { tokens: 0 };
      // As for `json`: a page found to carry a prompt injection is the scrape's 403, not a warning.
      if (format.checkPromptInjection === true) await assertNoPromptInjection(llm!, ctx.markdown(), call, spent);
      // The page's markdown is redacted already (scrape/service.ts); its HTML is not, nor what the extractor reads.
      // What goes to the model is redacted within the format's own budget; its output (json, warning) as the markdown
      // is, on the scrape's redaction: a format out of budget still never returns the raw values.
      const redact = ctx.spec.redactPII ? ctx.run?.redact : undefined;
      if (ctx.spec.redactPII && !redact) throw new TypeError("redactPII is on but the scrape armed no redaction (scrape/service.ts)");
      let value: unknown;
      try {
        ({ value } = await extractDeterministic({
          llm: llm!,
          pool,
          // Kept only for shared fetches: headers, actions or a profile make the page personal.
          ...(isSharedFetch(ctx.spec) ? { store: deps.store } : {}),
          keyId: ctx.run?.keyId ?? "",
          pageOk: ctx.page.statusCode >= 200 && ctx.page.statusCode < 300,
          url: ctx.spec.url,
          baseUrl: ctx.baseUrl(),
          html,
          markdown: ctx.markdown(),
          ...(schema ? { schema } : {}),
          ...(prompt ? { prompt } : {}),
          ...(redact ? { redact: (text: string, c: typeof call, s: typeof spent) => redact(text, { call: c, spent: s }) } : {}),
          redaction: redactionKey(ctx.spec.redactPII),
          call,
          spent,
        }));
      } catch (e) {
        // The client gone or the job cancelled ends the scrape; anything else leaves it standing, as upstream's.
        if (call.signal?.aborted) throw e;
        const warning = `Deterministic JSON extraction failed: ${e instanceof Error ? e.message : String(e)}`;
        return { warning: redact ? await redact(warning) : warning };
      }
      // Outside the try: a redaction that fails fails the scrape, as the markdown's does; never the raw values.
      return { json: redact ? await redactJsonStrings(value, redact) : value };
    },
  };
}
