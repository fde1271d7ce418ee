/**
 * `redactPII` and `onlyCleanContent` with the `product` format (plugins/formats/product.ts, redact/markdown-readers.ts),
 * through the API against a local page and the fake LLM: the product model reads the markdown redacted and cleaned,
 * also when `product` is the only format; a product read from structured data has its strings redacted; and a page
 * whose product is declared costs no cleaning call. Before, product (a reader of the original DOM) ran before the
 * redact-and-clean step: its model read the page's e-mail, phone and cookie banner, and `formats: ["product"]` alone
 * redacted nothing while charging the redaction.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm, type LlmRequestLog } from "../llm/fake-llm.ts";
import { startPageSite, type PageSite } from "../formats/pages.ts";

let site: PageSite;
let llm: FakeLlm;
let h: Harness;

const KETTLE = `<html><body><h1>Blue Kettle</h1><p>The Blue Kettle costs 24.50 EUR. Sold by Ada Lovelace, ada.lovelace@example.org, +44 20 7946 0958.</p><p>Cookie banner: accept all cookies.</p></body></html>`;
const ld = (data: unknown) => `<script type="application/ld+json">${JSON.stringify(data)}</script>`;
const DECLARED = `<!doctype html><html><head><title>Shop</title>${ld({
  "@context": "https://schema.org",
  "@type": "Product",
  name: "Red Kettle",
  description: "Questions? Write to ada.lovelace@example.org or call +44 20 7946 0958.",
  offers: { "@type": "Offer", price: "24.90", priceCurrency: "EUR", availability: "https://schema.org/InStock" },
})}</head><body><main><h1>Red Kettle</h1><p>A kettle.</p><p>Cookie banner: accept all cookies.</p></main></body></html>`;

const text = (r: LlmRequestLog) => r.messages.map((m) => m.content).join("\n");
const isCleaning = (r: LlmRequestLog) => r.messages.some((m) => m.role === "system" && m.content.includes("boilerplate"));
const isPii = (r: LlmRequestLog) => r.messages.some((m) => m.role === "system" && m.content.includes("personally identifiable information"));
const isProduct = (r: LlmRequestLog) => text(r).includes("Describe the product this page sells");

/** The model: drops the cookie banner, quotes Ada Lovelace as a person, reads the kettle. */
function model(req: LlmRequestLog) {
  if (isCleaning(req)) {
    const blocks = [...req.messages.find((m) => m.role === "user")!.content.matchAll(/^\[(\d+)\] (.*)$/gm)];
    return { content: JSON.stringify({ remove: blocks.filter((b) => b[2]!.includes("Cookie banner")).map((b) => Number(b[1])) }) };
  }
  if (isPii(req)) return { content: JSON.stringify({ spans: [{ text: "Ada Lovelace", type: "PERSON" }] }) };
  return { content: JSON.stringify({ isProduct: true, title: "Blue Kettle", variants: [{ price: 24.5, currency: "EUR", inStock: true }] }) };
}

beforeAll(async () => {
  site = startPageSite();
  site.set("/kettle", KETTLE);
  site.set("/declared", DECLARED);
  llm = startFakeLlm();
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
});
afterAll(async () => {
  await h.close();
  site.stop();
  llm.stop();
});

async function scrape(path: string, body: Record<string, unknown>) {
  llm.reset();
  llm.respond = model;
  const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}${path}`, maxAge: 0, ...body } });
  return { status: res.status, body: (await res.json()) as any };
}

describe("product with redactPII and onlyCleanContent", () => {
  test("product alone, fast mode: the model reads the redacted markdown; 1 + 4 credits", async () => {
    const r = await scrape("/kettle", { formats: ["product"], redactPII: { mode: "fast" } });
    expect(r.status).toBe(200);
    expect(r.body.data.product.title).toBe("Blue Kettle");
    expect(r.body.data.metadata.creditsUsed).toBe(5);
    const product = llm.chats().filter(isProduct);
    expect(product).toHaveLength(1);
    expect(text(product[0]!)).toContain("Sold by Ada Lovelace, <EMAIL>, <PHONE>.");
    expect(text(product[0]!)).not.toContain("ada.lovelace@example.org");
    expect(text(product[0]!)).not.toContain("7946 0958");
  });

  test("accurate mode: the model's redaction runs first, and the product model does not see the name it quoted", async () => {
    const r = await scrape("/kettle", { formats: ["product"], redactPII: true });
    expect(r.status).toBe(200);
    const chats = llm.chats();
    expect(chats.map((c) => (isPii(c) ? "pii" : isProduct(c) ? "product" : "other"))).toEqual(["pii", "product"]);
    expect(text(chats[1]!)).toContain("Sold by <PERSON>,");
    expect(text(chats[1]!)).not.toContain("Ada Lovelace");
  });

  test("with markdown and onlyCleanContent: the product model reads the cleaned, redacted copy the markdown is; 1 + 4 + 1 credits", async () => {
    const r = await scrape("/kettle", { formats: ["product", "markdown"], redactPII: { mode: "fast" }, onlyCleanContent: true });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toBe("# Blue Kettle\n\nThe Blue Kettle costs 24.50 EUR. Sold by Ada Lovelace, <EMAIL>, <PHONE>.");
    const chats = llm.chats();
    expect(chats.map((c) => (isCleaning(c) ? "clean" : isProduct(c) ? "product" : "other"))).toEqual(["clean", "product"]);
    const sent = text(chats[1]!);
    expect(sent).toContain("<EMAIL>");
    expect(sent).not.toContain("ada.lovelace@example.org");
    expect(sent).not.toContain("Cookie banner");
    expect(r.body.data.metadata.creditsUsed).toBe(6);
  });

  test("a product read from structured data has its strings redacted; no model reads the page, no cleaning is charged", async () => {
    const r = await scrape("/declared", { formats: ["product"], redactPII: { mode: "fast" }, onlyCleanContent: true });
    expect(r.status).toBe(200);
    expect(r.body.data.product.title).toBe("Red Kettle");
    expect(r.body.data.product.description).toBe("Questions? Write to <EMAIL> or call <PHONE>.");
    expect(JSON.stringify(r.body.data.product)).not.toContain("ada.lovelace@example.org");
    expect(r.body.data.product.variants[0].price).toMatchObject({ amount: 24.9, currency: "EUR" });
    expect(llm.chats()).toHaveLength(0);
    expect(r.body.data.metadata.creditsUsed).toBe(5);
  });
});
