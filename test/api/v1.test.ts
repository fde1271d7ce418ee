/**
 * The /v1 API (server/routes/v1.ts, api/v1.ts) driven by the official SDK's v1 client (`FirecrawlAppV1`, which
 * older integrations such as LangChain's loaders use): scrape with v1's formats and `extract`, crawl with
 * `ignoreSitemap` and `maxDepth` (path depth), status pages under /v1, errors, cancel, map with string links, batch
 * scrape, search results as `data`, extract, usage; and errors passing through in the /v2 envelope.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { FirecrawlAppV1 } from "@mendable/firecrawl-js";
import { crawlBodyFromV1 } from "../../src/api/v1.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { startFakeSearxng, type FakeSearxng } from "../fixtures/searxng.ts";
import { startReceiver } from "../webhooks/helpers.ts";

let site: ReturnType<typeof Bun.serve>;
let searx: FakeSearxng;
let llm: FakeLlm;
let h: Harness;
let v1: InstanceType<typeof FirecrawlAppV1>;
let base: string;

const page = (title: string, body: string) => new Response(`<html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`, { headers: { "content-type": "text/html" } });

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const p = new URL(req.url).pathname;
      // Slow enough that a crawl of it is still running when the test cancels it, however loaded the machine.
      if (p === "/slow") return Bun.sleep(3_000).then(() => page("Slow", "<p>Slow.</p>"));
      if (p === "/") return page("Home", `<p>The Kettle costs 25 EUR.</p><a href="/a">A</a> <a href="/missing">Missing</a>`);
      if (p === "/a") return page("A", `<p>Section A.</p><a href="/a/b">B</a>`);
      if (p === "/a/b") return page("B", `<p>Deep page B.</p><a href="/a/b/c">C</a>`);
      if (p === "/a/b/c") return page("C", "<p>Deeper page C.</p>");
      return new Response("not found", { status: 404 });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  searx = startFakeSearxng(() => [{ url: `${base}/a`, title: "Section A", content: "About A" }]);
  llm = startFakeLlm();
  llm.respond = (req) => {
    const text = req.messages.map((m) => m.content).join("\n");
    const products = [...text.matchAll(/The (\w+) costs (\d+) EUR/g)].map((m) => ({ name: m[1], price: Number(m[2]) }));
    return { content: JSON.stringify({ products }) };
  };
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", searxngEndpoint: searx.url });
  v1 = new FirecrawlAppV1({ apiKey: h.key, apiUrl: h.listen() });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
  searx.stop();
  llm.stop();
});

const SCHEMA = { type: "object", properties: { products: { type: "array", items: { type: "object", properties: { name: { type: "string" }, price: { type: "number" } }, required: ["name", "price"] } } }, required: ["products"] };

describe("/v1 through the SDK's v1 client", () => {
  test("scrapeUrl: v1 formats; the extract format answers under extract, with v1's schema and prompts", async () => {
    const r: any = await v1.scrapeUrl(`${base}/`, { formats: ["markdown", "links", "html"] });
    expect(r.success).toBe(true);
    expect(r.markdown).toContain("The Kettle costs 25 EUR.");
    expect(r.links).toContain(`${base}/a`);
    expect(r.html).toContain("<h1>Home</h1>");
    expect(r.metadata).toMatchObject({ title: "Home", statusCode: 200, sourceURL: `${base}/` });

    llm.reset();
    llm.respond = (req) => ({ content: JSON.stringify({ products: [...req.messages.map((m) => m.content).join("\n").matchAll(/The (\w+) costs (\d+) EUR/g)].map((m) => ({ name: m[1], price: Number(m[2]) })) }) });
    const e: any = await v1.scrapeUrl(`${base}/`, { formats: ["extract"], extract: { schema: SCHEMA as any, systemPrompt: "Be exact.", prompt: "List the products." } });
    expect(e.extract).toEqual({ products: [{ name: "Kettle", price: 25 }] });
    expect(e.json).toEqual(e.extract); // v1 clients read either
    const sent = llm.chats()[0]!;
    expect(sent.schema).toMatchObject({ required: ["products"] });
    expect(sent.messages.map((m) => m.content).join("\n")).toContain("Be exact.\n\nList the products.");
    const j: any = await v1.scrapeUrl(`${base}/`, { formats: ["json"], jsonOptions: { schema: SCHEMA as any } });
    expect(j.json).toEqual({ products: [{ name: "Kettle", price: 25 }] });

    // jsonOptions.checkPromptInjection: the page is checked first (a classifier call), then extracted.
    llm.reset();
    llm.respond = (req) =>
      req.messages[0]!.content.includes("security classifier")
        ? { content: '{"injection": false, "reason": "A shop page."}' }
        : { content: '{"products":[{"name":"Kettle","price":25}]}' };
    const checked: any = await v1.scrapeUrl(`${base}/`, { formats: ["json"], jsonOptions: { schema: SCHEMA as any, checkPromptInjection: true } as any });
    expect(checked.json).toEqual({ products: [{ name: "Kettle", price: 25 }] });
    expect(llm.chats()[0]!.messages[0]!.content).toContain("security classifier");
  });

  test("crawlUrl: ignoreSitemap and maxDepth (path depth below the start URL); status, errors (the SDK's DELETE) and cancel under /v1", async () => {
    const done: any = await v1.crawlUrl(`${base}/`, { limit: 10, ignoreSitemap: true, maxDepth: 1, scrapeOptions: { formats: ["markdown"] } }, 1);
    expect(done.status).toBe("completed");
    const paths = done.data.map((d: any) => new URL(d.metadata.sourceURL).pathname).sort();
    expect(paths).toEqual(["/", "/a", "/missing"]); // /a/b has two segments, deeper than 0 + 1 (a 404 page is a result)
    const started: any = await v1.asyncCrawlUrl(`${base}/`, { limit: 10, ignoreSitemap: true });
    expect(started.success).toBe(true);
    expect(typeof started.id).toBe("string");
    expect(started.url).toContain(`/v1/crawl/${started.id}`);
    let status: any;
    for (let i = 0; i < 200; i++) {
      status = await v1.checkCrawlStatus(started.id, false, undefined, 0, 1);
      if (status.status !== "scraping") break;
      await Bun.sleep(50);
    }
    expect(status.status).toBe("completed");
    expect(status.data).toHaveLength(1);
    expect(status.next).toContain(`/v1/crawl/${started.id}?`);
    // The SDK asks with DELETE; the answer is the errors (none: a 404 page is a result), not a cancel.
    const errors: any = await v1.checkCrawlErrors(started.id);
    expect(errors).toEqual({ errors: [], robotsBlocked: [] });
    expect(((await v1.checkCrawlStatus(started.id)) as any).status).toBe("completed");
    const other: any = await v1.asyncCrawlUrl(`${base}/slow`, { limit: 10 });
    expect(await v1.cancelCrawl(other.id)).toMatchObject({ status: "cancelled" });
  });

  test("crawlUrlAndWatch: the v1 watcher gets the crawl's documents and its end over the WebSocket", async () => {
    const watcher: any = await v1.crawlUrlAndWatch(`${base}/`, { limit: 3, ignoreSitemap: true });
    const seen: string[] = [];
    const done = await new Promise<any>((resolve, reject) => {
      watcher.addEventListener("document", (e: any) => seen.push(e.detail.metadata.sourceURL));
      watcher.addEventListener("done", (e: any) => resolve(e.detail));
      watcher.addEventListener("error", (e: any) => reject(new Error(String(e.detail.error))));
    });
    expect(done.status).toBe("completed");
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).toContain(`${base}/`);
  }, 20_000);

  test("mapUrl: links as strings; batchScrapeUrls; search results as data; extract; usage", async () => {
    const map: any = await v1.mapUrl(`${base}/`, { ignoreSitemap: true });
    expect(map.success).toBe(true);
    expect(map.links).toContain(`${base}/a`);
    expect(map.links.every((l: unknown) => typeof l === "string")).toBe(true);

    const batch: any = await v1.batchScrapeUrls([`${base}/a`, `${base}/a/b`], { formats: ["markdown"] }, 1);
    expect(batch.status).toBe("completed");
    expect(batch.data.map((d: any) => d.markdown).join("\n")).toContain("Deep page B.");

    const found: any = await v1.search("section a", { limit: 2 });
    expect(found.success).toBe(true);
    expect(found.data).toEqual([expect.objectContaining({ url: `${base}/a`, title: "Section A" })]);

    llm.reset();
    llm.respond = () => ({ content: JSON.stringify({ products: [{ name: "Kettle", price: 25 }] }) });
    const extracted: any = await v1.extract([`${base}/`], { prompt: "products", schema: SCHEMA });
    expect(extracted.success).toBe(true);
    expect(extracted.data).toEqual({ products: [{ name: "Kettle", price: 25 }] });

    const usage: any = await v1.getCreditUsage();
    expect(usage.success).toBe(true);
    expect(((await v1.getCreditUsageHistorical()) as any).success).toBe(true);
  });

  test("deepResearch (deprecated upstream): an agent run, with its activities, sources and final analysis in v1's shape", async () => {
    llm.reset();
    llm.respond = (req) => {
      const system = req.messages.find((m) => m.role === "system")?.content ?? "";
      const sent = req.messages.map((m) => m.content).join("\n");
      if (system.includes("reads web pages to complete a task")) return { content: JSON.stringify({ read: [], done: true }) };
      if (system.includes("answering the user")) return { content: `Section A is about ${/Section A\./.test(sent) ? "section A" : "nothing"}.` };
      return { content: JSON.stringify({ topic: /Section A\./.test(sent) ? "A" : "?" }) };
    };
    const activities: any[] = [];
    const sources: any[] = [];
    const done: any = await v1.deepResearch("What is section A about?", { maxUrls: 2, analysisPrompt: "Answer in one sentence." }, (a) => activities.push(a), (s) => sources.push(s));
    expect(done).toMatchObject({ success: true, status: "completed", data: { finalAnalysis: "Section A is about section A." } });
    expect(done.data.sources).toEqual([{ url: `${base}/a`, title: "A", description: "" }]);
    expect(activities.map((a) => a.type)).toEqual(expect.arrayContaining(["search", "extract", "synthesis"]));
    expect(activities.every((a) => typeof a.message === "string" && typeof a.timestamp === "string" && a.depth >= 1)).toBe(true);
    expect(sources.map((s) => s.url)).toEqual([`${base}/a`]);
    // The query and the analysis prompt both reach the model.
    const answer = llm.chats().find((c) => c.messages[0]!.content.includes("answering the user"))!;
    expect(answer.messages.map((m) => m.content).join("\n")).toContain("What is section A about?\n\nAnswer in one sentence.");

    // formats: ["json"] with a schema: the run's JSON under data.json.
    const started: any = await v1.asyncDeepResearch("What is section A about?", { formats: ["json"], jsonOptions: { schema: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] } as any } });
    let status: any;
    for (let i = 0; i < 200 && status?.status !== "completed"; i++) {
      status = await v1.checkDeepResearchStatus(started.id);
      if (status.status !== "completed") await Bun.sleep(50);
    }
    expect(status.data.json).toEqual({ topic: "A" });

    // A webhook becomes the run's: v1's events (page: a page read) delivered as the agent's.
    const hooks = startReceiver();
    try {
      const webhook = { url: `${hooks.url}/dr`, metadata: { from: "v1" }, events: ["started", "page", "completed"] };
      const bodies = () => hooks.to("/dr").map((r) => JSON.parse(r.body));
      const hooked = (await (await h.request("/v1/deep-research", { method: "POST", json: { query: "What is section A about?", maxUrls: 2, webhook } })).json()) as any;
      for (let i = 0; i < 200 && !bodies().some((b) => b.type === "agent.completed"); i++) await Bun.sleep(25);
      const mine = bodies().filter((b) => b.id === hooked.id);
      expect(mine.map((b) => b.type)).toEqual(["agent.started", "agent.action", "agent.completed"]);
      expect(mine.every((b) => b.metadata?.from === "v1")).toBe(true);
      const bad = await h.request("/v1/deep-research", { method: "POST", json: { query: "x", webhook: { url: "http://127.0.0.1:1/", events: ["sometimes"] } } });
      expect(bad.status).toBe(400);
    } finally {
      hooks.stop();
    }
    // maxDepth bounds the rounds of reading: with 1, the first reading only (the model is not asked to pick more).
    const picksBefore = llm.chats().length;
    const picks = () => llm.chats().slice(picksBefore).filter((c) => (c.messages.find((m) => m.role === "system")?.content ?? "").includes("reads web pages to complete a task")).length;
    const shallow: any = await v1.deepResearch("What is section A about?", { maxUrls: 6, maxDepth: 1, timeLimit: 60 });
    expect(shallow.status).toBe("completed");
    expect(picks()).toBe(0);
    expect(shallow.maxDepth).toBe(1);
    const deeper: any = await v1.deepResearch("What is section A about?", { maxUrls: 6, maxDepth: 3 });
    expect(deeper.status).toBe("completed");
    expect(picks()).toBeGreaterThan(0);
    expect(deeper.maxDepth).toBe(3);
    // The header carrying them to the run is checked like the body.
    expect((await h.request("/v2/agent", { method: "POST", json: { prompt: "x" }, headers: { "x-crawlbox-research-limits": '{"timeLimit":5,"maxDepth":1}' } })).status).toBe(400);

    // Bad bodies are 400s; an unknown id a 404.
    expect((await h.request("/v1/deep-research", { method: "POST", json: { query: "x", maxUrls: 0 } })).status).toBe(400);
    expect((await h.request("/v1/deep-research", { method: "POST", json: { maxUrls: 2 } })).status).toBe(400);
    expect((await h.request("/v1/deep-research", { method: "POST", json: { query: "   " } })).status).toBe(400);
    const long = await h.request("/v1/deep-research", { method: "POST", json: { query: "x", systemPrompt: "y".repeat(9_999) } });
    expect(long.status).toBe(400);
    expect(((await long.json()) as any).error).toContain("10,000 characters");
    expect((await h.request("/v1/deep-research/00000000-0000-0000-0000-000000000000")).status).toBe(404);
  }, 60_000);

  test("maxDepth counts path segments below the start URL's, before any query", () => {
    const pattern = new RegExp((crawlBodyFromV1({ url: "http://site.test/docs/", maxDepth: 1 }).excludePaths as string[])[0]!);
    expect(["/docs/", "/docs/a", "/docs/a/", "/docs/a?next=/b/c/d"].filter((p) => pattern.test(p))).toEqual([]);
    expect(["/docs/a/b", "/docs/a/b/c"].every((p) => pattern.test(p))).toBe(true);
    const full = new RegExp((crawlBodyFromV1({ url: "http://site.test/", maxDepth: 0, regexOnFullURL: true }).excludePaths as string[])[0]!);
    expect(full.test("http://site.test/a")).toBe(true);
    expect(full.test("http://site.test/?q=/a/b")).toBe(false);
  });

  test("an id is one path segment: a decoded ../ or ? in it reaches no other route", async () => {
    for (const id of ["..%2F..%2Fhealth", "..%2Fteam%2Fcredit-usage", "x%3Fskip%3D0"]) {
      const res = await h.request(`/v1/crawl/${id}`);
      expect([id, res.status]).toEqual([id, 404]);
    }
  });

  test("errors pass through in the /v2 envelope: a bad body is a 400 naming the key; an unknown crawl is a 404", async () => {
    const bad = await h.request("/v1/scrape", { method: "POST", json: { url: `${base}/`, noSuchOption: true } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ success: false, code: "BAD_REQUEST" });
    const depth = await h.request("/v1/crawl", { method: "POST", json: { url: `${base}/`, maxDepth: -1 } });
    expect(depth.status).toBe(400);
    expect((await h.request(`/v1/crawl/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await h.request("/v1/scrape", { method: "POST", json: { url: `${base}/` }, auth: "fc-wrong" })).status).toBe(401);
    // Authentication comes first, as on /v2: a wrong key with a bad body is a 401.
    expect((await h.request("/v1/crawl", { method: "POST", json: { url: `${base}/`, maxDepth: -1 }, auth: "fc-wrong" })).status).toBe(401);
    expect(((await (await h.request("/v1/crawl", { method: "POST", json: { url: `${base}/`, maxDepth: 1e20 } })).json()) as any).error).toContain("maxDepth must be an integer from 0 to 1000");
  });
});
