/**
 * A number JSON writes but a double cannot hold (`1e309`) parses to Infinity. TypeBox refuses it as a number, and the
 * 400 used to say "Expected number, received number". Every numeric field now says it wants a finite number, through
 * the parsers and through the HTTP route (the body as a client sends it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseBatchScrapeBody, parseCrawlBody, parseMapBody, parseScrapeBody, parseSearchBody } from "../../src/api/index.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { reject } from "./helpers.ts";

/** `body` as JSON text, with `1e309` written where the text says `INF` (JSON.stringify cannot write Infinity). */
const parsed = (text: string) => JSON.parse(text.replaceAll("INF", "1e309"));

describe("a non-finite number in a body", () => {
  const cases: [string, (b: unknown) => unknown, string, (string | number)[], string][] = [
    ["crawl limit (a number field)", parseCrawlBody, '{"url":"https://e.com","limit":INF}', ["limit"], "Expected a finite number, received Infinity"],
    ["crawl maxDiscoveryDepth, negative", parseCrawlBody, '{"url":"https://e.com","maxDiscoveryDepth":-INF}', ["maxDiscoveryDepth"], "Expected a finite number, received -Infinity"],
    ["crawl maxConcurrency (an integer field)", parseCrawlBody, '{"url":"https://e.com","maxConcurrency":INF}', ["maxConcurrency"], "Expected a finite integer, received Infinity"],
    ["scrape timeout", parseScrapeBody, '{"url":"https://e.com","timeout":INF}', ["timeout"], "Expected a finite integer, received Infinity"],
    ["scrape screenshot quality (inside a union)", parseScrapeBody, '{"url":"https://e.com","formats":[{"type":"screenshot","quality":INF}]}', ["formats", 0, "quality"], "Expected a finite integer, received Infinity"],
    ["scrape wait action", parseScrapeBody, '{"url":"https://e.com","actions":[{"type":"wait","milliseconds":INF}]}', ["actions", 0, "milliseconds"], "Expected a finite integer, received Infinity"],
    ["map limit", parseMapBody, '{"url":"https://e.com","limit":INF}', ["limit"], "Expected a finite number, received Infinity"],
    ["batch timeout", parseBatchScrapeBody, '{"urls":["https://e.com"],"timeout":INF}', ["timeout"], "Expected a finite integer, received Infinity"],
    ["search limit", parseSearchBody, '{"query":"x","limit":INF}', ["limit"], "Expected a finite integer, received Infinity"],
  ];
  for (const [name, parse, text, path, message] of cases) {
    test(`${name}: a 400 that says it wants a finite number`, () => {
      const { issues } = reject(parse, parsed(text));
      expect(issues).toEqual([{ code: "invalid_type", path, message }]);
    });
  }

  test("a finite number of the wrong kind keeps its message", () => {
    expect(reject(parseCrawlBody, { url: "https://e.com", maxConcurrency: 1.5 }).issues[0]!.message).toBe("Expected integer, received float");
    expect(reject(parseCrawlBody, { url: "https://e.com", limit: "5" }).issues[0]!.message).toBe("Expected number, received string");
  });
});

describe("over HTTP", () => {
  let h: Harness;
  beforeAll(async () => (h = await createHarness()));
  afterAll(() => h.close());

  test("POST /v2/crawl with limit 1e309 is a 400 naming a finite number, not 'received number'", async () => {
    const res = await h.request("/v2/crawl", { method: "POST", headers: { "content-type": "application/json" }, body: '{"url":"https://example.com","limit":1e309}' });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; details: { path: unknown[]; message: string }[] };
    expect(body.code).toBe("BAD_REQUEST");
    expect(body.details).toEqual([{ code: "invalid_type", path: ["limit"], message: "Expected a finite number, received Infinity" }] as never);
  });
});
