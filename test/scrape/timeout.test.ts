/**
 * A scrape's deadline from its options (scrape/from-options.ts `timeoutMsOf`), through the same parsing the routes
 * use: the server default without `timeout`, the given value otherwise, except upstream's legacy rule for exactly
 * 30000 (api-v2.md §2.2): raised to 120000 with the stealth, enhanced or auto (default) proxy, else to 60000 with a
 * json or changeTracking format.
 */
import { describe, expect, test } from "bun:test";
import { parseScrapeBody } from "../../src/api/scrape.ts";
import { parseBatchScrapeBody } from "../../src/api/batch.ts";
import { specFromOptions } from "../../src/scrape/from-options.ts";

const DEFAULTS = { defaultTimeoutMs: 30_000 };
const schema = { type: "object", properties: { a: { type: "string" } } };

function deadline(body: Record<string, unknown>): number {
  const req = parseScrapeBody({ url: "https://example.com/", ...body });
  return specFromOptions(req.url, req.sourceURL, req.scrapeOptions, req, DEFAULTS).timeoutMs;
}

describe("scrape deadline", () => {
  test("without timeout: the server default; other values as given, above 300000 clamped", () => {
    expect(deadline({})).toBe(30_000);
    expect(deadline({ timeout: 29_999 })).toBe(29_999);
    expect(deadline({ timeout: 30_001 })).toBe(30_001);
    expect(deadline({ timeout: 60_000, formats: [{ type: "json", schema }] })).toBe(60_000);
    expect(deadline({ timeout: 900_000 })).toBe(300_000);
  });

  test("an explicit 30000 is raised as upstream raises it", () => {
    expect(deadline({ timeout: 30_000 })).toBe(120_000); // proxy auto, the default
    expect(deadline({ timeout: 30_000, proxy: "stealth" })).toBe(120_000);
    expect(deadline({ timeout: 30_000, proxy: "enhanced", formats: [{ type: "json", schema }] })).toBe(120_000);
    expect(deadline({ timeout: 30_000, proxy: "basic" })).toBe(30_000);
    expect(deadline({ timeout: 30_000, proxy: "basic", formats: [{ type: "json", schema }] })).toBe(60_000);
    expect(deadline({ timeout: 30_000, proxy: "basic", formats: ["markdown", "changeTracking"] })).toBe(60_000);
  });

  test("the time the request asks to wait comes on top, as upstream's timeout + totalWait", () => {
    // A 408 before: the waits ate the timeout.
    expect(deadline({ timeout: 10_000, waitFor: 5_000, actions: [{ type: "wait", milliseconds: 6_000 }] })).toBe(21_000);
    // Not cut to the default 30 s.
    expect(deadline({ waitFor: 15_000 })).toBe(45_000);
    // A selector wait counts as in the wait budget; other actions add nothing.
    expect(deadline({ timeout: 5_000, actions: [{ type: "wait", selector: "#x" }, { type: "click", selector: "#y" }] })).toBe(6_000);
    expect(deadline({ timeout: 900_000, waitFor: 1_000 })).toBe(301_000);
  });

  test("the same rule for a batch's pages", () => {
    const req = parseBatchScrapeBody({ urls: ["https://example.com/"], timeout: 30_000, proxy: "basic", formats: [{ type: "json", schema }] });
    expect(specFromOptions("https://example.com/", "https://example.com/", req.scrapeOptions, {}, DEFAULTS).timeoutMs).toBe(60_000);
  });
});
