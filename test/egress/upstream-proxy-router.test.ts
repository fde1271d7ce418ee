/**
 * The HTTP-only router picks the upstream proxy per request (CRAWLBOX_PROXY_BASIC / _ENHANCED / _COUNTRIES through
 * /v2/scrape and /v2/map): basic mode takes the basic upstream, location.country the country's, and robots.txt,
 * sitemaps and the map's own fetches the basic one too; a private destination is EGRESS_DENIED with zero hits on
 * every upstream. The sites and fake upstreams come from upstream-proxy-helpers.ts (127.0.0.2 declared public).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
import type { FixtureServer } from "../fixtures/servers.ts";
import { type FakeUpstream, startFakeUpstream } from "../fixtures/upstream-proxy.ts";
import { classify, fixtureResolver, startUpstreamWorld, type UpstreamWorld } from "./upstream-proxy-helpers.ts";

const resolver = fixtureResolver();
let world: UpstreamWorld;
let site: FixtureServer; // http on 127.0.0.2 ("public")
let secret: FixtureServer; // 127.0.0.1: must never be hit
let basic: FakeUpstream;
let enhanced: FakeUpstream;

beforeAll(async () => {
  world = await startUpstreamWorld(resolver);
  ({ site, secret, basic, enhanced } = world);
});

afterAll(() => world.close());

describe("the HTTP-only router picks the upstream per request", () => {
  let h: Harness;
  let de: FakeUpstream;
  beforeAll(async () => {
    de = startFakeUpstream("de");
    h = await createHarness(
      { allowPrivateNetwork: false, browserEnabled: false, proxyBasic: basic.url, proxyEnhanced: enhanced.url, proxyCountries: { DE: de.url } },
      { resolver, classify },
    );
  });
  afterAll(async () => {
    await h.close();
    de.stop();
  });

  async function scrape(body: Record<string, unknown>) {
    const res = await h.request("/v2/scrape", { method: "POST", json: { formats: ["rawHtml"], maxAge: 0, ...body } });
    return { status: res.status, body: (await res.json()) as any };
  }

  test("basic mode through the basic upstream, location.country through the country's", async () => {
    const a = await scrape({ url: `${site.url}/router-basic` });
    expect(a.status).toBe(200);
    expect(a.body.data.rawHtml).toBe("site via basic");
    expect(a.body.data.metadata.proxyUsed).toBe("basic");
    const b = await scrape({ url: `${site.url}/router-de`, location: { country: "de" } });
    expect(b.status).toBe(200);
    expect(b.body.data.rawHtml).toBe("site via de");
  });

  test("robots.txt, sitemaps and the map's own fetches take the basic upstream too", async () => {
    const seen = basic.requests.length;
    const res = await h.request("/v2/map", { method: "POST", json: { url: `${site.url}/map-start` } });
    expect(res.status).toBe(200);
    const targets = basic.requests.slice(seen).map((r) => r.target);
    expect(targets).toContain(`${site.url}/robots.txt`);
    expect(targets.some((t) => t.startsWith(`${site.url}/sitemap`))).toBe(true);
    expect(targets).toContain(`${site.url}/map-start`);
  });

  test("a private destination with upstreams configured: EGRESS_DENIED, zero hits on every upstream", async () => {
    const hits = basic.hits + enhanced.hits + de.hits;
    const res = await scrape({ url: `http://127.0.0.1:${secret.port}/` });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("EGRESS_DENIED");
    const loc = await scrape({ url: `http://evil.test:${secret.port}/`, location: { country: "DE" } });
    expect(loc.body.code).toBe("EGRESS_DENIED");
    expect(basic.hits + enhanced.hits + de.hits).toBe(hits);
    expect(secret.hits).toBe(0);
  });
});
