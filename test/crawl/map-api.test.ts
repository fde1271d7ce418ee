/**
 * `POST /v2/map` (api-v2.md §2.6, §3.3) through the real app on the crawl fixture site: shape, credits, auth,
 * validation, 408, egress refusal, the official JS SDK's `map`, and where the client's headers go. `mapSite`'s
 * options are covered in map-site.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { parseMapBody } from "../../src/api/map.ts";
import { startCrawlSite, type CrawlSite } from "../fixtures/crawl-site.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: CrawlSite;

beforeAll(() => {
  site = startCrawlSite({ slowMs: 50 });
});
afterAll(async () => {
  await site.stop();
});
beforeEach(() => site.reset());

const urls = (r: { links: { url: string }[] }) => r.links.map((l) => l.url);

describe("POST /v2/map", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({}, { resolver: site.resolver });
  });
  afterAll(async () => {
    await h.close();
  });
  const post = (json: unknown, init: { auth?: string | null } = {}) => h.request("/v2/map", { method: "POST", json, ...init });

  test("answers {success, id, links} and charges 1 credit", async () => {
    const before = h.services.ledger.usage({ keyId: h.services.keys.verify(h.key)!.keyId, creditQuota: null }).creditsUsed;
    const res = await post({ url: site.origin, limit: 5, origin: "js-sdk@4.0.0" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { success: boolean; id: string; links: { url: string; title?: string }[] };
    expect(body.success).toBe(true);
    expect(body.id).toBeString();
    expect(body.links.length).toBe(5);
    expect(body.links[0]).toMatchObject({ url: `${site.origin}/`, title: "Crawl fixture home" });
    const after = h.services.ledger.usage({ keyId: h.services.keys.verify(h.key)!.keyId, creditQuota: null }).creditsUsed;
    expect(after - before).toBe(1);
  });

  test("a map of at most one URL from below the site's root says how to find more, as upstream (not when limit is 1)", async () => {
    const body = async (json: Record<string, unknown>) => (await (await post(json)).json()) as { links: unknown[]; warning?: string };
    const few = await body({ url: site.url("/contact"), sitemap: "skip", maxDiscoveryDepth: 1, includePaths: ["^/contact$"] });
    expect(few.links).toHaveLength(1);
    expect(few.warning).toBe("Only 1 result(s) found. For broader coverage, try mapping the base domain: crawl.test");
    expect((await body({ url: site.url("/contact"), limit: 1 })).warning).toBeUndefined();
    expect((await body({ url: site.origin, limit: 5 })).warning).toBeUndefined();
  });

  test("limit is a number (api-v2.md §2.6): a fraction is floored, the bounds still hold", async () => {
    const res = await post({ url: site.origin, limit: 2.5 });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { links: unknown[] }).links).toHaveLength(2);
    expect(parseMapBody({ url: site.origin, limit: 7.9 }).limit).toBe(7);
    for (const limit of [0.5, 0, 100_000.5, "3"]) {
      const bad = await post({ url: site.origin, limit });
      expect([limit, bad.status]).toEqual([limit, 400]);
      expect(((await bad.json()) as { details: { path: unknown[] }[] }).details[0]!.path).toEqual(["limit"]);
    }
  });

  test("401 without a key", async () => {
    const res = await post({ url: site.origin }, { auth: null });
    expect(res.status).toBe(401);
  });

  test("400 on unknown keys, a bad limit, an invalid regex", async () => {
    for (const body of [{ url: site.origin, nope: 1 }, { url: site.origin, limit: 100_001 }, { url: site.origin, includePaths: ["("] }, { url: site.origin, sitemap: "sometimes" }]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { success: boolean }).success).toBe(false);
    }
  });

  test("408 MAP_TIMEOUT", async () => {
    const slow = startCrawlSite({ latencyMs: 300, domain: "slow.test" });
    const hs = await createHarness({}, { resolver: slow.resolver });
    try {
      const res = await hs.request("/v2/map", { method: "POST", json: { url: slow.origin, timeout: 100 } });
      expect(res.status).toBe(408);
      expect(await res.json()).toMatchObject({ success: false, code: "MAP_TIMEOUT" });
      // Any positive number, as upstream's z.number().positive(): a fraction of a millisecond too.
      const fractional = await hs.request("/v2/map", { method: "POST", json: { url: slow.origin, timeout: 100.5 } });
      expect(fractional.status).toBe(408);
      for (const bad of [0, -1, "100"]) expect((await hs.request("/v2/map", { method: "POST", json: { url: slow.origin, timeout: bad } })).status).toBe(400);
    } finally {
      await hs.close();
      await slow.stop();
    }
  });

  test("402 when the key has no credits left; nothing fetched", async () => {
    const { key } = h.services.keys.create("poor", 1);
    h.services.ledger.charge(h.services.keys.verify(key)!, 1);
    site.reset();
    const res = await post({ url: site.origin }, { auth: key });
    expect(res.status).toBe(402);
    expect(site.requests).toEqual([]);
  });

  test("concurrent maps of one key cannot all pass on its last credit", async () => {
    const slow = startCrawlSite({ latencyMs: 50, domain: "slow.test" });
    const hs = await createHarness({}, { resolver: slow.resolver });
    try {
      const { key } = hs.services.keys.create("last", 1);
      const statuses = await Promise.all([1, 2, 3].map(() => hs.request("/v2/map", { method: "POST", json: { url: slow.origin, limit: 1, sitemap: "skip" }, auth: key }).then((r) => r.status)));
      expect(statuses.sort()).toEqual([200, 402, 402]);
      expect(hs.services.ledger.usage(hs.services.keys.verify(key)!).creditsUsed).toBe(1);
    } finally {
      await hs.close();
      await slow.stop();
    }
  });

  test("a private target is refused when private networks are not allowed", async () => {
    const hs = await createHarness({ allowPrivateNetwork: false }, { resolver: site.resolver });
    try {
      const res = await hs.request("/v2/map", { method: "POST", json: { url: site.origin } });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ success: false, code: "EGRESS_DENIED" });
    } finally {
      await hs.close();
    }
  });

  test("an unresolvable host answers like scrape: 200 with success:false", async () => {
    const res = await post({ url: "http://no-such-host.test/" });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ success: false, code: "SCRAPE_DNS_RESOLUTION_ERROR" });
  });

  test("the official JS SDK's map", async () => {
    const apiUrl = h.listen();
    const app = new Firecrawl({ apiKey: h.key, apiUrl });
    const all = await app.map(site.origin, { limit: 50 });
    expect(all.links.length).toBe(50);
    expect(all.links[0]).toMatchObject({ url: `${site.origin}/`, title: "Crawl fixture home" });
    const found = await app.map(site.origin, { search: "orphans", sitemap: "only", includeSubdomains: false, ignoreQueryParameters: true, timeout: 20_000 });
    expect(new Set(found.links.map((l) => l.url))).toEqual(new Set(site.urls.orphans));
    const skip = await app.map(site.origin, { sitemap: "skip", includeSubdomains: false });
    expect(skip.links.some((l) => l.url.startsWith(site.subOrigin))).toBe(false);
    try {
      await new Firecrawl({ apiKey: "fc-wrong", apiUrl }).map(site.origin);
      throw new Error("expected a 401");
    } catch (err) {
      expect((err as { status?: number }).status).toBe(401);
    }
  });
});

describe("map and the client's headers", () => {
  test("Authorization and Cookie go to the mapped site only, not to sitemaps or pages on other origins", async () => {
    const seen: { path: string; authorization: string | null; cookie: string | null }[] = [];
    const other = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        seen.push({ path: new URL(req.url).pathname, authorization: req.headers.get("authorization"), cookie: req.headers.get("cookie") });
        return new Response(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"></urlset>`, { headers: { "content-type": "application/xml" } });
      },
    });
    let ownAuth: string | null = null;
    const own = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(req) {
        const p = new URL(req.url).pathname;
        if (p === "/") ownAuth = req.headers.get("authorization");
        if (p === "/robots.txt") return new Response(`User-agent: *\nAllow: /\nSitemap: http://127.0.0.1:${other.port}/sitemap.xml\n`);
        if (p === "/sitemap.xml") {
          const index = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>http://127.0.0.1:${other.port}/nested.xml</loc></sitemap></sitemapindex>`;
          return new Response(`<?xml version="1.0"?>${index}`, { headers: { "content-type": "application/xml" } });
        }
        return new Response("<html><body>hi</body></html>", { headers: { "content-type": "text/html" } });
      },
    });
    const hh = await createHarness({});
    try {
      const res = await hh.request("/v2/map", { method: "POST", json: { url: `http://127.0.0.1:${own.port}/`, headers: { Authorization: "Bearer SITE-A", Cookie: "session=SITE-A" } } });
      expect(res.status).toBe(200);
      expect(seen.map((s) => s.path).sort()).toEqual(["/nested.xml", "/sitemap.xml"]);
      for (const s of seen) expect([s.authorization, s.cookie]).toEqual([null, null]);
      expect(ownAuth as string | null).toBe("Bearer SITE-A");
    } finally {
      await hh.close();
      own.stop(true);
      other.stop(true);
    }
  });
});
