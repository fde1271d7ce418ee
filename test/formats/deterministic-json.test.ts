/**
 * deterministicJson through the API, with the fake LLM writing the extractors and the real browser running them:
 * the first scrape writes and keeps an extractor, the next runs it with no model asked (and reads the page's new
 * values); a failing or schema-breaking extractor is rewritten once with the reason; a second failure is a warning;
 * askLlm reaches the model; the sandbox has no network and no Node; an extractor that never ends; zero data
 * retention keeps nothing; the official SDK and a crawl. What a steered extractor could do is in
 * deterministic-json-limits.test.ts. Set-up in deterministic-json-setup.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import type { Harness } from "../helpers/harness.ts";
import type { FakeLlm } from "../llm/fake-llm.ts";
import type { PageSite } from "./pages.ts";
import { GOOD, isCodegen, SCHEMA, shopPage, useDeterministicJson } from "./deterministic-json-setup.ts";

const ctx = useDeterministicJson();
let site: PageSite;
let llm: FakeLlm;
let h: Harness;
beforeAll(() => ({ site, llm, h } = ctx));
const { scrape } = ctx;

describe("deterministicJson", () => {
  test("the first scrape writes an extractor from the page; the next runs it, asks no model, and reads the page's new values", async () => {
    site.set("/shop", shopPage("Kettle Shop", [["Blue Kettle", 19.5], ["Red Kettle", 24]]));
    llm.reset();
    llm.respond = () => ({ content: "```js\n" + GOOD + "\n```" });
    const first = await scrape("/shop", { schema: SCHEMA, prompt: "The shop and its products." });
    expect(first.status).toBe(200);
    expect(first.body.data.json).toEqual({
      shop: "Kettle Shop",
      products: [
        { name: "Blue Kettle", price: 19.5, url: `${site.url}/p/0` },
        { name: "Red Kettle", price: 24, url: `${site.url}/p/1` },
      ],
    });
    expect(first.body.data.metadata.creditsUsed).toBe(5);
    const sent = llm.chats();
    expect(sent).toHaveLength(1);
    const user = sent[0]!.messages[1]!.content;
    expect(user).toContain(JSON.stringify(SCHEMA));
    expect(user).toContain("The shop and its products.");
    // The outline keeps what selectors are made of and drops styles and scripts.
    expect(user).toContain('<li class="product" data-sku="s0">');
    expect(user).not.toContain("color:red");
    expect(user).not.toContain("window.secret");

    site.set("/shop", shopPage("Kettle Shop", [["Green Kettle", 30], ["Blue Kettle", 18], ["Tea Pot", 12.25]]));
    llm.reset();
    const second = await scrape("/shop", { schema: SCHEMA, prompt: "The shop and its products." });
    expect(second.status).toBe(200);
    expect(llm.chats()).toHaveLength(0);
    expect(second.body.data.json.products.map((p: any) => p.name)).toEqual(["Green Kettle", "Blue Kettle", "Tea Pot"]);
    expect(second.body.data.json.products[2].price).toBe(12.25);

    // Another prompt is another extractor.
    llm.reset();
    llm.respond = () => ({ content: GOOD });
    await scrape("/shop", { schema: SCHEMA, prompt: "Only the products." });
    expect(llm.chats()).toHaveLength(1);
  });

  test("an extractor that throws or breaks the schema is written again with the reason; a stored one that stops working too", async () => {
    site.set("/retry", shopPage("Pot Shop", [["Small Pot", 5]]));
    llm.reset();
    llm.script([{ content: `async function extract(doc) { throw new Error("Missing product grid"); }` }, { content: GOOD }]);
    const r = await scrape("/retry", { schema: SCHEMA });
    expect(r.status).toBe(200);
    expect(r.body.data.json.products).toEqual([{ name: "Small Pot", price: 5, url: `${site.url}/p/0` }]);
    const retry = llm.chats()[1]!.messages[1]!.content;
    expect(retry).toContain("Missing product grid");
    expect(retry).toContain("async function extract(doc) { throw");

    llm.reset();
    llm.script([{ content: `async function extract(doc) { return { shop: 1, products: [] }; }` }, { content: GOOD }]);
    const s = await scrape("/retry", { schema: SCHEMA, prompt: "schema" });
    expect(s.body.data.json.shop).toBe("Pot Shop");
    expect(llm.chats()[1]!.messages[1]!.content).toContain("does not match the schema");

    // The page changes shape: the stored extractor fails, is rewritten, and the new one is kept.
    site.set("/retry", `<html><body><div id="shop">Pot Shop</div><table><tr class="product"><td><h2>Big Pot</h2></td><td class="price">9</td><td><a href="/b">b</a></td></tr></table></body></html>`);
    const TABLE = GOOD.replace('"li.product"', '"tr.product"');
    llm.reset();
    llm.script([{ content: TABLE }]);
    const t = await scrape("/retry", { schema: SCHEMA });
    expect(t.body.data.json.products).toEqual([{ name: "Big Pot", price: 9, url: `${site.url}/b` }]);
    expect(llm.chats()).toHaveLength(1);
    // …and the rewritten one is what runs next.
    expect(llm.chats()[0]!.messages[1]!.content).toContain("Your previous function failed");
    llm.reset();
    await scrape("/retry", { schema: SCHEMA });
    expect(llm.chats()).toHaveLength(0);
  });

  test("two failures leave the scrape standing, with a warning and no json", async () => {
    site.set("/bad", shopPage("Bad Shop", [["X", 1]]));
    llm.reset();
    llm.script([{ content: "I cannot write code for this page." }, { content: `async function extract(doc) { return doc.querySelector(".nothing").textContent; }` }]);
    const r = await scrape("/bad", { schema: SCHEMA }, { formats: ["markdown", { type: "deterministicJson", schema: SCHEMA }] });
    expect(r.status).toBe(200);
    expect(r.body.data.json).toBeUndefined();
    expect(r.body.data.markdown).toContain("Bad Shop");
    expect(r.body.data.warning).toContain("Deterministic JSON extraction failed");
    expect(r.body.data.warning).toContain("null");
    expect(llm.chats()[1]!.messages[1]!.content).toContain("does not contain `async function extract");
  });

  test("askLlm reaches the model with the extractor's prompt and schema", async () => {
    site.set("/review", `<html><body><article><h1>Review</h1><p id="body">The kettle boils fast but the lid is flimsy.</p></article></body></html>`);
    const CODE = `async function extract(doc, askLlm) {
  const text = doc.querySelector("#body").textContent;
  const verdict = await askLlm("Classify the sentiment of: " + text, { type: "object", properties: { sentiment: { enum: ["positive", "mixed", "negative"] } }, required: ["sentiment"] });
  const summary = await askLlm("Summarise in three words: " + text);
  return { sentiment: verdict.sentiment, summary };
}`;
    llm.reset();
    llm.respond = (req) => (isCodegen(req) ? { content: CODE } : req.schema && req.schema !== "json" ? { content: '{"sentiment":"mixed"}' } : { content: "fast, flimsy lid" });
    const r = await scrape("/review", { prompt: "Sentiment and a short summary." });
    expect(r.status).toBe(200);
    expect(r.body.data.json).toEqual({ sentiment: "mixed", summary: "fast, flimsy lid" });
    const asks = llm.chats().filter((c) => !isCodegen(c));
    expect(asks).toHaveLength(2);
    expect(asks[0]!.messages[1]!.content).toContain("The kettle boils fast");
    expect(asks[0]!.schema).toMatchObject({ required: ["sentiment"] });
  });

  test("the extractor runs in the offline sandbox: no network, no Node, no crawlbox", async () => {
    site.set("/probe", `<html><body><p id="x">probe</p></body></html>`);
    site.set("/secret", `<html><body>secret</body></html>`);
    const CODE = `async function extract(doc) {
  let net = "ok";
  try { await fetch(${JSON.stringify(`${site.url}/secret`)}); } catch (e) { net = "blocked"; }
  let img = await new Promise((r) => { const i = new Image(); i.onload = () => r("loaded"); i.onerror = () => r("blocked"); i.src = ${JSON.stringify(`${site.url}/secret`)}; });
  return { net, img, node: typeof process + "/" + typeof require + "/" + typeof Bun, text: doc.querySelector("#x").textContent };
}`;
    llm.reset();
    llm.respond = () => ({ content: CODE });
    site.hits.delete("/secret");
    const r = await scrape("/probe", { prompt: "probe" }, { zeroDataRetention: true });
    expect(r.status).toBe(200);
    expect(r.body.data.json).toEqual({ net: "blocked", img: "blocked", node: "undefined/undefined/undefined", text: "probe" });
    expect(site.hits.get("/secret") ?? 0).toBe(0);
  });

  test("an extractor that never ends is stopped at the scrape's deadline; the browser serves the next one", async () => {
    site.set("/spin", shopPage("Spin Shop", [["Top", 2]]));
    llm.reset();
    llm.respond = () => ({ content: "async function extract(doc) { for (;;) {} }" });
    const t0 = performance.now();
    const r = await scrape("/spin", { schema: SCHEMA }, { timeout: 4000 });
    expect(performance.now() - t0).toBeLessThan(8000);
    expect(r.status).toBe(200);
    expect(r.body.data.json).toBeUndefined();
    expect(r.body.data.warning).toContain("did not finish");
    llm.reset();
    llm.respond = () => ({ content: GOOD });
    const next = await scrape("/spin", { schema: SCHEMA });
    expect(next.body.data.json.shop).toBe("Spin Shop");
  });

  test("zero data retention: the extractor is written for the one scrape and kept nowhere", async () => {
    site.set("/zdr", shopPage("Quiet Shop", [["Mug", 3]]));
    const count = () => (h.services.db.query("SELECT COUNT(*) AS n FROM deterministic_extractors WHERE url = ?").get(`${site.url}/zdr`) as { n: number }).n;
    llm.reset();
    llm.respond = () => ({ content: GOOD });
    for (let i = 0; i < 2; i++) {
      const r = await scrape("/zdr", { schema: SCHEMA }, { zeroDataRetention: true });
      expect(r.body.data.json.shop).toBe("Quiet Shop");
    }
    expect(llm.chats()).toHaveLength(2);
    expect(count()).toBe(0);
    await scrape("/zdr", { schema: SCHEMA });
    expect(count()).toBe(1);
  });

  test("the official SDK's scrape and a crawl's pages get data.json", async () => {
    site.set("/sdk", shopPage("SDK Shop", [["Cup", 4]]));
    llm.reset();
    llm.respond = () => ({ content: GOOD });
    const app = new Firecrawl({ apiKey: h.key, apiUrl: h.listen() });
    const doc: any = await app.scrape(`${site.url}/sdk`, { formats: [{ type: "deterministicJson", schema: SCHEMA } as any], maxAge: 0 });
    expect(doc.json).toEqual({ shop: "SDK Shop", products: [{ name: "Cup", price: 4, url: `${site.url}/p/0` }] });
    const crawl: any = await app.crawl(`${site.url}/sdk`, { limit: 1, scrapeOptions: { formats: [{ type: "deterministicJson", schema: SCHEMA } as any], maxAge: 0 }, pollInterval: 1 });
    expect(crawl.status).toBe("completed");
    expect(crawl.data[0].json.shop).toBe("SDK Shop");
    // The crawl's page ran the extractor the scrape kept.
    expect(llm.chats()).toHaveLength(1);
  });

});
