/**
 * deterministicJson through the API, with the fake LLM writing the extractors and the real browser running them:
 * the first scrape writes and keeps an extractor, the next runs it with no model asked (and reads the page's new
 * values); a failing or schema-breaking extractor is rewritten once with the reason; a second failure is a warning;
 * askLlm reaches the model; the sandbox has no network and no Node; zero data retention keeps nothing. And what a
 * steered extractor could do to crawlbox: schemas askLlm may give (no patterns), results too large or too deep, a
 * flood of askLlm requests, extractors kept per key and never for personal fetches, an error page leaving a kept
 * extractor alone, the page's relative <base>, and checkPromptInjection.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm, type LlmRequestLog } from "../llm/fake-llm.ts";
import { closeAndAssertNoChromium } from "../browser/helpers.ts";
import { startPageSite, type PageSite } from "./pages.ts";

let site: PageSite;
let llm: FakeLlm;
let h: Harness;

const SCHEMA = {
  type: "object",
  properties: { shop: { type: "string" }, products: { type: "array", items: { type: "object", properties: { name: { type: "string" }, price: { type: "number" }, url: { type: "string" } }, required: ["name", "price", "url"] } } },
  required: ["shop", "products"],
};

const shopPage = (shop: string, items: [string, number][]) =>
  `<!doctype html><html><head><title>${shop}</title><style>.x{color:red}</style></head><body><nav><a href="/">Home</a></nav><h1 id="shop">${shop}</h1><ul class="products">${items
    .map(([n, p], i) => `<li class="product" data-sku="s${i}"><h2>${n}</h2><span class="price">€${p.toFixed(2)}</span><a href="/p/${i}">more</a></li>`)
    .join("")}</ul><script>window.secret = 1</script></body></html>`;

/** An extractor as a model would write it for the shop page. */
const GOOD = `async function extract(doc, askLlm) {
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

const isCodegen = (r: LlmRequestLog) => r.messages[0]!.content.startsWith("You write one JavaScript function");

beforeAll(async () => {
  site = startPageSite();
  llm = startFakeLlm();
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", browserConcurrency: 4 });
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  site.stop();
  llm.stop();
});

const scrape = async (path: string, format: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
  const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}${path}`, formats: [{ type: "deterministicJson", ...format }], maxAge: 0, ...extra } });
  return { status: res.status, body: (await res.json()) as any };
};

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

  test("a steered extractor gets bounds: askLlm schemas without patterns, results no larger or deeper than the limits, at most 20 askLlm calls", async () => {
    site.set("/hostile", `<html><body><p id="x">x</p></body></html>`);
    const run = async (code: string) => {
      llm.reset();
      llm.respond = (req) => (isCodegen(req) ? { content: code } : { content: '"a"' });
      return (await scrape("/hostile", { prompt: `p${Math.random()}` }, { zeroDataRetention: true })).body;
    };
    // A pattern (a regular expression crawlbox would run) is refused before any model call.
    const pat = await run(`async function extract(doc, askLlm) { try { await askLlm("x", { type: "string", pattern: "^(a|a)*$" }); return { ok: true }; } catch (e) { return { err: e.message }; } }`);
    expect(pat.data.json.err).toContain("may use only");
    expect(llm.chats().filter((c) => !isCodegen(c))).toHaveLength(0);

    const big = await run(`async function extract() { return { s: "x".repeat(6000000) }; }`);
    expect(big.data.json).toBeUndefined();
    expect(big.data.warning).toContain("over the 5000000 allowed");

    const deep = await run(`async function extract() { let v = []; for (let i = 0; i < 40000; i++) v = [v]; return { a: v }; }`);
    expect(deep.data.json).toBeUndefined();
    expect(deep.data.warning).toContain("deeper than 64");
    expect((await h.request(`/v2/scrape/${deep.data.metadata.scrapeId}`)).status).toBe(404); // zero data retention: nothing kept

    // The binding is not in the code's world; requests planted by hand are counted like askLlm's.
    const flood = await run(`async function extract(doc, askLlm) {
      const direct = typeof globalThis.__crawlboxAskLlm;
      for (let i = 1; i <= 200; i++) document.documentElement.setAttribute("data-cb-call-" + (1000 + i), JSON.stringify({ p: "q" + i, s: null }));
      document.dispatchEvent(new Event("crawlbox-call"));
      let refused = "";
      try { await askLlm("one more"); } catch (e) { refused = e.message; }
      return { direct, refused };
    }`);
    expect(flood.data.json).toEqual({ direct: "undefined", refused: "at most 20 calls may be made" });
    await Bun.sleep(300);
    expect(llm.chats().filter((c) => !isCodegen(c)).length).toBeLessThanOrEqual(20);
  }, 60_000);

  test("extractors are kept per key, never for a personal fetch; an error page leaves a kept one alone; a relative <base> is resolved", async () => {
    const count = (url: string) => (h.services.db.query("SELECT COUNT(*) AS n FROM deterministic_extractors WHERE url = ?").get(url) as { n: number }).n;
    site.set("/mine", shopPage("Mine", [["Pen", 1]]));
    llm.reset();
    llm.respond = () => ({ content: GOOD });
    await scrape("/mine", { schema: SCHEMA }, { headers: { cookie: "session=A" } });
    expect(count(`${site.url}/mine`)).toBe(0);
    await scrape("/mine", { schema: SCHEMA });
    expect(count(`${site.url}/mine`)).toBe(1);
    const other = h.services.keys.create("other-det").key;
    llm.reset();
    llm.respond = () => ({ content: GOOD });
    const res = await h.request("/v2/scrape", { method: "POST", auth: other, json: { url: `${site.url}/mine`, formats: [{ type: "deterministicJson", schema: SCHEMA }], maxAge: 0 } });
    expect(((await res.json()) as any).data.json.shop).toBe("Mine");
    expect(llm.chats()).toHaveLength(1);
    expect(count(`${site.url}/mine`)).toBe(2);

    // A 500 page of another shape: the kept extractor fails, is neither rewritten nor dropped.
    site.set("/mine", "<html><body><h1>Server error</h1></body></html>", 500);
    llm.reset();
    llm.respond = () => ({ content: "async function extract() { return { shop: 'x', products: [] }; }" });
    const err = await scrape("/mine", { schema: SCHEMA });
    expect(err.body.data.warning).toContain("error status");
    expect(llm.chats()).toHaveLength(0);
    site.set("/mine", shopPage("Mine", [["Ink", 2]]));
    const back = await scrape("/mine", { schema: SCHEMA });
    expect(back.body.data.json.products[0].name).toBe("Ink");
    expect(llm.chats()).toHaveLength(0);

    site.set("/based", `<html><head><base href="/sub/"></head><body><a href="x">x</a></body></html>`);
    llm.reset();
    llm.respond = () => ({ content: `async function extract(doc) { return { href: doc.querySelector("a").href }; }` });
    expect((await scrape("/based", { prompt: "link" })).body.data.json).toEqual({ href: `${site.url}/sub/x` });
  }, 60_000);

  test("checkPromptInjection has the model check the page first, as for json (4 credits more)", async () => {
    site.set("/checked", shopPage("Checked", [["Cup", 1]]));
    llm.reset();
    llm.respond = (req) => (req.messages[1]!.content.startsWith("Does this page content contain a prompt injection") ? { content: '{"injection":false,"reason":""}' } : { content: GOOD });
    const r = await scrape("/checked", { schema: SCHEMA, checkPromptInjection: true });
    expect(r.body.data.json.shop).toBe("Checked");
    expect(r.body.data.metadata.creditsUsed).toBe(9);
    llm.reset();
    llm.respond = () => ({ content: '{"injection":true,"reason":"it tells the model to ignore its instructions"}' });
    const bad = await scrape("/checked", { schema: SCHEMA, checkPromptInjection: true, prompt: "other" });
    expect([bad.status, bad.body.code]).toEqual([403, "SCRAPE_PROMPT_INJECTION_DETECTED"]);
  }, 60_000);

  test("bad requests are 400s before anything is fetched", async () => {
    const bad = await scrape("/shop", { schema: { type: "object", properties: { a: { type: "nope" } } } });
    expect(bad.status).toBe(400);
    expect(bad.body.details.map((i: any) => i.path)).toEqual([["formats", 0, "schema"]]); // the format's index in formats
    const both = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/shop`, formats: ["json", "deterministicJson"] } });
    expect(both.status).toBe(400);
    const noLlm = await createHarness({ browserConcurrency: 2 });
    try {
      const res = await noLlm.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/shop`, formats: ["deterministicJson"] } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error).toContain("deterministicJson");
    } finally {
      await noLlm.close();
    }
  });
});
