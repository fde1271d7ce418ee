import { describe, expect, test } from "bun:test";
import {
  parseSearchBody, parseExtractBody, parseAgentBody, normalizeWebhook, WEBHOOK_EVENTS, validateBody, WebhookField,
  UNRECOGNIZED_KEY_MESSAGE,
} from "../../src/api/index.ts";
import { reject, paths } from "./helpers.ts";

describe("POST /v2/search body", () => {
  test("defaults: limit 10, sources web, lang en, country us, timeout 60000, no formats", () => {
    const r = parseSearchBody({ query: "firecrawl" });
    expect(r).toMatchObject({
      query: "firecrawl", limit: 10, sources: [{ type: "web" }], lang: "en", country: "us", timeout: 60000,
      ignoreInvalidURLs: false, asyncScraping: false, origin: "api",
    });
    expect(r.scrapeOptions.formats).toEqual([]);
  });
  test("country is not defaulted when location is set", () => {
    expect(parseSearchBody({ query: "q", location: "Berlin" }).country).toBeUndefined();
  });
  test("sources and categories in both forms", () => {
    const r = parseSearchBody({ query: "q", sources: ["news", { type: "web", tbs: "qdr:d" }, { type: "images" }], categories: ["github", { type: "pdf" }] });
    expect(r.sources).toEqual([{ type: "news" }, { type: "web", tbs: "qdr:d" }, { type: "images" }]);
    expect(r.categories).toEqual(["github", "pdf"]);
  });
  test.each([
    ["limit 0", { limit: 0 }, "limit"],
    ["limit 101", { limit: 101 }, "limit"],
    ["timeout 0", { timeout: 0 }, "timeout"],
    ["source unknown", { sources: ["videos"] }, "sources.0"],
    ["category unknown", { categories: ["blogs"] }, "categories.0"],
    ["format not allowed in search", { scrapeOptions: { formats: ["changeTracking"] } }, "scrapeOptions.formats.0"],
    ["format object not allowed in search", { scrapeOptions: { formats: [{ type: "attributes", selectors: [] }] } }, "scrapeOptions.formats.0.type"],
    ["empty query", { query: "" }, "query"],
  ])("rejects %s", (_n, extra, path) => {
    expect(paths(reject(parseSearchBody, { query: "q", ...extra }).issues)).toContain(path);
  });
  test("includeDomains and excludeDomains are mutually exclusive", () => {
    const e = reject(parseSearchBody, { query: "q", includeDomains: ["a.com"], excludeDomains: ["b.com"] });
    expect(e.message).toBe("includeDomains and excludeDomains cannot both be specified");
    expect(parseSearchBody({ query: "q", includeDomains: ["a.com"], excludeDomains: [] }).includeDomains).toEqual(["a.com"]);
  });
  test("developer category cannot be combined", () => {
    reject(parseSearchBody, { query: "q", categories: ["developer", "github"] });
  });
  test("search scrapeOptions accept the allowed formats and refinements apply", () => {
    const r = parseSearchBody({ query: "q", scrapeOptions: { formats: ["markdown", { type: "screenshot", fullPage: true }] } });
    expect(r.scrapeOptions.formats).toEqual([{ type: "markdown" }, { type: "screenshot", fullPage: true }]);
    expect(reject(parseSearchBody, { query: "q", scrapeOptions: { formats: ["screenshot", "screenshot"] } }).issues[0]!.path).toEqual(["scrapeOptions", "formats"]);
  });
  test("unknown key", () => {
    expect(reject(parseSearchBody, { query: "q", num_results: 3 }).message).toBe(UNRECOGNIZED_KEY_MESSAGE);
  });
});

describe("POST /v2/extract body", () => {
  test("needs urls or prompt", () => {
    expect(reject(parseExtractBody, {}).message).toBe("Either 'urls' or 'prompt' must be provided.");
    expect(reject(parseExtractBody, { urls: [] }).issues[0]!.code).toBe("custom");
    expect(parseExtractBody({ prompt: "find the CEO" }).urls).toEqual([]);
  });
  test("defaults and lenient URLs", () => {
    const r = parseExtractBody({ urls: ["example.com/*", "nope"], prompt: "p" });
    expect(r).toMatchObject({
      urls: [{ url: "http://example.com/*", sourceURL: "http://example.com/*" }], invalidURLs: ["nope"], ignoreSitemap: false,
      includeSubdomains: true, allowExternalLinks: false, enableWebSearch: false, urlTrace: false, showSources: false,
      ignoreInvalidURLs: true, origin: "api",
    });
  });
  test("enableWebSearch forces allowExternalLinks", () => {
    expect(parseExtractBody({ prompt: "p", enableWebSearch: true }).allowExternalLinks).toBe(true);
  });
  test.each([
    ["more than 10 urls", { urls: Array.from({ length: 11 }, (_, i) => `https://e${i}.com`) }, "urls", "Maximum of 10 URLs allowed per request while in beta."],
    ["prompt > 10000", { prompt: "x".repeat(10001) }, "prompt", undefined],
    ["systemPrompt > 10000", { prompt: "p", systemPrompt: "x".repeat(10001) }, "systemPrompt", undefined],
    ["timeout < 1000", { prompt: "p", timeout: 999 }, "timeout", undefined],
    ["limit 0", { prompt: "p", limit: 0 }, "limit", undefined],
  ])("rejects %s", (_n, body, path, message) => {
    const e = reject(parseExtractBody, body);
    expect(paths(e.issues)).toContain(path);
    if (message) expect(e.issues[0]!.message).toBe(message);
  });
  test("strict URLs with ignoreInvalidURLs:false", () => {
    expect(paths(reject(parseExtractBody, { urls: ["https://a.com", "ftp://b.com"], ignoreInvalidURLs: false }).issues)).toEqual(["urls.1"]);
  });
  test("__experimental_* accepted and ignored; scrapeOptions normalised", () => {
    const r = parseExtractBody({ prompt: "p", __experimental_streamSteps: true, __experimental_llmUsage: true, scrapeOptions: { formats: ["html"] } });
    expect(Object.keys(r).some((k) => k.startsWith("__"))).toBe(false);
    expect(r.scrapeOptions?.formats).toEqual([{ type: "html" }]);
  });
});

describe("POST /v2/agent body", () => {
  test("prompt required; model rewritten to spark-2", () => {
    expect(paths(reject(parseAgentBody, {}).issues)).toEqual(["prompt"]);
    const r = parseAgentBody({ prompt: "p", model: "spark-1-mini", urls: ["example.com"], origin: "js-sdk@4.42.0" });
    expect([r.model, r.urls, r.origin]).toEqual(["spark-2", ["http://example.com"], "js-sdk@4.42.0"]);
    expect(parseAgentBody({ prompt: "p" }).model).toBe("spark-2");
  });
  test.each([
    ["model unknown", { model: "gpt" }, "model"],
    ["effort unknown", { effort: "max" }, "effort"],
    ["threadId not uuid", { threadId: "t1" }, "threadId"],
    ["mode unknown", { mode: "browse" }, "mode"],
    ["bad url", { urls: ["ftp://x.com"] }, "urls.0"],
    ["agent webhook event", { webhook: { url: "https://h.com", events: ["page"] } }, "webhook.events.0"],
  ])("rejects %s", (_n, extra, path) => {
    expect(paths(reject(parseAgentBody, { prompt: "p", ...extra }).issues)).toContain(path);
  });
  test("agent webhook defaults to the agent events", () => {
    expect(parseAgentBody({ prompt: "p", webhook: "https://h.com" }).webhook?.events).toEqual(["started", "action", "completed", "failed", "cancelled"]);
  });
});

describe("webhook object", () => {
  test("a bare string becomes {url} with defaults", () => {
    const v = validateBody(WebhookField, "https://hooks.example.com/x");
    expect(normalizeWebhook(v, WEBHOOK_EVENTS, ["webhook"])).toEqual({
      webhook: { url: "https://hooks.example.com/x", headers: {}, metadata: {}, events: ["completed", "failed", "page", "started"] },
      issues: [],
    });
  });
  test("object defaults and explicit values", () => {
    const v = validateBody(WebhookField, { url: "hooks.example.com", metadata: { a: "b" } });
    expect(normalizeWebhook(v, WEBHOOK_EVENTS, []).webhook).toEqual({
      url: "http://hooks.example.com", headers: {}, metadata: { a: "b" }, events: ["completed", "failed", "page", "started"],
    });
  });
  test("only x-firecrawl-signature is refused (as upstream), case-insensitively, named in the message", () => {
    const v = validateBody(WebhookField, { url: "https://h.com", headers: { "X-Firecrawl-Signature": "s", Authorization: "Bearer x", "Content-Type": "text/plain" } });
    expect(normalizeWebhook(v, WEBHOOK_EVENTS, ["webhook"]).issues).toEqual([
      { code: "custom", path: ["webhook", "headers"], message: "The following headers are not allowed: X-Firecrawl-Signature" },
    ]);
    // The headers the sender manages are accepted here (clients send Content-Type routinely) and replaced when sent.
    const managed = { "Content-Type": "application/json", "Content-Length": "5", Host: "x", "x-firecrawl-other": "y", "webhook-id": "z" };
    expect(normalizeWebhook(validateBody(WebhookField, { url: "https://h.com", headers: managed }), WEBHOOK_EVENTS, ["webhook"])).toMatchObject({ issues: [], webhook: { headers: managed } });
  });
  test("bad URL (string and object forms), unknown keys, non-string metadata", () => {
    expect(normalizeWebhook("ftp://h.com", WEBHOOK_EVENTS, ["webhook"]).issues[0]!.path).toEqual(["webhook"]);
    expect(normalizeWebhook({ url: "nope" }, WEBHOOK_EVENTS, ["webhook"]).issues[0]!.path).toEqual(["webhook", "url"]);
    expect(() => validateBody(WebhookField, { url: "https://h.com", secret: "x" })).toThrow(UNRECOGNIZED_KEY_MESSAGE);
    expect(() => validateBody(WebhookField, { url: "https://h.com", metadata: { a: 1 } })).toThrow();
  });
});
