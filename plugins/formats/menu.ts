/**
 * @module plugins/formats/menu
 * The `menu` format ([LATEST]): `data.menu`, the SDK's `MenuProfile` of a restaurant's (or café's, bar's…) menu
 * page: the venue, its sections and items with prices, dietary labels and calories, read by the configured LLM
 * (src/product/menu.ts). A page that is not a menu answers `isMenu: false` with no sections. Needs an LLM; no
 * extra credits (upstream bills it as a page); the model's tokens are counted per key.
 */
import type { LlmClient } from "../../src/llm/client.ts";
import { llmCallFor, type LlmLimits } from "../../src/llm/render-call.ts";
import { menuFromModel } from "../../src/product/menu.ts";
import type { FormatRenderer } from "../../src/scrape/renderer.ts";

/** Creates the `menu` renderer; `llm` is undefined when no provider is configured (then `needs` refuses it). */
export function createMenuFormat(llm: LlmClient | undefined, limits: LlmLimits): FormatRenderer {
  return {
    type: "menu",
    needs: ["llm"],
    views: ["markdown", "metadata"],
    async render(ctx) {
      const title = ctx.metadata().title;
      return { menu: await menuFromModel(llm!, ctx.markdown(), ctx.pageUrl, typeof title === "string" ? title : undefined, llmCallFor(ctx, limits)) };
    },
  };
}
