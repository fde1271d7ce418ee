/**
 * `POST /v2/search`'s failures: an empty result, the backend's failures and the timeout, bad input, a spent
 * quota, concurrent searches on the last credits, and the unconfigured 400.
 * The SearXNG instance is a local fake (search-site.ts, fake-searxng.ts).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { useSearchApi } from "./search-site.ts";

const api = useSearchApi();
let h: Harness;
beforeAll(() => ({ h } = api));
const { asked } = api;
const search = (body: Record<string, unknown>, harness?: Harness) => api.search(body, harness);

describe("POST /v2/search", () => {
  test("an empty result is a success with upstream's warning", async () => {
    const { body } = await search({ query: "x", includeDomains: ["nowhere.test"], limit: 3 });
    expect(body).toMatchObject({ success: true, data: { web: [] }, warning: "No search results found", creditsUsed: 0 });
  });

  test("backend failures are clear 500s; the timeout is a 408", async () => {
    api.mode = "no-json";
    let r = await search({ query: "x" });
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({ success: false, code: "SEARCH_BACKEND_ERROR" });
    expect(r.body.error).toContain("settings.yml");
    expect(r.body.error).not.toContain(String(api.searxPort)); // the operator's address stays in the server log
    api.mode = "html";
    r = await search({ query: "x" });
    expect(r.body).toMatchObject({ code: "SEARCH_BACKEND_ERROR" });
    expect(r.body.error).toContain("SEARXNG_ENDPOINT");
    api.mode = "slow";
    const started = performance.now();
    r = await search({ query: "x", timeout: 1000 });
    expect(r.status).toBe(408);
    expect(r.body).toMatchObject({ success: false, code: "SEARCH_TIMEOUT" });
    expect(performance.now() - started).toBeLessThan(2500);
    api.mode = "ok";
  });

  test("bad input and a spent quota are refused before SearXNG is asked", async () => {
    const before = asked.length;
    // Upstream's search controller answers its own validation errors: "Invalid request body", the issues in details.
    const empty = await search({ query: "" });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ success: false, code: "BAD_REQUEST", error: "Invalid request body" });
    expect(empty.body.details.map((i: any) => i.path)).toContainEqual(["query"]);
    const unknown = await search({ query: "x", num_results: 3 });
    expect(unknown.body).toMatchObject({ success: false, code: "BAD_REQUEST", error: "Invalid request body", details: [{ code: "unrecognized_keys", keys: ["num_results"] }] });
    const both = await search({ query: "x", includeDomains: ["a.com"], excludeDomains: ["b.com"] });
    expect(both.body).toMatchObject({ error: "Invalid request body", details: [{ message: "includeDomains and excludeDomains cannot both be specified" }] });
    expect((await search({ query: "x", limit: 101 })).status).toBe(400);
    expect((await search({ query: "x", scrapeOptions: { formats: ["changeTracking"] } })).status).toBe(400);
    expect((await search({ query: "x", categories: ["gov", "pdf"] })).body.details[0].message).toBe("The gov category cannot be combined with other categories");
    // Firecrawl Exchange (the Firecrawl MCP server's default sources: ["web", "alexandria"]): upstream's answer for a
    // team without it, which the MCP server recognises and asks again with web results only.
    for (const sources of [["web", "alexandria"], [{ type: "alexandria" }]]) {
      const exchange = await search({ query: "x", sources, domainTools: true, toolDetail: "compact" });
      expect(exchange.status).toBe(403);
      expect(exchange.body).toMatchObject({ success: false, code: "EXCHANGE_NOT_ENABLED", error: "Exchange is not enabled for this team." });
    }
    const poor = h.services.keys.create("poor", 1).key;
    const res = await h.request("/v2/search", { method: "POST", json: { query: "x" }, auth: poor });
    expect(res.status).toBe(402);
    // The most a search can cost is checked: 30 results from two sources could cost 12.
    const some = h.services.keys.create("some", 10).key;
    expect((await h.request("/v2/search", { method: "POST", json: { query: "x", limit: 30, sources: ["web", "news"] }, auth: some })).status).toBe(402);
    expect(asked.length).toBe(before);
    expect(() => loadConfig({ SEARXNG_ENDPOINT: "http://admin:secret@10.0.0.8:8080" })).toThrow(ConfigError);
  });

  test("concurrent searches of one key cannot all pass on its last credits", async () => {
    // Each search of 5 results may cost 2: a quota of 4 lets two run at once, not three.
    const { key } = h.services.keys.create("last-two", 4);
    const statuses = await Promise.all([1, 2, 3].map((i) => h.request("/v2/search", { method: "POST", json: { query: `race ${i}` }, auth: key }).then((r) => r.status)));
    expect(statuses.sort()).toEqual([200, 200, 402]);
    expect(h.services.ledger.usage(h.services.keys.verify(key)!).creditsUsed).toBe(4);
  });

  test("without SEARXNG_ENDPOINT: 400 SEARCH_NOT_CONFIGURED naming it", async () => {
    const bare = await createHarness();
    try {
      const { status, body } = await search({ query: "x" }, bare);
      expect(status).toBe(400);
      expect(body).toMatchObject({ success: false, code: "SEARCH_NOT_CONFIGURED" });
      expect(body.error).toContain("SEARXNG_ENDPOINT");
    } finally {
      await bare.close();
    }
  });
});
