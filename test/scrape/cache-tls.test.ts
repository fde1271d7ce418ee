/**
 * The page cache and certificate verification (scrape/cache-key.ts): a copy fetched without verifying the
 * certificate (/v2's default for a shared fetch) is never served to a request with `skipTlsVerification: false`,
 * whatever its `maxAge`; requests that skip verification keep sharing their copies as before.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseScrapeBody } from "../../src/api/scrape.ts";
import { pageCacheKey } from "../../src/scrape/cache-key.ts";
import { specFromOptions } from "../../src/scrape/from-options.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startTlsServer, type FixtureServer } from "../fixtures/servers.ts";

let tlsSite: FixtureServer;
let h: Harness;

beforeAll(async () => {
  // The fixture certificate is self-signed: only a fetch that skips verification reads this page.
  tlsSite = await startTlsServer(() => new Response("<html><body><p>Self-signed page.</p></body></html>", { headers: { "content-type": "text/html" } }));
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
  await tlsSite.stop();
});

async function scrape(body: Record<string, unknown>) {
  const res = await h.request("/v2/scrape", { method: "POST", json: body });
  return { status: res.status, body: (await res.json()) as any };
}

const keyOf = (body: Record<string, unknown>) => {
  const req = parseScrapeBody({ url: "https://example.com/", ...body });
  return pageCacheKey(specFromOptions(req.url, req.sourceURL, req.scrapeOptions, req, { defaultTimeoutMs: 30_000 }));
};

describe("page cache and skipTlsVerification", () => {
  test("a copy fetched without certificate verification is not served to a request that asks for verification", async () => {
    const url = `${tlsSite.url}/page`;
    const unverified = await scrape({ url }); // /v2's default for a shared fetch: verification skipped
    expect([unverified.status, unverified.body.data.metadata.cacheState]).toEqual([200, "miss"]);
    expect((await scrape({ url, skipTlsVerification: true })).body.data.metadata.cacheState).toBe("hit");
    const verified = await scrape({ url, skipTlsVerification: false, maxAge: 3_600_000 });
    expect([verified.status, verified.body.code]).toEqual([verified.status, "SCRAPE_SSL_ERROR"]);
    expect(verified.status).toBeGreaterThanOrEqual(400);
  });

  test("the key tells verified fetches from unverified ones, and nothing else about the flag changes it", () => {
    expect(keyOf({ skipTlsVerification: false })).not.toBe(keyOf({ skipTlsVerification: true }));
    expect(keyOf({})).toBe(keyOf({ skipTlsVerification: true })); // /v2's default: unchanged
  });
});
