/**
 * `mapSite` (api-v2.md §2.6) on the crawl fixture site, for every option (sitemap modes, search,
 * limit, subdomains, query handling, path filter, include/exclude, robots during discovery, depth, delay,
 * timeout and budget). `POST /v2/map` through the real app is covered in map-api.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { MapTimeoutError } from "../../src/crawl/errors.ts";
import { mapSite, type MapDeps, type MapSiteOptions } from "../../src/crawl/map.ts";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import { dedupKey } from "../../src/crawl/url-normalize.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import { EgressDeniedError } from "../../src/errors.ts";
import { startCrawlSite, type CrawlSite } from "../fixtures/crawl-site.ts";

let site: CrawlSite;
let gate: EgressGate;
let deps: MapDeps;

beforeAll(async () => {
  site = startCrawlSite({ slowMs: 50 });
  gate = await createEgressGate({ allowPrivateNetwork: true, resolver: site.resolver });
  const engine = createHttpEngine({ gate });
  deps = { engine, robots: new RobotsCache({ engine }), gate, maxPages: 20 };
});
afterAll(async () => {
  await gate.close();
  await site.stop();
});
beforeEach(() => site.reset());

const map = (o: Partial<MapSiteOptions> = {}, d: Partial<MapDeps> = {}) => mapSite({ url: site.origin, ...o }, { ...deps, ...d });
const urls = (r: { links: { url: string }[] }) => r.links.map((l) => l.url);
const stripQuery = (u: string) => u.replace(/\?.*$/, "");

describe("mapSite", () => {
  test("default: start page first with its title, sitemap and discovered URLs, unique, same site only", async () => {
    const r = await map();
    const list = urls(r);
    expect(r.links[0]).toEqual({ url: `${site.origin}/`, title: "Crawl fixture home", description: "The home page of the crawlbox crawl fixture site" });
    for (const u of [...site.urls.orphans, ...site.urls.blog, ...site.urls.products, site.url("/contact")]) expect(list).toContain(u);
    expect(list).toContain(`${site.subOrigin}/post/1`); // includeSubdomains defaults to true
    for (const u of [...site.urls.external, ...site.urls.social]) expect(list).not.toContain(u);
    expect(list.some((u) => /\.(png|css|js)$/.test(u))).toBe(false);
    expect(list).toContain(site.url("/files/report.pdf"));
    expect(list.some((u) => u.includes("#") || u.includes("?"))).toBe(false);
    expect(new Set(list.map((u) => dedupKey(u))).size).toBe(list.length);
    expect(list.filter((u) => u.includes("/about")).filter((u) => !u.includes("/go/"))).toEqual([site.url("/about")]);
    expect(r.warning).toBeUndefined();
    expect(site.hits("/sitemap_index.xml")).toBe(1);
  });

  test("allowExternalLinks lists links to other sites (not social ones or bare homepages) without fetching them", async () => {
    const externalHits = () => site.urls.external.reduce((n, u) => n + site.hits(new URL(u).pathname, new URL(u).hostname), 0);
    await map({ sitemap: "skip" });
    const without = externalHits(); // a redirect of the site's own (/go/external) lands there either way
    site.reset();
    const r = await map({ allowExternalLinks: true, sitemap: "skip" });
    const list = urls(r);
    const external = list.filter((u) => u.startsWith(site.externalOrigin));
    expect(external.length).toBeGreaterThan(0);
    for (const u of external) expect(site.urls.external).toContain(u);
    expect(list).not.toContain(`${site.externalOrigin}/`);
    for (const u of site.urls.social) expect(list).not.toContain(u);
    expect(externalHits()).toBe(without);
  });

  test("sitemap:'only' lists the sitemaps and fetches no page", async () => {
    const r = await map({ sitemap: "only" });
    const expected = new Map<string, string>();
    for (const u of site.urls.sitemapListed) {
      const k = dedupKey(u, { ignoreQueryParameters: true });
      if (!expected.has(k)) expected.set(k, stripQuery(u));
    }
    expect(new Set(urls(r))).toEqual(new Set(expected.values()));
    expect(site.hits("/")).toBe(0);
    expect(site.requests.every((q) => q.path === "/robots.txt" || q.path.includes("sitemap"))).toBe(true);
  });

  test("sitemap:'skip' reads no sitemap: orphans are unknown", async () => {
    const r = await map({ sitemap: "skip" });
    expect(urls(r)).not.toContain(site.urls.orphans[0]!);
    expect(urls(r)).toContain(site.url("/docs/"));
    expect(site.requests.filter((q) => q.path.includes("sitemap"))).toEqual([]);
  });

  test("includeSubdomains:false keeps the start host (www folded in)", async () => {
    const list = urls(await map({ includeSubdomains: false }));
    expect(list.some((u) => u.startsWith(site.subOrigin))).toBe(false);
    expect(list.some((u) => u.startsWith(site.wwwOrigin))).toBe(false);
    expect(list).toContain(site.url("/about"));
  });

  test("limit cuts the list and stops discovery early", async () => {
    const r = await map({ limit: 7, sitemap: "skip" });
    expect(r.links.length).toBe(7);
    const pagesFetched = site.requests.filter((q) => q.path !== "/robots.txt").length;
    expect(pagesFetched).toBe(1); // the start page alone already lists more than 7
  });

  test("ignoreQueryParameters:false keeps query variants apart", async () => {
    const list = urls(await map({ ignoreQueryParameters: false, sitemap: "skip" }));
    expect(list).toContain(site.url("/products/item-1?ref=home"));
    expect(list).toContain(site.url("/products/item-1?color=red"));
    expect(list).toContain(site.url("/search?q=tomatoes&page=2"));
  });

  test("search keeps relevant links, best first (URL words, stems, titles)", async () => {
    const orphans = urls(await map({ search: "orphans" }));
    expect(orphans.length).toBe(site.urls.orphans.length);
    expect(new Set(orphans)).toEqual(new Set(site.urls.orphans));
    const posts = urls(await map({ search: "blog post 7" }));
    expect(posts[0]).toBe(site.url("/blog/post-7"));
    expect(posts.every((u) => /blog|post|7/.test(u))).toBe(true);
    const byTitle = await map({ search: "fixture", sitemap: "skip" });
    expect(urls(byTitle).slice(0, 2).sort()).toEqual([site.url("/"), site.url("/about")]);
    expect(urls(await map({ search: "zzzz-nothing" }))).toEqual([]);
    expect(urls(await map({ search: "!!!", limit: 3 })).length).toBe(3);
  });

  test("filterByPath: a start path restricts the list unless filterByPath:false or crawlEntireDomain", async () => {
    const under = urls(await map({ url: site.url("/docs/") }));
    expect(under.length).toBe(site.urls.docs.length + 1);
    expect(under.every((u) => u.startsWith(site.url("/docs/")))).toBe(true);
    expect(urls(await map({ url: site.url("/docs/"), filterByPath: false }))).toContain(site.url("/about"));
    expect(urls(await map({ url: site.url("/docs/"), crawlEntireDomain: true }))).toContain(site.url("/about"));
  });

  test("includePaths / excludePaths filter the list", async () => {
    const only = urls(await map({ includePaths: ["^/deep/"] }));
    expect(new Set(only)).toEqual(new Set(site.urls.deep));
    const without = urls(await map({ excludePaths: ["^/docs", "^/blog"] }));
    expect(without.some((u) => /^\/(docs|blog)/.test(new URL(u).pathname))).toBe(false);
    expect(without).toContain(site.urls.orphans[0]!);
  });

  test("with regexOnFullURL, a link listed for its query is also followed for more links (judged on the link as found)", async () => {
    // The listed URL drops the query (ignoreQueryParameters), so judging it again without the query would refuse it.
    const pages: Record<string, string> = {
      "/": `<a href="/list?page=2">list</a>`,
      "/list": `<a href="/deep?page=2">deep</a>`,
      "/deep": `<p>deep</p>`,
    };
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => new Response(`<html><body>${pages[new URL(req.url).pathname] ?? ""}</body></html>`, { headers: { "content-type": "text/html" } }) });
    const local = await createEgressGate({ allowPrivateNetwork: true });
    try {
      const engine = createHttpEngine({ gate: local });
      const r = await mapSite(
        { url: `http://127.0.0.1:${server.port}/`, includePaths: ["page=2"], regexOnFullURL: true, sitemap: "skip" },
        { engine, robots: new RobotsCache({ engine }), gate: local, maxPages: 20 },
      );
      expect(urls(r)).toEqual(expect.arrayContaining([`http://127.0.0.1:${server.port}/list`, `http://127.0.0.1:${server.port}/deep`]));
    } finally {
      await local.close();
      server.stop(true);
    }
  });

  test("discovery obeys robots.txt (listing does not); ignoreRobotsTxt fetches anyway", async () => {
    const r = await map();
    expect(urls(r)).toContain(site.url("/private/secret"));
    expect(site.hits("/private/secret")).toBe(0);
    expect(site.hits("/script.cgi")).toBe(0);
    site.reset();
    await map({ ignoreRobotsTxt: true, sitemap: "skip" });
    expect(site.hits("/private/secret")).toBe(1);
  });

  test("maxDiscoveryDepth 1 fetches the start page only; 0 fetches nothing", async () => {
    const one = await map({ maxDiscoveryDepth: 1, sitemap: "skip" });
    expect(urls(one)).toContain(site.url("/docs/"));
    expect(urls(one)).not.toContain(site.urls.docs[0]!);
    expect(site.requests.filter((q) => q.path !== "/robots.txt").map((q) => q.path)).toEqual(["/"]);
    site.reset();
    const zero = await map({ maxDiscoveryDepth: 0, sitemap: "skip" });
    expect(urls(zero)).toEqual([`${site.origin}/`]);
    expect(site.hits("/")).toBe(0);
  });

  test("a page budget bounds discovery; pages beyond the start page add their links", async () => {
    const r = await map({ sitemap: "skip", url: site.url("/docs/") }, { maxPages: 3 });
    expect(site.requests.filter((q) => q.path !== "/robots.txt").length).toBe(3);
    expect(urls(r)).toContain(site.url("/docs/page-2"));
  });

  test("a delay makes discovery serial and spaced", async () => {
    const t = performance.now();
    await map({ sitemap: "skip", delay: 0.2 }, { maxPages: 3 });
    expect(performance.now() - t).toBeGreaterThanOrEqual(400);
    const times = site.requests.filter((q) => q.path !== "/robots.txt").map((q) => q.at);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(190);
  });

  test("timeout → MapTimeoutError (408 MAP_TIMEOUT)", async () => {
    const slow = startCrawlSite({ latencyMs: 300 });
    const g = await createEgressGate({ allowPrivateNetwork: true, resolver: slow.resolver });
    try {
      const engine = createHttpEngine({ gate: g });
      const err = await mapSite({ url: slow.origin, timeout: 100 }, { engine, robots: new RobotsCache({ engine }) }).catch((e) => e);
      expect(err).toBeInstanceOf(MapTimeoutError);
      expect(err.code).toBe("MAP_TIMEOUT");
      expect(err.status).toBe(408);
      // A timeout above the cap runs to the cap, and the error names the time waited, not the time asked for.
      const capped = await mapSite({ url: slow.origin, timeout: 600_000 }, { engine, robots: new RobotsCache({ engine }), maxBudgetMs: 150 }).catch((e) => e);
      expect(capped).toBeInstanceOf(MapTimeoutError);
      expect(capped.message).toContain("150");
      expect(capped.message).not.toContain("600000");
      // Without a timeout the budget ends discovery with what was found and a warning.
      const r = await mapSite({ url: slow.origin, sitemap: "skip" }, { engine, robots: new RobotsCache({ engine }), defaultBudgetMs: 1000 });
      expect(r.warning).toContain("stopped");
      expect(urls(r)[0]).toBe(`${slow.origin}/`);
    } finally {
      await g.close();
      await slow.stop();
    }
  });

  test("a refused start URL fails the map without contacting the site", async () => {
    const strict = await createEgressGate({ allowPrivateNetwork: false, resolver: site.resolver });
    try {
      const engine = createHttpEngine({ gate: strict });
      const err = await mapSite({ url: site.origin }, { engine, robots: new RobotsCache({ engine }), gate: strict }).catch((e) => e);
      expect(err).toBeInstanceOf(EgressDeniedError);
      expect(site.requests).toEqual([]);
    } finally {
      await strict.close();
    }
  });
});
