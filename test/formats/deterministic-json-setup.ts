/**
 * The shared set-up of the deterministicJson tests (deterministic-json, deterministic-json-limits): the shop page, its
 * schema and an extractor as a model would write it, the fake LLM, and an in-process crawlbox with real Chromium
 * (checked to leave no Chromium behind).
 */
import { afterAll, beforeAll } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm, type LlmRequestLog } from "../llm/fake-llm.ts";
import { closeAndAssertNoChromium } from "../browser/helpers.ts";
import { startPageSite, type PageSite } from "./pages.ts";

/** The shop page's schema. */
export const SCHEMA = {
  type: "object",
  properties: { shop: { type: "string" }, products: { type: "array", items: { type: "object", properties: { name: { type: "string" }, price: { type: "number" }, url: { type: "string" } }, required: ["name", "price", "url"] } } },
  required: ["shop", "products"],
};

/** A shop page named `shop` listing `items` (name, price). */
export const shopPage = (shop: string, items: [string, number][]) =>
  `<!doctype html><html><head><title>${shop}</title><style>.x{color:red}</style></head><body><nav><a href="/">Home</a></nav><h1 id="shop">${shop}</h1><ul class="products">${items
    .map(([n, p], i) => `<li class="product" data-sku="s${i}"><h2>${n}</h2><span class="price">€${p.toFixed(2)}</span><a href="/p/${i}">more</a></li>`)
    .join("")}</ul><script>window.secret = 1</script></body></html>`;

/** An extractor as a model would write it for the shop page. */
export const GOOD = `async function extract(doc, askLlm) {
  const shop = doc.querySelector("#shop")?.textContent?.trim();
  if (!shop) throw new Error("Missing shop name");
  const items = [...doc.querySelectorAll("li.product")];
  if (items.length === 0) throw new Error("Missing product items");
  const products = items.map((li) => ({
    name: li.querySelector("h2").textContent.trim(),
    price: Number(li.querySelector(".price").textContent.replace(/[^0-9.]/g, "")),
    url: li.querySelector("a").href,
  }));
  return { shop, products };
}`;

/** Whether a model request is one asking for an extractor. */
export const isCodegen = (r: LlmRequestLog) => r.messages[0]!.content.startsWith("You write one JavaScript function");

/** What a test file gets: filled in by the file's first `beforeAll`. */
export interface DeterministicJsonSite {
  site: PageSite;
  llm: FakeLlm;
  h: Harness;
  /** `POST /v2/scrape` of `path` with one deterministicJson format, fresh, plus `extra`. */
  scrape(path: string, format: Record<string, unknown>, extra?: Record<string, unknown>): Promise<{ status: number; body: any }>;
}

/** Registers the file's set-up and tear-down; the returned object is filled in before the first test. */
export function useDeterministicJson(): DeterministicJsonSite {
  const ctx = {} as DeterministicJsonSite;
  beforeAll(async () => {
    ctx.site = startPageSite();
    ctx.llm = startFakeLlm();
    ctx.h = await createHarness({ ollamaBaseUrl: ctx.llm.url, modelName: "test-model", browserConcurrency: 4 });
  });
  afterAll(async () => {
    await closeAndAssertNoChromium(ctx.h);
    ctx.site.stop();
    ctx.llm.stop();
  });
  ctx.scrape = async (path, format, extra = {}) => {
    const res = await ctx.h.request("/v2/scrape", { method: "POST", json: { url: `${ctx.site.url}${path}`, formats: [{ type: "deterministicJson", ...format }], maxAge: 0, ...extra } });
    return { status: res.status, body: (await res.json()) as any };
  };
  return ctx;
}
