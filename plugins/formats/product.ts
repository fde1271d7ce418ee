/**
 * @module plugins/formats/product
 * The `product` format ([LATEST]): `data.product`, the SDK's `ProductProfile` (title, brand, category, url,
 * description, variants with price, sale, availability and images). Read first from what the page declares for
 * machines, schema.org JSON-LD or Open Graph product tags (src/product/structured-data.ts), which needs no model;
 * else, with an LLM configured, from the page's text (src/product/from-model.ts). A page that is not a product
 * gets `product: null` and a warning that says why. No extra credits (upstream bills it as a page); the model's
 * tokens are counted per key. The model reads the markdown as every format does, after `redactPII` and
 * `onlyCleanContent` (`readsMarkdownToo`, ctx.preparedMarkdown); with `redactPII`, a product read from structured
 * data, the page's own text, has its strings redacted the same way (redact/json-strings.ts).
 */
import type { LlmClient } from "../../src/llm/client.ts";
import { llmCallFor, type LlmLimits } from "../../src/llm/render-call.ts";
import { productFromModel } from "../../src/product/from-model.ts";
import { MAX_VARIANTS, productFromStructuredData } from "../../src/product/structured-data.ts";
import { redactJsonStrings } from "../../src/redact/json-strings.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

/** Creates the `product` renderer; `llm` (optional) reads pages without structured product data. */
export function createProductFormat(llm: LlmClient | undefined, limits: LlmLimits): FormatRenderer {
  return {
    type: "product",
    needs: [],
    readsMarkdownToo: true,
    // JSON-LD sits in <script> elements, which cleaning removes: the original DOM is read.
    usesOriginalDom: true,
    async render(ctx) {
      const declared = productFromStructuredData(ctx.originalDom(), ctx.pageUrl, ctx.baseUrl());
      if (declared) {
        const product = ctx.spec.redactPII && ctx.run?.redact ? ((await redactJsonStrings(declared.product, ctx.run.redact)) as typeof declared.product) : declared.product;
        return declared.truncated ? { product, warning: `The page declares more than ${MAX_VARIANTS} product variants; the first ${MAX_VARIANTS} are listed.` } : { product };
      }
      if (!llm) {
        return { product: null, warning: "No product data was found: the page declares none (schema.org Product JSON-LD or Open Graph product tags), and no LLM is configured to read its text." };
      }
      // Redacted and cleaned as the request asks before the model reads it (the step runs now if it has not yet).
      const read = await productFromModel(llm, await ctx.preparedMarkdown(), ctx.pageUrl, llmCallFor(ctx, limits));
      return read ? { product: read } : { product: null, warning: "The page does not present a product for sale (the model read no product in it)." };
    },
  };
}
