/**
 * The bodies the official JS SDK (@mendable/firecrawl-js 4.x, node_modules) really sends must validate.
 * Two layers: literal shapes read from its dist source (prepareCrawlPayload, startBatchScrape, …; the HTTP
 * client injects `origin: "js-sdk@<ver>"` into every POST), and the live SDK pointed at a capture server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import {
  parseScrapeBody, parseCrawlBody, parseBatchScrapeBody, parseMapBody, parseSearchBody, parseExtractBody,
  parseAgentBody, parseCrawlParamsPreviewBody,
} from "../../src/api/index.ts";

const ORIGIN = "js-sdk@4.42.0";

describe("literal SDK shapes", () => {
  test("scrape: {url, formats:[\"markdown\"], origin}", () => {
    const r = parseScrapeBody({ url: "https://example.com", formats: ["markdown"], origin: ORIGIN });
    expect(r.scrapeOptions.formats).toEqual([{ type: "markdown" }]);
    expect(r.origin).toBe(ORIGIN);
  });
  test("scrape with json and changeTracking objects", () => {
    parseScrapeBody({
      url: "https://example.com",
      formats: ["markdown", { type: "json", prompt: "extract", schema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] } }, { type: "changeTracking", modes: ["git-diff"], tag: "prod" }],
      onlyMainContent: true, timeout: 60000, waitFor: 1000, maxAge: 0, origin: ORIGIN,
    });
  });
  test("crawl: {url, limit:10, scrapeOptions:{formats:[\"markdown\"]}, origin}", () => {
    const r = parseCrawlBody({ url: "https://example.com", limit: 10, scrapeOptions: { formats: ["markdown"] }, origin: ORIGIN });
    expect(r.crawlerOptions.limit).toBe(10);
  });
  test("batch: {urls, formats, ignoreInvalidURLs:true, origin} (options flattened)", () => {
    const r = parseBatchScrapeBody({ urls: ["https://a.com", "https://b.com"], formats: ["markdown"], ignoreInvalidURLs: true, origin: ORIGIN });
    expect(r.urls).toHaveLength(2);
    expect(r.invalidURLs).toEqual([]);
  });
  test("map, search, extract, agent, params-preview", () => {
    parseMapBody({ url: "https://example.com", sitemap: "include", includeSubdomains: true, limit: 100, origin: ORIGIN });
    parseSearchBody({ query: "firecrawl", limit: 5, sources: ["web"], scrapeOptions: { formats: ["markdown"] }, origin: ORIGIN });
    parseExtractBody({ urls: ["https://example.com/*"], prompt: "p", schema: { type: "object", properties: {} }, origin: ORIGIN });
    parseAgentBody({ prompt: "find", model: "spark-1-pro", origin: ORIGIN });
    parseCrawlParamsPreviewBody({ url: "https://example.com", prompt: "blog only", origin: ORIGIN });
  });
});

describe("live SDK against a capture server", () => {
  const seen = new Map<string, unknown>();
  let server: ReturnType<typeof Bun.serve>;
  let fc: Firecrawl;

  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const path = new URL(req.url).pathname;
        seen.set(path, await req.json().catch(() => undefined));
        const doc = { markdown: "# x", metadata: { statusCode: 200, proxyUsed: "basic", sourceURL: "https://example.com" } };
        return Response.json({ success: true, id: "0198e2a4-1234-7abc-8def-0123456789ab", url: "http://x/v2/crawl/1", data: path === "/v2/search" ? { web: [] } : doc, links: [] });
      },
    });
    fc = new Firecrawl({ apiKey: "fc-test", apiUrl: `http://127.0.0.1:${server.port}` });
  });
  afterAll(() => server.stop(true));

  test("scrape", async () => {
    await fc.scrape("https://example.com", { formats: ["markdown", { type: "screenshot", fullPage: true }], onlyMainContent: false, parsers: ["pdf"] });
    const body = seen.get("/v2/scrape") as Record<string, unknown>;
    expect(body["origin"]).toMatch(/^js-sdk@/);
    expect(parseScrapeBody(body).scrapeOptions.formats).toEqual([{ type: "markdown" }, { type: "screenshot", fullPage: true }]);
  });

  test("startCrawl", async () => {
    await fc.startCrawl("https://example.com", { limit: 10, excludePaths: ["/tag/.*"], scrapeOptions: { formats: ["markdown"] }, webhook: "https://h.example.com/w" });
    expect(parseCrawlBody(seen.get("/v2/crawl")).crawlerOptions.limit).toBe(10);
  });

  test("startBatchScrape", async () => {
    await fc.startBatchScrape(["https://a.com", "not a url"], { options: { formats: ["markdown"] }, ignoreInvalidURLs: true });
    expect(parseBatchScrapeBody(seen.get("/v2/batch/scrape")).invalidURLs).toEqual(["not a url"]);
  });

  test("map, search, extract, agent, crawlParamsPreview", async () => {
    await fc.map("https://example.com", { limit: 50, sitemap: "skip", includeSubdomains: false });
    parseMapBody(seen.get("/v2/map"));
    await fc.search("firecrawl", { limit: 3, scrapeOptions: { formats: ["markdown"] } });
    parseSearchBody(seen.get("/v2/search"));
    await fc.startExtract({ urls: ["https://example.com"], prompt: "title", schema: { type: "object", properties: { t: { type: "string" } } } });
    parseExtractBody(seen.get("/v2/extract"));
    await fc.startAgent({ prompt: "find pricing", urls: ["https://example.com"] });
    parseAgentBody(seen.get("/v2/agent"));
    await fc.crawlParamsPreview("https://example.com", "only docs");
    parseCrawlParamsPreviewBody(seen.get("/v2/crawl/params-preview"));
  });
});
