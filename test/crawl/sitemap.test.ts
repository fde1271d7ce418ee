/**
 * Sitemaps (api-v2.md §5.2): parsing (urlset, index, text, entities, CDATA, prefixes, nested `.xml`), candidate
 * discovery, and reading the crawl fixture site's sitemaps through the real engine and gate: index recursion,
 * gzip, plain text, 404s, the last-resort rule, parent-domain host filtering, and every bound (sitemap count,
 * URL count, cycles, gzip bombs, soft-404 HTML, time, abort).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { parseSitemap, readSitemaps, sitemapCandidates } from "../../src/crawl/sitemap.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine } from "../../src/engines/types.ts";
import { startCrawlSite, type CrawlSite } from "../fixtures/crawl-site.ts";
import { startCountingServer } from "../fixtures/servers.ts";

let site: CrawlSite;
let gate: EgressGate;
let engine: Engine;

beforeAll(async () => {
  site = startCrawlSite();
  gate = await createEgressGate({ allowPrivateNetwork: true, resolver: site.resolver });
  engine = createHttpEngine({ gate });
});
afterAll(async () => {
  await gate.close();
  await site.stop();
});
beforeEach(() => site.reset());

describe("parseSitemap", () => {
  test("urlset with entities, CDATA, whitespace and namespace prefixes", () => {
    const xml = `<?xml version="1.0"?><ns:urlset xmlns:ns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <ns:url><ns:loc> https://a.com/x?a=1&amp;b=2 </ns:loc></ns:url>
      <url><loc><![CDATA[https://a.com/y?c=3&d=4]]></loc><lastmod>2026-01-01</lastmod></url>
      <url><loc>https://a.com/caf&#233;</loc></url>
      <url><loc>not a url</loc></url>
      <url><loc>ftp://a.com/file</loc></url>
    </ns:urlset>`;
    expect(parseSitemap(xml)).toEqual({ kind: "urlset", urls: ["https://a.com/x?a=1&b=2", "https://a.com/y?c=3&d=4", "https://a.com/café"], sitemaps: [] });
  });
  test("image, video and hreflang extensions: only each entry's own <loc> is a page", () => {
    const xml = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"
        xmlns:xhtml="http://www.w3.org/1999/xhtml">
      <url><loc>https://ex.com/page</loc><image:image><image:loc>https://ex.com/media/photo?id=7</image:loc></image:image>
        <image:image><image:loc>https://ex.com/media/photo2</image:loc><image:caption>c</image:caption></image:image></url>
      <url><image:image><image:loc>https://ex.com/media/first</image:loc></image:image><loc>https://ex.com/gallery</loc></url>
      <url><loc>https://ex.com/watch</loc><video:video><video:thumbnail_loc>https://ex.com/t.jpg</video:thumbnail_loc>
        <video:content_loc>https://ex.com/v.mp4</video:content_loc><video:player_loc>https://ex.com/player</video:player_loc></video:video>
        <xhtml:link rel="alternate" hreflang="de" href="https://ex.com/de/watch"/></url>
    </urlset>`;
    expect(parseSitemap(xml)).toEqual({ kind: "urlset", urls: ["https://ex.com/page", "https://ex.com/gallery", "https://ex.com/watch"], sitemaps: [] });
  });
  test("the sitemap namespace under any prefix is the sitemap's own; another namespace's <loc> is not", () => {
    const xml = `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:img="http://www.google.com/schemas/sitemap-image/1.1">
      <sm:url><sm:loc>https://a.com/1</sm:loc><img:image><img:loc>https://a.com/pic</img:loc></img:image></sm:url>
      <sm:url><img:loc>https://a.com/stray</img:loc><sm:loc>https://a.com/2</sm:loc></sm:url>
    </sm:urlset>`;
    expect(parseSitemap(xml).urls).toEqual(["https://a.com/1", "https://a.com/2"]);
  });
  test("sitemapindex", () => {
    const xml = `<sitemapindex><sitemap><loc>https://a.com/s1.xml</loc></sitemap><sitemap><loc>https://a.com/s2.xml.gz</loc></sitemap></sitemapindex>`;
    expect(parseSitemap(xml)).toEqual({ kind: "sitemapindex", urls: [], sitemaps: ["https://a.com/s1.xml", "https://a.com/s2.xml.gz"] });
  });
  test(".xml entries inside a urlset are nested sitemaps (upstream's rule)", () => {
    const p = parseSitemap(`<urlset><url><loc>https://a.com/page</loc></url><url><loc>https://a.com/more.xml</loc></url><url><loc>https://a.com/more.xml.gz</loc></url></urlset>`);
    expect(p.urls).toEqual(["https://a.com/page"]);
    expect(p.sitemaps).toEqual(["https://a.com/more.xml", "https://a.com/more.xml.gz"]);
  });
  test("plain text, with a BOM, blank lines and junk", () => {
    expect(parseSitemap("\uFEFFhttps://a.com/1\n\n  https://a.com/2  \r\njunk\nmailto:x@y.z\n")).toEqual({ kind: "text", urls: ["https://a.com/1", "https://a.com/2"], sitemaps: [] });
  });
  test("HTML, RSS and garbage are not sitemaps", () => {
    for (const t of ["<html><body><a href='https://a.com'>x</a></body></html>", "<rss><channel><link>https://a.com</link></channel></rss>", "", "{}"]) {
      expect(parseSitemap(t).urls).toEqual([]);
    }
  });
});

describe("sitemapCandidates", () => {
  test("start URL sitemap, robots lines, then the origin as last resort", () => {
    expect(sitemapCandidates("https://a.com/docs?x=1#y", ["https://a.com/s.xml"])).toEqual([
      { url: "https://a.com/docs/sitemap.xml" },
      { url: "https://a.com/s.xml" },
      { url: "https://a.com/sitemap.xml", lastResort: true },
    ]);
  });
  test("a root start URL is its own last resort (no duplicate)", () => {
    expect(sitemapCandidates("https://www.a.com/")).toEqual([{ url: "https://www.a.com/sitemap.xml" }]);
  });
  test("a start URL ending in .xml is the sitemap", () => {
    expect(sitemapCandidates("https://a.com/feeds/map.xml")[0]).toEqual({ url: "https://a.com/feeds/map.xml" });
  });
  test("a subdomain adds the parent domain's sitemap, filtered to the subdomain", () => {
    expect(sitemapCandidates("http://blog.crawl.test:8080/")).toContainEqual({ url: "http://crawl.test:8080/sitemap.xml", hostSuffix: "blog.crawl.test" });
    expect(sitemapCandidates("https://docs.example.co.uk/")).toContainEqual({ url: "https://example.co.uk/sitemap.xml", hostSuffix: "docs.example.co.uk" });
  });
});

describe("readSitemaps on the fixture site", () => {
  test("robots Sitemap index + origin sitemap: every listed URL, gzip and text included", async () => {
    const robotsSitemaps = [`${site.origin}/sitemap_index.xml`];
    const r = await readSitemaps(sitemapCandidates(site.origin, robotsSitemaps), { engine });
    expect(new Set(r.urls)).toEqual(new Set(site.urls.sitemapListed));
    expect(r.urls.length).toBe(site.urls.sitemapListed.length);
    for (const u of [...site.urls.blog, ...site.urls.products, ...site.urls.deep, ...site.urls.orphans]) expect(r.urls).toContain(u);
    expect(r.urls).toContain(`${site.origin}/search?q=docs&page=1`);
    expect(r.fetched).toContain(`${site.origin}/sitemaps/blog.xml.gz`);
    expect(r.fetched).toContain(`${site.origin}/sitemaps/extra.xml`);
    expect(r.errors).toEqual([{ url: `${site.origin}/sitemaps/missing.xml`, code: "HTTP_STATUS", message: "HTTP 404" }]);
    expect(r.truncated).toBe(false);
  });

  test("the origin sitemap is a last resort: skipped when others produced URLs", async () => {
    const r = await readSitemaps(sitemapCandidates(`${site.origin}/docs/`, [`${site.origin}/sitemap_index.xml`]), { engine });
    expect(r.urls).toContain(site.urls.docs[0]!);
    expect(site.hits("/docs/sitemap.xml")).toBe(1);
    expect(site.hits("/sitemap.xml")).toBe(0);
    expect(r.urls).not.toContain(site.urls.orphans[0]!);
  });

  test("…and read when nothing else produced a URL", async () => {
    const r = await readSitemaps(sitemapCandidates(`${site.origin}/docs/`), { engine });
    expect(site.hits("/sitemap.xml")).toBe(1);
    expect(r.urls).toContain(site.urls.orphans[0]!);
  });

  test("a hostSuffix keeps only that host's URLs", async () => {
    const r = await readSitemaps([{ url: `${site.origin}/sitemap.xml`, hostSuffix: `www.${site.domain}` }], { engine });
    expect(r.urls).toEqual([`${site.wwwOrigin}/about/`]);
  });

  test("at most 20 sitemaps by default", async () => {
    const r = await readSitemaps([{ url: `${site.origin}/sitemaps/many.xml` }], { engine });
    expect(r.fetched.length).toBe(20);
    expect(r.urls.length).toBe(19 * 10);
    expect(r.truncated).toBe(true);
  });

  test("maxUrls bounds the URLs", async () => {
    const r = await readSitemaps([{ url: `${site.origin}/sitemaps/huge.xml` }], { engine, maxUrls: 100 });
    expect(r.urls.length).toBe(100);
    expect(r.truncated).toBe(true);
  });

  test("an index that lists itself is read once", async () => {
    const r = await readSitemaps([{ url: `${site.origin}/sitemaps/self.xml` }], { engine });
    expect(r.fetched).toEqual([`${site.origin}/sitemaps/self.xml`, `${site.origin}/sitemaps/deep.xml`]);
    expect(r.urls).toEqual(site.urls.deep);
  });

  test("a gzip bomb is refused without inflating it all", async () => {
    const r = await readSitemaps([{ url: `${site.origin}/sitemaps/bomb.xml.gz` }], { engine });
    expect(r.urls).toEqual([]);
    expect(r.errors.length).toBe(1);
  });

  test("an HTML soft 404 is not a sitemap", async () => {
    const r = await readSitemaps([{ url: `${site.origin}/sitemaps/html.xml` }], { engine });
    expect(r.urls).toEqual([]);
    expect(r.errors).toEqual([]);
  });

  test("onUrls receives each file's new URLs", async () => {
    const seen: [number, string][] = [];
    await readSitemaps([{ url: `${site.origin}/sitemaps/nested-index.xml` }], { engine, onUrls: (urls, from) => void seen.push([urls.length, from]) });
    expect(seen).toEqual([[site.urls.deep.length, `${site.origin}/sitemaps/deep.xml`]]);
  });

  test("DNS failures are collected, not thrown", async () => {
    const r = await readSitemaps([{ url: "http://nowhere.invalid/sitemap.xml" }], { engine });
    expect(r.errors[0]!.code).toBe("SCRAPE_DNS_RESOLUTION_ERROR");
  });
});

describe("readSitemaps time bounds", () => {
  test("the overall deadline stops the read", async () => {
    const slow = startCountingServer(async (req) => {
      const p = new URL(req.url).pathname;
      if (p === "/index.xml") return new Response(`<sitemapindex><sitemap><loc>${new URL(req.url).origin}/slow.xml</loc></sitemap></sitemapindex>`);
      await Bun.sleep(2000);
      return new Response("<urlset></urlset>");
    });
    try {
      const t = performance.now();
      const r = await readSitemaps([{ url: `${slow.url}/index.xml` }], { engine, timeoutMs: 300 });
      expect(performance.now() - t).toBeLessThan(1500);
      expect(r.timedOut).toBe(true);
      expect(r.truncated).toBe(true);
    } finally {
      await slow.stop();
    }
  });

  test("the caller's abort rejects", async () => {
    const ac = new AbortController();
    ac.abort(new Error("stop"));
    await expect(readSitemaps([{ url: `${site.origin}/sitemap.xml` }], { engine, signal: ac.signal })).rejects.toThrow("stop");
  });
});
