/**
 * Every route the official JS SDK (`@mendable/firecrawl-js`, a dev dependency) calls under /v2 is served, read from
 * the SDK's own code and compared with crawlbox's OpenAPI document, except the few listed here with the reason; and
 * the list is kept honest: a route listed as missing that crawlbox serves fails the test too.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createHarness, type Harness } from "../helpers/harness.ts";

/** SDK routes crawlbox does not serve, and why (README "Not built yet", docs/api.md). */
const NOT_SERVED: Record<string, string> = {
  "/v2/search/developer": "cloud-only research search (upstream mounts it only with RESEARCH_PROXY_URL)",
  "/v2/search/research": "the same",
};

let h: Harness;
let served: Set<string>;
let sdk: Set<string>;

beforeAll(async () => {
  h = await createHarness();
  const spec = (await (await h.request("/openapi.json", { auth: null })).json()) as { paths: Record<string, unknown> };
  served = new Set(Object.keys(spec.paths).map((p) => p.replace(/\{[^}]+\}/g, ":p")));
  const js = readFileSync(join(import.meta.dir, "..", "..", "node_modules", "@mendable", "firecrawl-js", "dist", "index.js"), "utf8");
  sdk = new Set<string>();
  for (const m of js.matchAll(/["`](\/v2\/[^"`]*)["`]/g)) {
    // `${id}` is a path parameter; a template right after a segment (`${query}`) is a query string.
    sdk.add(m[1]!.replace(/([^/])\$\{[^}]+\}$/, "$1").replace(/\$\{[^}]+\}/g, ":p").replace(/\?.*$/, ""));
  }
});
afterAll(() => h.close());

test("the SDK's code names its routes (the scan found the usual ones)", () => {
  for (const p of ["/v2/scrape", "/v2/crawl/:p", "/v2/agent/:p/trace", "/v2/monitor/:p/checks/:p"]) expect(sdk.has(p)).toBe(true);
});

test("every /v2 route the SDK calls is served, except those listed with a reason", () => {
  const missing = [...sdk].filter((p) => !served.has(p) && !(p in NOT_SERVED)).sort();
  expect(missing).toEqual([]);
});

test("the list of routes not served is true: none of them is served, and the SDK still calls each", () => {
  for (const p of Object.keys(NOT_SERVED)) {
    expect([p, served.has(p)]).toEqual([p, false]);
    expect([p, sdk.has(p)]).toEqual([p, true]);
  }
});
