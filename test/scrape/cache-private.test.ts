/**
 * The page cache and the egress gate's private-network switch (scrape/cache-key.ts): a page cached while
 * `CRAWLBOX_ALLOW_PRIVATE_NETWORK` was on is not served once the server runs with it off, even with a long
 * `maxAge`; the request is refused by the gate as any fetch of that address is. With the gate closed (the
 * default) the key is what it always was, so copies outlive a restart.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testConfig, type Config } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import { createApp } from "../../src/server/app.ts";
import { createServices, type ServiceOptions } from "../../src/server/services.ts";
import { parseScrapeBody } from "../../src/api/scrape.ts";
import { pageCacheKey } from "../../src/scrape/cache-key.ts";
import { specFromOptions } from "../../src/scrape/from-options.ts";
import { startCountingServer, type FixtureServer } from "../fixtures/servers.ts";

let site: FixtureServer;
let dataDir: string;

beforeAll(() => {
  site = startCountingServer(() => new Response("<html><body><main><h1>Intranet</h1><p>Payroll figures for the quarter.</p></main></body></html>", { headers: { "content-type": "text/html" } }));
  dataDir = mkdtempSync(join(tmpdir(), "crawlbox-cache-private-"));
});
afterAll(async () => {
  await site.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** One server lifetime on the shared data folder: runs `body` against it, then closes it (the folder stays). */
async function withServer<T>(overrides: Partial<Config>, options: ServiceOptions, body: (scrape: (json: unknown) => Promise<{ status: number; body: any }>) => Promise<T>): Promise<T> {
  const services = await createServices(testConfig({ dataDir, authEnabled: false, ...overrides }), { log: silentLogger, ...options });
  const app = createApp(services);
  try {
    return await body(async (json) => {
      const res = await app.handle(new Request("http://localhost/v2/scrape", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(json) }));
      return { status: res.status, body: await res.json() };
    });
  } finally {
    await services.close();
  }
}

describe("page cache and CRAWLBOX_ALLOW_PRIVATE_NETWORK", () => {
  test("a private page cached with the gate open is refused, not served, once the gate is closed", async () => {
    const url = `${site.url}/payroll`;
    await withServer({ allowPrivateNetwork: true }, {}, async (scrape) => {
      const first = await scrape({ url });
      expect([first.status, first.body.data?.metadata.cacheState]).toEqual([200, "miss"]);
      expect((await scrape({ url })).body.data.metadata.cacheState).toBe("hit");
    });
    const hitsBefore = site.hits;
    await withServer({ allowPrivateNetwork: false }, {}, async (scrape) => {
      const later = await scrape({ url, maxAge: 3_600_000 });
      expect([later.status, later.body.success, later.body.code]).toEqual([403, false, "EGRESS_DENIED"]);
      expect(JSON.stringify(later.body)).not.toContain("Payroll");
    });
    expect(site.hits).toBe(hitsBefore); // refused before any connection, as every fetch of it is
  });

  test("with the gate closed, copies are keyed as before and serve across a restart", async () => {
    // The gate closed, a resolver that calls the fixture's host public: the page is fetched and cached.
    const url = `http://public-site.test:${site.port}/news`;
    const publicResolver = { resolver: async () => ["127.0.0.1"], classify: () => ({ public: true as const }) };
    await withServer({ allowPrivateNetwork: false }, publicResolver, async (scrape) => {
      expect((await scrape({ url })).body.data?.metadata.cacheState).toBe("miss");
    });
    const hitsBefore = site.hits;
    await withServer({ allowPrivateNetwork: false }, publicResolver, async (scrape) => {
      expect((await scrape({ url })).body.data?.metadata.cacheState).toBe("hit");
    });
    expect(site.hits).toBe(hitsBefore);
  });

  test("the key changes only when the gate is open", () => {
    const req = parseScrapeBody({ url: "https://example.com/" });
    const spec = specFromOptions(req.url, req.sourceURL, req.scrapeOptions, req, { defaultTimeoutMs: 30_000 });
    expect(pageCacheKey(spec)).toBe(pageCacheKey(spec, false));
    expect(pageCacheKey(spec, true)).not.toBe(pageCacheKey(spec, false));
  });
});
