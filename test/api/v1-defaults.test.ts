/**
 * /v1's own defaults and routes where they differ from /v2's (upstream's apps/api/src/controllers/v1/types.ts and
 * v1 routes): a fresh fetch (`maxAge` 0) with certificates verified (`skipTlsVerification` false) unless asked
 * otherwise, search's 5 results, extract's `schema: null` (the Python SDK's v1 `extract` sends it), a batch id
 * cancelled and its errors read at /v1/crawl/{id} (the JS v1 SDK's `cancelCrawl` is its only cancel), and v1's
 * wording of the unknown-key 400.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { FirecrawlAppV1 } from "@mendable/firecrawl-js";
import { batchBodyFromV1, crawlBodyFromV1, extractBodyFromV1, scrapeBodyFromV1, searchBodyFromV1 } from "../../src/api/v1.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";
import { startFakeSearxng, type FakeSearxng } from "../fixtures/searxng.ts";
import { startTlsServer, type FixtureServer } from "../fixtures/servers.ts";

let site: ReturnType<typeof Bun.serve>;
let tlsSite: FixtureServer;
let searx: FakeSearxng;
let llm: FakeLlm;
let h: Harness;
let v1: InstanceType<typeof FirecrawlAppV1>;
let base: string;
let visits = 0;

const page = (title: string, body: string) => new Response(`<html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`, { headers: { "content-type": "text/html" } });

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const p = new URL(req.url).pathname;
      if (p === "/") return page("Home", "<p>The Kettle costs 25 EUR.</p>");
      if (p === "/count") return page("Count", `<p>Visit number ${++visits}.</p>`);
      // Slow enough that a batch of it is still running when the test cancels it, however loaded the machine.
      if (p === "/slow") return Bun.sleep(3_000).then(() => page("Slow", "<p>Slow.</p>"));
      return new Response("not found", { status: 404 });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  tlsSite = await startTlsServer(() => page("Secure", "<p>Self-signed.</p>"));
  searx = startFakeSearxng(() => Array.from({ length: 8 }, (_, i) => ({ url: `${base}/r${i}`, title: `Result ${i}`, content: `About ${i}` })));
  llm = startFakeLlm();
  llm.respond = () => ({ content: JSON.stringify({ title: "Home" }) });
  h = await createHarness({ ollamaBaseUrl: llm.url, modelName: "test-model", searxngEndpoint: searx.url });
  v1 = new FirecrawlAppV1({ apiKey: h.key, apiUrl: h.listen() });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
  await tlsSite.stop();
  searx.stop();
  llm.stop();
});

const post = async (path: string, json: unknown) => {
  const res = await h.request(path, { method: "POST", json });
  return { status: res.status, body: (await res.json()) as any };
};

describe("/v1 defaults and routes as upstream's v1", () => {
  test("extract with a prompt and schema: null (the Python SDK's v1 body) starts a job; a falsy schema is no schema", async () => {
    // What firecrawl-py's v1 FirecrawlApp.extract(urls, prompt=…) posts: every key, schema None.
    const python = { urls: [`${base}/`], allowExternalLinks: false, enableWebSearch: false, showSources: false, schema: null, origin: "python-sdk@2.16.0", prompt: "get title" };
    const started = await post("/v1/extract", python);
    expect([started.status, started.body]).toEqual([200, expect.objectContaining({ success: true, id: expect.any(String) })]);
    let job: any;
    for (let i = 0; i < 200 && job?.status !== "completed" && job?.status !== "failed"; i++) {
      job = (await (await h.request(`/v1/extract/${started.body.id}`)).json()) as any;
      if (job.status !== "completed") await Bun.sleep(25);
    }
    expect([job.status, job.data]).toEqual(["completed", { title: "Home" }]);
    // Upstream's refine let any falsy schema through as none; a real schema is still checked.
    for (const schema of [false, 0, ""]) expect((await post("/v1/extract", { ...python, schema })).status).toBe(200);
    expect(extractBodyFromV1(python)).not.toHaveProperty("schema");
    expect((await post("/v1/extract", { ...python, schema: "not a schema" })).status).toBe(400);
    // /v2's contract is unchanged: schema must be an object there.
    expect((await post("/v2/extract", { urls: [`${base}/`], prompt: "get title", schema: null })).status).toBe(400);
  });

  test("a /v1 scrape fetches fresh unless maxAge is given (v1's maxAge default is 0), as do batch, crawl, search and extract", async () => {
    const url = `${base}/count`;
    const first = await post("/v2/scrape", { url }); // cached, for /v2's 2-day default
    expect(first.body.data.markdown).toContain("Visit number 1.");
    expect((await post("/v2/scrape", { url })).body.data.metadata.cacheState).toBe("hit");
    const fresh = await post("/v1/scrape", { url });
    expect([fresh.body.data.metadata.cacheState, fresh.body.data.markdown]).toEqual(["miss", expect.stringContaining("Visit number 2.")]);
    const sdk: any = await v1.scrapeUrl(url, { formats: ["markdown"] });
    expect([sdk.metadata.cacheState, sdk.markdown]).toEqual(["miss", expect.stringContaining("Visit number 3.")]);
    const cached = await post("/v1/scrape", { url, maxAge: 3_600_000 });
    expect([cached.body.data.metadata.cacheState, cached.body.data.markdown]).toEqual(["hit", expect.stringContaining("Visit number 3.")]);
    const batch: any = await v1.batchScrapeUrls([url], { formats: ["markdown"] }, 1);
    expect(batch.data[0].markdown).toContain("Visit number 4.");
    // Every body that carries scrape options gets v1's default; one given is kept.
    expect(scrapeBodyFromV1({ url }).maxAge).toBe(0);
    expect(scrapeBodyFromV1({ url, maxAge: 5 }).maxAge).toBe(5);
    expect(batchBodyFromV1({ urls: [url] }).maxAge).toBe(0);
    expect((crawlBodyFromV1({ url }).scrapeOptions as any).maxAge).toBe(0);
    expect((crawlBodyFromV1({ url, scrapeOptions: { formats: ["html"] } }).scrapeOptions as any).maxAge).toBe(0);
    expect((searchBodyFromV1({ query: "q" }).scrapeOptions as any).maxAge).toBe(0);
    expect((extractBodyFromV1({ urls: [url], prompt: "p" }).scrapeOptions as any).maxAge).toBe(0);
    expect((extractBodyFromV1({ urls: [url], prompt: "p", scrapeOptions: { maxAge: 7 } }).scrapeOptions as any).maxAge).toBe(7);
  });

  test("a /v1 scrape verifies certificates unless skipTlsVerification is true (v1's default is false), as do batch, crawl, search and extract", async () => {
    const url = `${tlsSite.url}/`;
    const refused = await post("/v1/scrape", { url });
    expect([refused.status, refused.body.code]).toEqual([refused.status, "SCRAPE_SSL_ERROR"]);
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const skipped = await post("/v1/scrape", { url, skipTlsVerification: true });
    expect([skipped.status, skipped.body.data.markdown]).toEqual([200, expect.stringContaining("Self-signed.")]);
    // The copy fetched without verification (now cached) is not served to a request that verifies.
    const again = await post("/v1/scrape", { url, maxAge: 3_600_000 });
    expect([again.status, again.body.code]).toEqual([refused.status, "SCRAPE_SSL_ERROR"]);
    expect(scrapeBodyFromV1({ url }).skipTlsVerification).toBe(false);
    expect(batchBodyFromV1({ urls: [url] }).skipTlsVerification).toBe(false);
    expect((crawlBodyFromV1({ url }).scrapeOptions as any).skipTlsVerification).toBe(false);
    expect((searchBodyFromV1({ query: "q", scrapeOptions: { formats: ["markdown"] } }).scrapeOptions as any).skipTlsVerification).toBe(false);
    expect((extractBodyFromV1({ urls: [url], prompt: "p" }).scrapeOptions as any).skipTlsVerification).toBe(false);
  });

  test("a /v1 search without limit answers 5 results (v1's default); a limit given is kept", async () => {
    // The Python SDK's v1 search sends no limit unless given (the JS SDK's sends 5 itself).
    const five = await post("/v1/search", { query: "results", origin: "python-sdk@2.16.0" });
    expect([five.status, five.body.data.length]).toEqual([200, 5]);
    const seven = await post("/v1/search", { query: "results", limit: 7 });
    expect(seven.body.data).toHaveLength(7);
    expect((await post("/v2/search", { query: "results" })).body.data.web).toHaveLength(8); // /v2's default is 10
  });

  test("a batch id at /v1/crawl/{id}: cancelCrawl cancels it, and its errors are read with GET or DELETE, as a crawl's", async () => {
    const batch: any = await v1.asyncBatchScrapeUrls([`${base}/slow`, `${base}/missing`], { formats: ["markdown"] });
    expect(batch.success).toBe(true);
    for (const method of ["GET", "DELETE"]) {
      const res = await h.request(`/v1/crawl/${batch.id}/errors`, { method });
      expect([method, res.status, await res.json()]).toEqual([method, 200, { errors: expect.any(Array), robotsBlocked: [] }]);
    }
    expect(await v1.checkCrawlErrors(batch.id)).toEqual({ errors: expect.any(Array), robotsBlocked: [] });
    expect((await v1.cancelCrawl(batch.id)) as unknown).toEqual({ status: "cancelled" });
    const status: any = await v1.checkBatchScrapeStatus(batch.id);
    expect(status.status).toBe("cancelled");
    // An unknown id is still the crawl route's 404, for each of them.
    const unknown = crypto.randomUUID();
    for (const [method, path] of [["DELETE", ""], ["GET", "/errors"], ["DELETE", "/errors"]]) {
      expect([method, path, (await h.request(`/v1/crawl/${unknown}${path}`, { method })).status]).toEqual([method, path, 404]);
    }
  });

  test("an unknown key is refused with v1's wording on /v1 (upstream: 'v1 API documentation'), /v2's on /v2", async () => {
    const V1 = "Unrecognized key in body -- please review the v1 API documentation for request body changes";
    const V2 = "Unrecognized key in body -- please review the v2 API documentation for request body changes";
    const cases: [string, Record<string, unknown>][] = [
      ["/v1/scrape", { url: `${base}/`, foo: 1 }],
      ["/v1/crawl", { url: `${base}/`, scrapeOptions: { foo: 1 } }],
      ["/v1/batch/scrape", { urls: [`${base}/`], foo: 1 }],
      ["/v1/search", { query: "q", foo: 1 }],
      ["/v1/extract", { urls: [`${base}/`], prompt: "p", foo: 1 }],
      ["/v1/map", { url: `${base}/`, foo: 1 }],
    ];
    for (const [path, body] of cases) {
      const r = await post(path, body);
      expect([path, r.status, JSON.stringify(r.body).includes(V1), JSON.stringify(r.body).includes("v2 API")]).toEqual([path, 400, true, false]);
      expect(r.body.details).toContainEqual(expect.objectContaining({ code: "unrecognized_keys", keys: ["foo"], message: V1 }));
    }
    const v2 = await post("/v2/scrape", { url: `${base}/`, foo: 1 });
    expect([v2.status, v2.body.details[0].message]).toEqual([400, V2]);
  });
});
