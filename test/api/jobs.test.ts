import { describe, expect, test } from "bun:test";
import {
  parseBatchScrapeBody, parseCrawlBody, parseCrawlParamsPreviewBody, parseStatusPagination, parseMapBody,
  UNRECOGNIZED_KEY_MESSAGE, MAX_MAP_LIMIT,
} from "../../src/api/index.ts";
import { BadRequestError } from "../../src/errors.ts";
import { reject, paths } from "./helpers.ts";

const URL = "https://example.com";

describe("POST /v2/crawl body", () => {
  test("minimal body: crawler and scrape option defaults", () => {
    const r = parseCrawlBody({ url: "example.com/docs" });
    expect(r.url).toBe("http://example.com/docs");
    expect(r.sourceURL).toBe("http://example.com/docs"); // upstream's schema prepends http:// before anything reads the field
    expect(r.crawlerOptions).toEqual({
      includePaths: [], excludePaths: [], limit: 10000, allowExternalLinks: false, allowSubdomains: false,
      ignoreRobotsTxt: false, sitemap: "include", deduplicateSimilarURLs: true, ignoreQueryParameters: false, regexOnFullURL: false,
    });
    expect(r.explicitCrawlerOptions).toEqual([]);
    expect(r.scrapeOptions.formats).toEqual([{ type: "markdown" }]);
    expect(r.scrapeOptions.onlyMainContent).toBe(true);
    expect(r.origin).toBe("api");
  });

  test("all fields accepted; explicit crawler options are listed", () => {
    const r = parseCrawlBody({
      url: URL, includePaths: ["^/blog/.*"], excludePaths: ["/tag/"], maxDiscoveryDepth: 2, limit: 5, crawlEntireDomain: true,
      allowExternalLinks: false, allowSubdomains: true, ignoreRobotsTxt: true, robotsUserAgent: "bot", sitemap: "only",
      deduplicateSimilarURLs: false, ignoreQueryParameters: true, regexOnFullURL: true, delay: 60, maxConcurrency: 2,
      zeroDataRetention: false, prompt: "only blog posts", webhook: { url: "https://hooks.example.com/x", events: ["page"] },
      scrapeOptions: { formats: ["html"], timeout: 30000 }, origin: "js-sdk@4.42.0", integration: "zapier",
    });
    expect(r.explicitCrawlerOptions).toContain("allowExternalLinks");
    expect(r.explicitCrawlerOptions).toContain("limit");
    expect(r.explicitCrawlerOptions).not.toContain("scrapeOptions" as never);
    expect(r.crawlerOptions.delay).toBe(60);
    expect(r.webhook).toEqual({ url: "https://hooks.example.com/x", headers: {}, metadata: {}, events: ["page"] });
    expect(r.prompt).toBe("only blog posts");
    // `limit` is a number upstream (api-v2.md §2.5): a fraction is floored, not refused.
    expect(parseCrawlBody({ url: URL, limit: 2.5 }).crawlerOptions.limit).toBe(2);
  });

  test.each([
    ["delay 0", { delay: 0 }, "delay"],
    ["limit 0", { limit: 0 }, "limit"],
    ["maxConcurrency 0", { maxConcurrency: 0 }, "maxConcurrency"],
    ["sitemap unknown", { sitemap: "never" }, "sitemap"],
    ["prompt > 10000", { prompt: "x".repeat(10001) }, "prompt"],
    ["maxDiscoveryDepth negative", { maxDiscoveryDepth: -1 }, "maxDiscoveryDepth"],
    ["scrapeOptions bound", { scrapeOptions: { waitFor: 70000 } }, "scrapeOptions.waitFor"],
  ])("rejects %s", (_n, extra, path) => {
    expect(paths(reject(parseCrawlBody, { url: URL, ...extra }).issues)).toContain(path);
  });

  test("delay above 60 s has upstream's message", () => {
    expect(reject(parseCrawlBody, { url: URL, delay: 61 }).issues[0]!.message).toBe(
      "The delay parameter is measured in seconds and cannot exceed 60 seconds.",
    );
  });

  test("unknown keys rejected at top level and inside scrapeOptions", () => {
    let e = reject(parseCrawlBody, { url: URL, maxDepth: 2 });
    expect(e.message).toBe(UNRECOGNIZED_KEY_MESSAGE);
    expect(e.issues[0]).toMatchObject({ path: [], keys: ["maxDepth"] });
    e = reject(parseCrawlBody, { url: URL, scrapeOptions: { url: URL } });
    expect(e.issues[0]).toMatchObject({ path: ["scrapeOptions"], keys: ["url"] });
  });

  test("scrapeOptions refinements apply with the nested path", () => {
    const e = reject(parseCrawlBody, { url: URL, scrapeOptions: { timeout: 2000, waitFor: 1500 } });
    expect(e.issues[0]).toEqual({ code: "custom", path: ["scrapeOptions", "waitFor"], message: "waitFor must not exceed half of timeout" });
  });

  test("include/exclude regexes must compile; the error message is the RegExp's", () => {
    const e = reject(parseCrawlBody, { url: URL, includePaths: ["ok/.*", "(("], excludePaths: ["["] });
    let expected = "";
    try { new RegExp("(("); } catch (x) { expected = (x as Error).message; }
    expect(e.message).toBe(expected);
    expect(paths(e.issues)).toEqual(["includePaths.1", "excludePaths.0"]);
    // A pattern of the matcher's own syntax (RE2, as upstream's Rust regex) is accepted though JavaScript refuses it.
    expect(parseCrawlBody({ url: URL, includePaths: ["(?i)^/blog/"], excludePaths: ["^/(?!x)"] }).crawlerOptions.includePaths).toEqual(["(?i)^/blog/"]);
  });

  test("include/exclude patterns are bounded: at most 1000 of each, each at most 2048 characters", () => {
    const many = Array.from({ length: 1001 }, (_, i) => `^/p${i}/`);
    expect(paths(reject(parseCrawlBody, { url: URL, includePaths: many }).issues)).toEqual(["includePaths"]);
    expect(paths(reject(parseCrawlBody, { url: URL, excludePaths: ["^/" + "a".repeat(2047)] }).issues)).toEqual(["excludePaths.0"]);
    expect(parseCrawlBody({ url: URL, includePaths: many.slice(0, 1000), excludePaths: ["^/" + "a".repeat(2046)] }).crawlerOptions.includePaths).toHaveLength(1000);
  });

  test("params-preview: {url, prompt, origin}", () => {
    expect(parseCrawlParamsPreviewBody({ url: "example.com", prompt: "docs only", origin: "js-sdk@4.42.0" })).toEqual({
      url: "http://example.com", sourceURL: "http://example.com", prompt: "docs only", origin: "js-sdk@4.42.0",
    });
    expect(paths(reject(parseCrawlParamsPreviewBody, { url: URL }).issues)).toEqual(["prompt"]);
    expect(reject(parseCrawlParamsPreviewBody, { url: URL, prompt: "p", limit: 1 }).issues[0]!.keys).toEqual(["limit"]);
  });
});

describe("crawl/batch status pagination", () => {
  test("defaults and valid values", () => {
    expect(parseStatusPagination({})).toEqual({ skip: 0 });
    expect(parseStatusPagination({ skip: "10", limit: "1000", other: "x" })).toEqual({ skip: 10, limit: 1000 });
  });
  test.each([{ skip: "-1" }, { skip: "1.5" }, { skip: "abc" }, { limit: "0" }, { limit: "1001" }, { limit: "1e3" }, { limit: "" }])(
    "rejects %p",
    (q) => {
      expect(() => parseStatusPagination(q)).toThrow(BadRequestError);
      try { parseStatusPagination(q); } catch (e) { expect((e as Error).message).toStartWith("Invalid pagination: "); }
    },
  );
});

describe("POST /v2/batch/scrape body", () => {
  test("flattened scrape options, defaults, invalidURLs kept verbatim", () => {
    const r = parseBatchScrapeBody({ urls: ["example.com", "nope", "ftp://x.com", "https://b.com/Q?x=1"], formats: ["markdown"] });
    expect(r.urls).toEqual([
      { url: "http://example.com", sourceURL: "http://example.com" },
      { url: "https://b.com/Q?x=1", sourceURL: "https://b.com/Q?x=1" },
    ]);
    expect(r.invalidURLs).toEqual(["nope", "ftp://x.com"]);
    expect(r.ignoreInvalidURLs).toBe(true);
    expect(r.scrapeOptions.formats).toEqual([{ type: "markdown" }]);
    expect(r.scrapeOptions.blockAds).toBe(true);
  });

  test("ignoreInvalidURLs:false turns bad URLs into issues; no invalidURLs field otherwise", () => {
    const e = reject(parseBatchScrapeBody, { urls: ["https://a.com", "ftp://x.com"], ignoreInvalidURLs: false });
    expect(e.issues).toEqual([{ code: "custom", path: ["urls", 1], message: "URL uses unsupported protocol" }]);
    expect(parseBatchScrapeBody({ urls: ["https://a.com"], ignoreInvalidURLs: false }).invalidURLs).toBeUndefined();
  });

  test("every URL invalid: 400 'No valid URLs provided' instead of an empty batch", () => {
    const e = reject(parseBatchScrapeBody, { urls: ["nope", "ftp://x.com"] });
    expect(e.message).toBe("No valid URLs provided");
    expect(e.issues).toEqual([{ code: "custom", path: ["urls"], message: "No valid URLs provided" }]);
  });

  test("urls: at least one", () => {
    expect(reject(parseBatchScrapeBody, { urls: [] }).issues[0]).toMatchObject({ code: "too_small", path: ["urls"] });
  });

  test.each([
    ["appendToId not a uuid", { appendToId: "abc" }, "appendToId"],
    ["maxConcurrency 0", { maxConcurrency: 0 }, "maxConcurrency"],
    ["webhook events unknown", { webhook: { url: "https://h.com", events: ["done"] } }, "webhook.events.0"],
  ])("rejects %s", (_n, extra, path) => {
    expect(paths(reject(parseBatchScrapeBody, { urls: [URL], ...extra }).issues)).toContain(path);
  });

  test("all batch fields accepted", () => {
    const r = parseBatchScrapeBody({
      urls: [URL], webhook: "https://h.example.com/w", appendToId: "0198e2a4-1234-7abc-8def-0123456789ab", maxConcurrency: 3,
      zeroDataRetention: true, integration: null, origin: "js-sdk@4.42.0", onlyMainContent: false,
    });
    expect(r.webhook?.events).toEqual(["completed", "failed", "page", "started"]);
    expect(r.appendToId).toBe("0198e2a4-1234-7abc-8def-0123456789ab");
    expect(r.scrapeOptions.onlyMainContent).toBe(false);
    expect(r.integration).toBeNull();
  });

  test("unknown keys (a nested scrapeOptions object is not a batch field)", () => {
    expect(reject(parseBatchScrapeBody, { urls: [URL], scrapeOptions: {} }).issues[0]!.keys).toEqual(["scrapeOptions"]);
  });
});

describe("POST /v2/map body", () => {
  test("defaults (ignoreQueryParameters true, unlike crawl)", () => {
    const r = parseMapBody({ url: "example.com" });
    expect(r).toMatchObject({
      url: "http://example.com", sourceURL: "http://example.com", includeSubdomains: true, ignoreQueryParameters: true,
      sitemap: "include", limit: 5000, filterByPath: true, useIndex: true, ignoreCache: false, origin: "api",
      includePaths: [], excludePaths: [], allowExternalLinks: false,
    });
  });
  test.each([
    ["limit 0", { limit: 0 }],
    ["limit above MAX_MAP_LIMIT", { limit: MAX_MAP_LIMIT + 1 }],
    ["timeout 0", { timeout: 0 }],
    ["sitemap unknown", { sitemap: "never" }],
    ["unknown key", { formats: ["markdown"] }],
  ])("rejects %s", (_n, extra) => {
    reject(parseMapBody, { url: URL, ...extra });
  });
  test("accepts limit MAX_MAP_LIMIT, search, location, headers and SDK cloud fields", () => {
    const r = parseMapBody({
      url: URL, limit: MAX_MAP_LIMIT, search: "docs", location: { country: "de" }, headers: { a: "b" },
      threatProtection: { failurePolicy: "open" }, auditMetadata: { username: "u" }, integration: "x", origin: "js-sdk@4.42.0",
    });
    expect([r.limit, r.search, r.location, r.headers]).toEqual([MAX_MAP_LIMIT, "docs", { country: "de" }, { a: "b" }]);
    expect("threatProtection" in r).toBe(false);
  });
});
