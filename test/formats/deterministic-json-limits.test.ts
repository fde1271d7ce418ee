/**
 * What a steered deterministicJson extractor could do to crawlbox: schemas askLlm may give (no patterns), results
 * too large or too deep, a flood of askLlm requests, extractors kept per key and never for personal fetches, an error
 * page leaving a kept extractor alone, the page's relative <base>; and checkPromptInjection, and the 400s. Set-up in
 * deterministic-json-setup.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
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
