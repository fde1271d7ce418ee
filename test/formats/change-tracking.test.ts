/**
 * changeTracking through the API: new → same (whitespace-only change) → changed → removed (404), git-diff and
 * json modes, tags, the live page (never the cache), zero data retention, hidden visibility in a repeated crawl,
 * and the official SDK. The diff and excerpt units are in change-tracking-units.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { page, startPageSite, type PageSite } from "./pages.ts";

let site: PageSite;
let llm: FakeLlm;
let h: Harness;

beforeAll(async () => {
  site = startPageSite();
  llm = startFakeLlm();
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
});
afterAll(async () => {
  await h.close();
  site.stop();
  llm.stop();
});

const scrape = async (path: string, formats: unknown[], extra: Record<string, unknown> = {}) => {
  const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}${path}`, formats, ...extra } });
  return { status: res.status, body: (await res.json()) as any };
};

describe("changeTracking", () => {
  test("new → same → changed → removed, with git-diff", async () => {
    const f = ["markdown", { type: "changeTracking", modes: ["git-diff"] }];
    site.set("/p1", page("Prices", "Kettle: 20 EUR", "Toaster: 30 EUR"));
    const a = await scrape("/p1", f);
    expect(a.status).toBe(200);
    expect(a.body.data.changeTracking).toEqual({ previousScrapeAt: null, changeStatus: "new", visibility: "visible" });

    // Whitespace-only change: same, and no diff.
    site.set("/p1", page("Prices", "Kettle:   20 EUR  ", "Toaster: 30 EUR").replace("<p>", "\n\n<p>"));
    const b = await scrape("/p1", f);
    expect(b.body.data.changeTracking.changeStatus).toBe("same");
    expect(b.body.data.changeTracking.previousScrapeAt).toBeString();
    expect(b.body.data.changeTracking.diff).toBeUndefined();

    site.set("/p1", page("Prices", "Kettle: 25 EUR", "Toaster: 30 EUR"));
    const c = await scrape("/p1", f);
    const ct = c.body.data.changeTracking;
    expect(ct.changeStatus).toBe("changed");
    expect(Date.parse(ct.previousScrapeAt)).toBeGreaterThanOrEqual(Date.parse(b.body.data.changeTracking.previousScrapeAt));
    expect(ct.diff.text).toContain("--- previous\n+++ current\n@@ ");
    expect(ct.diff.text).toContain("-Kettle: 20 EUR");
    expect(ct.diff.text).toContain("+Kettle: 25 EUR");
    const changes = ct.diff.json.files[0].chunks[0].changes;
    const del = changes.find((x: any) => x.type === "del");
    const add = changes.find((x: any) => x.type === "add");
    expect(del).toMatchObject({ del: true, content: "-Kettle: 20 EUR" });
    expect(add).toMatchObject({ add: true, content: "+Kettle: 25 EUR" });
    expect(add.ln).toBe(del.ln);
    expect(changes.find((x: any) => x.type === "normal")).toMatchObject({ normal: true, ln1: expect.any(Number), ln2: expect.any(Number) });
    expect(ct.diff.json.files[0].chunks[0].content).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@$/);
    // The fixture was fetched every time: changeTracking never answers from the cache.
    expect(site.hits.get("/p1")).toBe(3);

    site.set("/p1", page("Gone", "This page does not exist."), 404);
    const d = await scrape("/p1", f);
    expect(d.body.data.changeTracking.changeStatus).toBe("removed");
    expect(d.body.data.metadata.statusCode).toBe(404);
  });

  test("a 404 without history is removed too; 410 as well", async () => {
    site.set("/never", page("Gone"), 410);
    const r = await scrape("/never", ["markdown", "changeTracking"]);
    expect(r.body.data.changeTracking).toMatchObject({ changeStatus: "removed", previousScrapeAt: null });
  });

  test("tags keep separate histories", async () => {
    site.set("/tagged", page("Tagged", "This is version one of the tagged page."));
    const f = (tag: string | null) => ["markdown", { type: "changeTracking", tag }];
    expect((await scrape("/tagged", f("prod"))).body.data.changeTracking.changeStatus).toBe("new");
    expect((await scrape("/tagged", f("staging"))).body.data.changeTracking.changeStatus).toBe("new");
    expect((await scrape("/tagged", f(null))).body.data.changeTracking.changeStatus).toBe("new");
    site.set("/tagged", page("Tagged", "This is version two of the tagged page."));
    expect((await scrape("/tagged", f("prod"))).body.data.changeTracking.changeStatus).toBe("changed");
    expect((await scrape("/tagged", f("prod"))).body.data.changeTracking.changeStatus).toBe("same");
    expect((await scrape("/tagged", f("staging"))).body.data.changeTracking.changeStatus).toBe("changed");
  });

  test("json mode with a schema: {field: {previous, current}} for changed fields", async () => {
    const schema = { type: "object", properties: { price: { type: "number" }, name: { type: "string" } }, required: ["price", "name"] };
    llm.reset();
    llm.respond = (req) => {
      const m = /Kettle: (\d+) EUR/.exec(req.messages[1]!.content);
      return { content: JSON.stringify({ name: "Kettle", price: Number(m?.[1] ?? 0) }) };
    };
    const f = ["markdown", { type: "changeTracking", modes: ["json", "git-diff"], schema, tag: "json" }];
    site.set("/j", page("Kettle", "Kettle: 20 EUR"));
    const a = await scrape("/j", f);
    expect(a.body.data.changeTracking.changeStatus).toBe("new");
    expect(a.body.data.changeTracking.json).toBeUndefined();
    expect(llm.chats()).toHaveLength(0);
    site.set("/j", page("Kettle", "Kettle: 22 EUR"));
    const b = await scrape("/j", f);
    expect(b.body.data.changeTracking.changeStatus).toBe("changed");
    expect(b.body.data.changeTracking.json).toEqual({ price: { previous: 20, current: 22 } });
    expect(b.body.data.changeTracking.diff.text).toContain("+Kettle: 22 EUR");
    // The current extraction is stored: the next change needs one extraction, not two.
    llm.reset();
    llm.respond = (req) => ({ content: JSON.stringify({ name: "Kettle", price: Number(/Kettle: (\d+) EUR/.exec(req.messages[1]!.content)?.[1]) }) });
    site.set("/j", page("Kettle", "Kettle: 23 EUR"));
    const c = await scrape("/j", f);
    expect(c.body.data.changeTracking.json).toEqual({ price: { previous: 22, current: 23 } });
    expect(llm.chats()).toHaveLength(1);
  });

  test("json mode with another schema or prompt than the stored extraction's: both versions extracted with the current one", async () => {
    // The fake model answers each field the schema asks for from the page it is given.
    const answer = (req: { schema: unknown; messages: { content: string }[] }) => {
      const props = Object.keys((req.schema as { properties?: Record<string, unknown> }).properties ?? {});
      const text = req.messages[1]!.content;
      const out: Record<string, string | null> = {};
      for (const p of props) out[p] = new RegExp(`${p}: (\\w+)`, "i").exec(text)?.[1] ?? null;
      return { content: JSON.stringify(out) };
    };
    llm.reset();
    llm.respond = answer;
    const price = { type: "object", properties: { price: { type: "string" } } };
    const title = { type: "object", properties: { title: { type: "string" } } };
    const f = (schema: Record<string, unknown>, prompt?: string) => ["markdown", { type: "changeTracking", modes: ["json"], tag: "t1", schema, ...(prompt ? { prompt } : {}) }];
    site.set("/schemas", page("S", "Price: v0", "Title: T0"));
    expect((await scrape("/schemas", f(price))).body.data.changeTracking.changeStatus).toBe("new");
    site.set("/schemas", page("S", "Price: v1", "Title: T0"));
    expect((await scrape("/schemas", f(price))).body.data.changeTracking.json).toEqual({ price: { previous: "v0", current: "v1" } });

    // The stored extraction answered {price}: the previous version is extracted again with {title}.
    site.set("/schemas", page("S", "Price: v1", "Title: T1"));
    llm.reset();
    llm.respond = answer;
    const c = await scrape("/schemas", f(title));
    expect(c.body.data.changeTracking.changeStatus).toBe("changed");
    expect(c.body.data.changeTracking.json).toEqual({ title: { previous: "T0", current: "T1" } });
    expect(llm.chats()).toHaveLength(2);

    // The same schema with a prompt is another question too.
    site.set("/schemas", page("S", "Price: v1", "Title: T2"));
    llm.reset();
    llm.respond = answer;
    expect((await scrape("/schemas", f(title, "The page title."))).body.data.changeTracking.json).toEqual({ title: { previous: "T1", current: "T2" } });
    expect(llm.chats()).toHaveLength(2);
    // An unchanged page keeps the extraction with what it was made with: the next change needs one call.
    await scrape("/schemas", f(title, "The page title."));
    site.set("/schemas", page("S", "Price: v1", "Title: T3"));
    llm.reset();
    llm.respond = answer;
    expect((await scrape("/schemas", f(title, "The page title."))).body.data.changeTracking.json).toEqual({ title: { previous: "T2", current: "T3" } });
    expect(llm.chats()).toHaveLength(1);
  });

  test("json mode without a schema: the LLM describes the change, pages delimited", async () => {
    llm.reset();
    llm.script([{ content: '{"changes":[{"field":"price","previous":"1","current":"2"}],"summary":"Price went up."}' }]);
    site.set("/d", page("D", "price 1"));
    await scrape("/d", ["markdown", { type: "changeTracking", modes: ["json"] }]);
    site.set("/d", page("D", "price 2"));
    const r = await scrape("/d", ["markdown", { type: "changeTracking", modes: ["json"], prompt: "Focus on prices." }]);
    expect(r.body.data.changeTracking.json.summary).toBe("Price went up.");
    const user = llm.chats()[0]!.messages[1]!.content;
    expect(user).toContain("Focus on prices.");
    expect(user).toContain("(previous version)>>>");
    expect(user).toContain("(current version)>>>");
  });

  test("json mode without a schema on a long page: the model gets the changed passages, marked as excerpts", async () => {
    llm.reset();
    llm.script([{ content: '{"changes":[],"summary":"Item 250 changed."}' }]);
    // ~26,000 characters a version: more than the model's room for both (8192 tokens).
    const items = (changed: string) => Array.from({ length: 300 }, (_, i) => `Item ${i}: ${i === 250 ? changed : "an unchanged line of the long catalogue page"}.`);
    site.set("/long", page("Long", ...items("the old description")));
    await scrape("/long", ["markdown", { type: "changeTracking", modes: ["json"], tag: "long" }]);
    site.set("/long", page("Long", ...items("the new description")));
    const r = await scrape("/long", ["markdown", { type: "changeTracking", modes: ["json"], tag: "long" }]);
    expect(r.body.data.changeTracking.json.summary).toBe("Item 250 changed.");
    const user = llm.chats()[0]!.messages[1]!.content;
    expect(user).toContain("Item 250: the old description.");
    expect(user).toContain("Item 250: the new description.");
    expect(user).toContain("excerpts");
    // Context around the change, not the start of the page.
    expect(user).toContain("Item 249:");
    expect(user).not.toContain("Item 10:");
  });

  test("json mode whose LLM fails: the document and the change status stand, with upstream's warning", async () => {
    llm.reset();
    site.set("/f", page("F", "price 1"));
    await scrape("/f", ["markdown", { type: "changeTracking", modes: ["json", "git-diff"] }]);
    site.set("/f", page("F", "price 2"));
    llm.respond = () => ({ status: 500, content: "model crashed" });
    const r = await scrape("/f", ["markdown", { type: "changeTracking", modes: ["json", "git-diff"] }]);
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain("price 2");
    expect(r.body.data.changeTracking).toMatchObject({ changeStatus: "changed" });
    expect(r.body.data.changeTracking.diff).toBeDefined();
    expect(r.body.data.changeTracking.json).toBeUndefined();
    expect(r.body.data.warning).toContain("Structured diff generation failed.");
  });

  test("json mode whose LLM runs past the scrape's timeout: the scrape times out (no 200 after its deadline)", async () => {
    llm.reset();
    site.set("/t", page("T", "price 1"));
    await scrape("/t", ["markdown", { type: "changeTracking", modes: ["json"] }]);
    site.set("/t", page("T", "price 2"));
    llm.respond = () => ({ delayMs: 3_000, content: "{}" });
    const r = await scrape("/t", ["markdown", { type: "changeTracking", modes: ["json"] }], { timeout: 1_500 });
    expect(r.status).toBe(408);
    expect(r.body.code).toBe("SCRAPE_TIMEOUT");
  });

  test("a scrape that fails after changeTracking rendered (a later format's LLM is down) keeps the old baseline", async () => {
    const f = ["markdown", { type: "changeTracking", modes: ["git-diff"], tag: "baseline" }, { type: "json", prompt: "Price?" }];
    llm.reset();
    llm.respond = () => ({ content: '{"price": 20}' });
    site.set("/base", page("Prices", "Kettle: 20 EUR"));
    expect((await scrape("/base", f)).body.data.changeTracking.changeStatus).toBe("new");
    site.set("/base", page("Prices", "Kettle: 22 EUR"));
    llm.respond = () => ({ status: 503, error: "model down" });
    const failed = await scrape("/base", f);
    expect(failed.status).toBe(503);
    llm.respond = () => ({ content: '{"price": 22}' });
    const again = await scrape("/base", f);
    expect(again.status).toBe(200);
    // The failed scrape did not become the baseline: the change is still reported.
    expect(again.body.data.changeTracking.changeStatus).toBe("changed");
    expect(again.body.data.changeTracking.diff.text).toContain("+Kettle: 22 EUR");
  });

  test("markdown is required; json mode needs an LLM, git-diff does not", async () => {
    const r = await scrape("/p1", ["changeTracking"]);
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain("requires the markdown format");
    const plain = await createHarness();
    try {
      site.set("/nollm", page("No LLM", "x"));
      const ok = await plain.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/nollm`, formats: ["markdown", { type: "changeTracking", modes: ["git-diff"] }] } });
      expect(ok.status).toBe(200);
      const bad = await plain.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/nollm`, formats: ["markdown", { type: "changeTracking", modes: ["json"] }] } });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as any).code).toBe("LLM_NOT_CONFIGURED");
    } finally {
      await plain.close();
    }
  });

  test("a schema Ajv refuses is a 400 naming the format by its index in formats", async () => {
    llm.reset();
    const hits = site.hits.get("/p1") ?? 0;
    const bad = { type: "object", properties: { a: { type: "nope" } } };
    const r = await scrape("/p1", ["markdown", { type: "changeTracking", modes: ["json"], schema: bad }]);
    expect(r.status).toBe(400);
    expect(r.body.error).toContain("Invalid JSON schema");
    expect(r.body.details[0].path).toEqual(["formats", 1, "schema"]);
    expect(site.hits.get("/p1") ?? 0).toBe(hits);
    expect(llm.chats()).toHaveLength(0);
  });

  test("zero data retention: no history, a warning", async () => {
    site.set("/zdr", page("ZDR", "x"));
    const r = await scrape("/zdr", ["markdown", "changeTracking"], { zeroDataRetention: true });
    if (r.status === 200) {
      expect(r.body.data.changeTracking).toBeUndefined();
      expect(r.body.data.warning).toContain("zero data retention");
    } else {
      // A build that refuses ZDR for this key refuses before scraping.
      expect(r.status).toBe(400);
    }
  });

  test("official SDK: scrape with changeTracking", async () => {
    const apiUrl = h.listen();
    const app = new Firecrawl({ apiKey: h.key, apiUrl });
    site.set("/sdk", page("SDK", "first"));
    const a = await app.scrape(`${site.url}/sdk`, { formats: ["markdown", { type: "changeTracking", modes: ["git-diff"], tag: "sdk" }] as any });
    expect((a as any).changeTracking.changeStatus).toBe("new");
    site.set("/sdk", page("SDK", "second"));
    const b = await app.scrape(`${site.url}/sdk`, { formats: ["markdown", { type: "changeTracking", modes: ["git-diff"], tag: "sdk" }] as any });
    expect((b as any).changeTracking.changeStatus).toBe("changed");
    expect((b as any).changeTracking.diff.text).toContain("+second");
  });
});
