/**
 * The /v1 details that follow upstream's v1 schemas and controllers (firecrawl apps/api/src/controllers/v1),
 * driven by the SDK's v1 client (`FirecrawlAppV1`) where it has a method for them: usage in v1's snake_case
 * shapes, the crawl WebSocket for batches, the deprecated `geolocation`, map's crawler options, concurrency-check,
 * the extract/json format rules, crawl's `maxDepth` default and start-URL check, and extract's strict URLs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { FirecrawlAppV1 } from "@mendable/firecrawl-js";
import { crawlBodyFromV1, mapBodyFromV1 } from "../../src/api/v1.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";

let site: ReturnType<typeof Bun.serve>;
let llm: FakeLlm;
let h: Harness;
let v1: InstanceType<typeof FirecrawlAppV1>;
let base: string;

const page = (title: string, body: string) => new Response(`<html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`, { headers: { "content-type": "text/html" } });

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const p = new URL(req.url).pathname;
      if (p === "/") return page("Home", `<p>The Kettle costs 25 EUR.</p><a href="/a">A</a>`);
      if (p === "/a") return page("A", `<p>Section A.</p><a href="/a/b">B</a>`);
      if (p === "/a/b") return page("B", `<p>Deep page B.</p><a href="/a/b/c">C</a>`);
      if (p === "/a/b/c") return page("C", "<p>Deeper page C.</p>");
      if (p === "/lang") return page("Lang", `<p>Languages: ${req.headers.get("accept-language")}.</p>`);
      return new Response("not found", { status: 404 });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  llm = startFakeLlm();
  llm.respond = () => ({ content: JSON.stringify({ products: [{ name: "Kettle", price: 25 }] }) });
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model" });
  v1 = new FirecrawlAppV1({ apiKey: h.key, apiUrl: h.listen() });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
  llm.stop();
});

const SCHEMA = { type: "object", properties: { products: { type: "array", items: { type: "object", properties: { name: { type: "string" }, price: { type: "number" } } } } } };

const post = async (path: string, json: unknown) => {
  const res = await h.request(path, { method: "POST", json });
  return { status: res.status, body: (await res.json()) as any };
};

describe("/v1 as upstream's v1", () => {
  test("getCreditUsage / getTokenUsage answer v1's snake_case shapes", async () => {
    const credits: any = await v1.getCreditUsage();
    expect(credits).toEqual({ success: true, data: { remaining_credits: expect.any(Number), plan_credits: expect.any(Number), billing_period_start: null, billing_period_end: null } });
    const tokens: any = await v1.getTokenUsage();
    expect(tokens).toEqual({ success: true, data: { remaining_tokens: expect.any(Number), plan_tokens: expect.any(Number), billing_period_start: null, billing_period_end: null } });
  });

  /** Everything a v1 watcher reports until its end: the documents, and the end's detail. */
  const watch = (watcher: any) =>
    new Promise<{ docs: any[]; done: any }>((resolve, reject) => {
      const docs: any[] = [];
      watcher.addEventListener("document", (e: any) => docs.push(e.detail));
      watcher.addEventListener("done", (e: any) => resolve({ docs, done: e.detail }));
      watcher.addEventListener("error", (e: any) => reject(new Error(String(e.detail.error))));
    });
  const KETTLE = { products: [{ name: "Kettle", price: 25 }] };

  test("batchScrapeUrlsAndWatch: the socket on /v1/crawl/{id} watches a batch; the documents are v1's (the JSON under extract too)", async () => {
    const batch = await watch(await v1.batchScrapeUrlsAndWatch([`${base}/`, `${base}/a`], { formats: ["extract"], extract: { schema: SCHEMA as any } }));
    expect(batch.done.status).toBe("completed");
    expect(batch.docs.map((d) => d.metadata.sourceURL).sort()).toEqual([`${base}/`, `${base}/a`]);
    for (const d of batch.docs) expect([d.metadata.sourceURL, d.extract, d.json]).toEqual([d.metadata.sourceURL, KETTLE, KETTLE]);

    const crawl = await watch(await v1.crawlUrlAndWatch(`${base}/`, { limit: 2, ignoreSitemap: true, scrapeOptions: { formats: ["extract"], extract: { schema: SCHEMA } } as any }));
    expect(crawl.done.status).toBe("completed");
    expect(crawl.docs.length).toBeGreaterThan(0);
    for (const d of crawl.docs) expect(d.extract).toEqual(KETTLE);
  }, 20_000);

  test("the deprecated geolocation is location (scrape, batch, crawl's scrapeOptions); a location given beside it wins", async () => {
    const geolocation = { country: "DE", languages: ["de-DE"] };
    const scraped: any = await v1.scrapeUrl(`${base}/lang`, { formats: ["markdown"], geolocation } as any);
    expect(scraped.markdown).toContain("Languages: de-DE.");
    const both: any = await v1.scrapeUrl(`${base}/lang`, { formats: ["markdown"], geolocation, location: { country: "FR", languages: ["fr-FR"] } } as any);
    expect(both.markdown).toContain("Languages: fr-FR.");
    const batch: any = await v1.batchScrapeUrls([`${base}/lang`], { formats: ["markdown"], geolocation } as any, 1);
    expect(batch.data[0].markdown).toContain("Languages: de-DE.");
    const crawl: any = await v1.crawlUrl(`${base}/lang`, { limit: 1, scrapeOptions: { formats: ["markdown"], geolocation } as any }, 1);
    expect(crawl.data[0].markdown).toContain("Languages: de-DE.");
    const bad = await post("/v1/scrape", { url: `${base}/lang`, geolocation: { country: "XX" } });
    expect([bad.status, bad.body.error]).toEqual([400, "Invalid country code. Please use a valid ISO 3166-1 alpha-2 country code."]);
  }, 20_000); // /v1 fetches fresh (maxAge 0), so the SDK's batch and crawl waits poll at least once (2 s each)

  test("mapUrl takes v1's crawler options: maxDepth and allowBackwardLinks as a crawl's, useMock dropped", async () => {
    const all: any = await v1.mapUrl(`${base}/`, { ignoreSitemap: true });
    expect(all.links).toContain(`${base}/a/b/c`);
    const options = {
      maxDepth: 1,
      maxDiscoveryDepth: 5,
      allowBackwardLinks: true,
      allowExternalLinks: false,
      allowSubdomains: false,
      ignoreRobotsTxt: false,
      deduplicateSimilarURLs: true,
      regexOnFullURL: false,
      delay: 0.01,
      includePaths: [],
      excludePaths: [],
      ignoreSitemap: true,
      sitemapOnly: false,
      ignoreQueryParameters: true,
      includeSubdomains: true,
      filterByPath: true,
      useIndex: true,
      ignoreCache: false,
      useMock: "none",
      limit: 100,
      timeout: 10_000,
    };
    const shallow: any = await v1.mapUrl(`${base}/`, options as any);
    expect(shallow.success).toBe(true);
    expect(shallow.links.map((l: string) => new URL(l).pathname).sort()).toEqual(["/", "/a"]);
    expect(mapBodyFromV1({ url: `${base}/a`, allowBackwardLinks: true })).toEqual({ url: `${base}/a`, crawlEntireDomain: true });
  });

  test("GET /v1/concurrency-check answers upstream's {success, concurrency, maxConcurrency}", async () => {
    const res = await h.request("/v1/concurrency-check");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, concurrency: expect.any(Number), maxConcurrency: expect.any(Number) });
    expect((await h.request("/v1/concurrency-check", { auth: "fc-wrong" })).status).toBe(401);
  });

  test("the extract and json formats need their options and the options their formats, wherever v1 takes scrape options (upstream's extractRefine)", async () => {
    const MESSAGE = "When 'extract' or 'json' format is specified, corresponding options must be provided, and vice versa";
    const refused: [string, Record<string, unknown>][] = [
      ["/v1/scrape", { url: `${base}/`, formats: ["extract"] }],
      ["/v1/scrape", { url: `${base}/`, formats: ["json"] }],
      ["/v1/scrape", { url: `${base}/`, formats: ["markdown"], extract: { prompt: "products" } }],
      ["/v1/scrape", { url: `${base}/`, jsonOptions: { prompt: "products" } }],
      ["/v1/scrape", { url: `${base}/`, formats: ["extract"], jsonOptions: { prompt: "products" } }],
      ["/v1/scrape", { url: `${base}/`, formats: ["json"], extract: { prompt: "products" } }],
      ["/v1/batch/scrape", { urls: [`${base}/`], formats: ["json"] }],
      ["/v1/crawl", { url: `${base}/`, scrapeOptions: { formats: ["extract"] } }],
      ["/v1/search", { query: "kettle", scrapeOptions: { formats: ["markdown"], jsonOptions: { prompt: "products" } } }],
      ["/v1/extract", { urls: [`${base}/`], prompt: "products", scrapeOptions: { formats: ["json"] } }],
    ];
    for (const [path, body] of refused) {
      const r = await post(path, body);
      expect([path, body, r.status, r.body.error]).toEqual([path, body, 400, MESSAGE]);
    }
    const both = await post("/v1/scrape", { url: `${base}/`, formats: ["extract", "json"], extract: { schema: SCHEMA }, jsonOptions: { schema: SCHEMA } });
    expect([both.status, both.body.data.extract]).toEqual([200, KETTLE]);
  });

  test("crawl's maxDepth is 10 unless given, and a start URL deeper than maxDepth is upstream's 400", async () => {
    const pattern = new RegExp((crawlBodyFromV1({ url: "http://site.test/" }).excludePaths as string[])[0]!);
    expect(pattern.test(`/${"s/".repeat(9)}s`)).toBe(false); // 10 segments
    expect(pattern.test(`/${"s/".repeat(10)}s`)).toBe(true); // 11
    const MESSAGE = "URL depth exceeds the specified maxDepth";
    const deep = await post("/v1/crawl", { url: `${base}/${"s/".repeat(10)}s`, limit: 1 });
    expect([deep.status, deep.body.error]).toEqual([400, MESSAGE]);
    const tooDeep = await post("/v1/crawl", { url: `${base}/a/b`, maxDepth: 1, limit: 1 });
    expect([tooDeep.status, tooDeep.body.error]).toEqual([400, MESSAGE]);
    const within = await post("/v1/crawl", { url: `${base}/a`, maxDepth: 1, limit: 1 });
    expect(within.status).toBe(200);
  });

  test("extract: an invalid URL is a 400, as upstream's v1 schema validates every URL (v1's ignoreInvalidURLs is false by default)", async () => {
    const r = await post("/v1/extract", { urls: ["not a url", `${base}/`], prompt: "products" });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, details: [expect.objectContaining({ path: ["urls", 0] })] });
    const lenient = await post("/v1/extract", { urls: ["not a url", `${base}/`], prompt: "products", ignoreInvalidURLs: true });
    expect(lenient.status).toBe(400);
    expect((await post("/v1/extract", { urls: [`${base}/`], prompt: "products", ignoreInvalidURLs: "yes" })).status).toBe(400);
  });

  test("batch scrape: an invalid URL is a 400 unless ignoreInvalidURLs is true (v1's default is false)", async () => {
    const strict = await post("/v1/batch/scrape", { urls: ["not a url", `${base}/`] });
    expect(strict.status).toBe(400);
    const lenient = await post("/v1/batch/scrape", { urls: ["not a url", `${base}/`], ignoreInvalidURLs: true });
    expect([lenient.status, lenient.body.invalidURLs]).toEqual([200, ["not a url"]]);
    expect(lenient.body.url).toContain(`/v1/batch/scrape/${lenient.body.id}`);
  });
});
