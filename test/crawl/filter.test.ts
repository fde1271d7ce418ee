/**
 * The crawl link filter (api-v2.md §5.4–5.5): every denial reason, every crawler option it reads, the
 * normalised URL and dedup key it hands back, and a small breadth-first crawl of the fixture site driven only
 * by the filter, the robots cache and the engine (what the orchestrator will do, minus the store).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createCrawlFilter, registrableDomain, type FilterOptions } from "../../src/crawl/filter.ts";
import { makeEntry, RobotsCache } from "../../src/crawl/robots-cache.ts";
import { RobotsTxt } from "../../src/crawl/robots.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine } from "../../src/engines/types.ts";
import { extractLinks } from "../../src/pipeline/links.ts";
import { parseHtml } from "../../src/pipeline/parse.ts";
import { startCrawlSite, type CrawlSite } from "../fixtures/crawl-site.ts";

const START = "https://example.com/";
const at = (depth = 0, baseUrl?: string) => ({ depth, baseUrl });
const reason = (link: string, options: FilterOptions = {}, start = START, depth = 0) => {
  const r = createCrawlFilter(start, options).check(link, at(depth));
  return r.ok ? "OK" : r.reason;
};

describe("createCrawlFilter: denial reasons", () => {
  test("DEPTH_LIMIT: nothing passes once the source is at maxDiscoveryDepth", () => {
    expect(reason("/a", { maxDiscoveryDepth: 2 }, START, 1)).toBe("OK");
    expect(reason("/a", { maxDiscoveryDepth: 2 }, START, 2)).toBe("DEPTH_LIMIT");
    expect(reason("/a", { maxDiscoveryDepth: 0 }, START, 0)).toBe("DEPTH_LIMIT");
    expect(reason("https://twitter.com/x", { maxDiscoveryDepth: 1 }, START, 1)).toBe("DEPTH_LIMIT");
    expect(reason("/a", {}, START, 10_000)).toBe("OK");
  });
  test("DEPTH_LIMIT: more than 9999 path segments (index files not counted)", () => {
    expect(reason(`/${"a/".repeat(9999)}index.html`)).toBe("OK");
    expect(reason(`/${"a/".repeat(10_000)}`)).toBe("DEPTH_LIMIT");
  });
  test("URL_PARSE_ERROR: unparseable or not http(s)", () => {
    for (const l of ["http://[bad", "javascript:void(0)", "tel:+123", "ftp://example.com/f", "data:text/html,hi"]) expect(reason(l)).toBe("URL_PARSE_ERROR");
  });
  test("SOCIAL_MEDIA: mailto and the denylisted hosts, subdomains included", () => {
    for (const l of ["mailto:a@example.com", "https://twitter.com/x", "https://www.facebook.com/x", "https://github.com/o/r", "https://uk.linkedin.com/in/x", "https://discord.gg/abc", "https://calendly.com/x"]) {
      expect(reason(l, { allowExternalLinks: true })).toBe("SOCIAL_MEDIA");
    }
    expect(reason("https://notgithub.com/x", { allowExternalLinks: true })).toBe("OK");
  });
  test("SECTION_LINK: internal links with a fragment, except SPA routes", () => {
    expect(reason("/page#section")).toBe("SECTION_LINK");
    expect(reason("#top")).toBe("SECTION_LINK");
    expect(reason("https://www.example.com/x#a")).toBe("SECTION_LINK");
    expect(reason("/#/")).toBe("SECTION_LINK");
    expect(reason("/app#/dashboard/settings")).toBe("OK");
    expect(createCrawlFilter(START).check("/app#/dashboard/settings", at())).toMatchObject({ ok: true, url: "https://example.com/app" });
  });
  test("EXTERNAL_LINK and allowExternalLinks (never a bare external homepage)", () => {
    expect(reason("https://other.org/article")).toBe("EXTERNAL_LINK");
    expect(reason("https://other.org/article", { allowExternalLinks: true })).toBe("OK");
    expect(reason("https://other.org/", { allowExternalLinks: true })).toBe("EXTERNAL_LINK");
    expect(reason("https://other.org", { allowExternalLinks: true })).toBe("EXTERNAL_LINK");
    expect(reason("https://other.org/?q=1", { allowExternalLinks: true })).toBe("OK");
    expect(reason("https://other.org/#x", { allowExternalLinks: true })).toBe("EXTERNAL_LINK");
  });
  test("internal = same host once www. is stripped", () => {
    expect(reason("https://www.example.com/x")).toBe("OK");
    expect(reason("http://example.com/x")).toBe("OK");
    expect(reason("https://blog.example.com/x")).toBe("EXTERNAL_LINK");
    expect(reason("https://example.com/x", {}, "https://www.example.com/")).toBe("OK");
  });
  test("allowSubdomains: same PSL registrable domain", () => {
    expect(reason("https://blog.example.com/x", { allowSubdomains: true })).toBe("OK");
    expect(reason("https://blog.example.com/", { allowSubdomains: true })).toBe("OK");
    expect(reason("https://a.b.example.com/x", { allowSubdomains: true })).toBe("OK");
    expect(reason("https://example.org/x", { allowSubdomains: true })).toBe("EXTERNAL_LINK");
    expect(reason("https://b.shop.co.uk/x", { allowSubdomains: true }, "https://a.shop.co.uk/")).toBe("OK");
    expect(reason("https://other.co.uk/x", { allowSubdomains: true }, "https://shop.co.uk/")).toBe("EXTERNAL_LINK");
    expect(reason("https://bob.github.io/x", { allowSubdomains: true }, "https://alice.github.io/")).toBe("EXTERNAL_LINK");
    expect(reason("http://127.0.0.2/x", { allowSubdomains: true }, "http://127.0.0.1/")).toBe("EXTERNAL_LINK");
    expect(registrableDomain("a.b.example.co.uk")).toBe("example.co.uk");
    expect(registrableDomain("127.0.0.1")).toBeNull();
  });
  test("EXCLUDE_PATTERN: regex on the path; on the full URL with regexOnFullURL", () => {
    expect(reason("/blog/2024/x", { excludePaths: ["^/blog/\\d+"] })).toBe("EXCLUDE_PATTERN");
    expect(reason("/blog/post", { excludePaths: ["^/blog/\\d+"] })).toBe("OK");
    expect(reason("/x?print=1", { excludePaths: ["print=1"] })).toBe("OK");
    expect(reason("/x?print=1", { excludePaths: ["print=1"], regexOnFullURL: true })).toBe("EXCLUDE_PATTERN");
    expect(reason("/x", { excludePaths: ["^https://example\\.com/x$"], regexOnFullURL: true })).toBe("EXCLUDE_PATTERN");
  });
  test("patterns match in linear time with upstream's syntax: (?i) and \\p{L} work; look-around is dropped, as upstream's Rust filter drops it", () => {
    // `(a+)+$` on 30 a's and a "!" took JavaScript's RegExp ~1.4 s a URL (a page of 20 such links held the server 22 s).
    const evil = `/${"a".repeat(5000)}!`;
    const started = performance.now();
    for (let i = 0; i < 20; i++) expect(reason(evil, { excludePaths: ["(a+)+$", "^/(a|aa)+$"] })).toBe("OK");
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(reason("/a", { excludePaths: ["(a+)+$"] })).toBe("EXCLUDE_PATTERN");
    expect(reason("/BLOG/x", { includePaths: ["(?i)^/blog/"] })).toBe("OK");
    expect(reason("/news/x", { includePaths: ["(?i)^/blog/"] })).toBe("INCLUDE_PATTERN");
    expect(reason("/wiki/Zurich", { includePaths: ["^/wiki/\\p{Lu}\\p{L}+$"] })).toBe("OK");
    expect(reason("/wiki/zurich", { includePaths: ["^/wiki/\\p{Lu}\\p{L}+$"] })).toBe("INCLUDE_PATTERN");
    // Look-around and back-references compile in JavaScript but not in RE2 (nor Rust's regex): dropped, not applied.
    expect(reason("/private/x", { excludePaths: ["^/(?!public)"] })).toBe("OK");
    expect(reason("/private/x", { excludePaths: ["^/(?!public)", "^/private"] })).toBe("EXCLUDE_PATTERN");
    expect(reason("/aa/x", { includePaths: ["^/(a)\\1"] })).toBe("OK");
  });
  test("EXCLUDE_PATTERN: an exclude written as a domain refuses that external site", () => {
    const o = { allowExternalLinks: true, excludePaths: ["other.org/private", "https://spam.net"] };
    expect(reason("https://other.org/private/x", o)).toBe("EXCLUDE_PATTERN");
    expect(reason("https://www.other.org/private/x", o)).toBe("EXCLUDE_PATTERN");
    expect(reason("https://other.org/public", o)).toBe("OK");
    expect(reason("https://spam.net/anything", o)).toBe("EXCLUDE_PATTERN");
  });
  test("INCLUDE_PATTERN: at least one must match; empty list allows all", () => {
    expect(reason("/docs/a", { includePaths: ["^/docs/", "^/api/"] })).toBe("OK");
    expect(reason("/api/a", { includePaths: ["^/docs/", "^/api/"] })).toBe("OK");
    expect(reason("/blog/a", { includePaths: ["^/docs/", "^/api/"] })).toBe("INCLUDE_PATTERN");
    expect(reason("/blog/a", { includePaths: [] })).toBe("OK");
    expect(reason("/x?lang=en", { includePaths: ["lang=en"], regexOnFullURL: true })).toBe("OK");
    expect(reason("/x?lang=de", { includePaths: ["lang=en"], regexOnFullURL: true })).toBe("INCLUDE_PATTERN");
  });
  test("invalid regexes are dropped (the request parser refuses them first)", () => {
    expect(reason("/a", { includePaths: ["(", "^/a"] })).toBe("OK");
    expect(reason("/a", { excludePaths: ["["] })).toBe("OK");
  });
  test("BACKWARD_CRAWLING: without crawlEntireDomain the path must start with the start path", () => {
    const start = "https://example.com/blog";
    expect(reason("/blog/post", {}, start)).toBe("OK");
    expect(reason("/blog-archive", {}, start)).toBe("OK"); // upstream's plain prefix test
    expect(reason("/docs", {}, start)).toBe("BACKWARD_CRAWLING");
    expect(reason("/", {}, start)).toBe("BACKWARD_CRAWLING");
    expect(reason("/docs", { crawlEntireDomain: true }, start)).toBe("OK");
    expect(reason("https://other.org/article", { allowExternalLinks: true }, start)).toBe("BACKWARD_CRAWLING");
  });
  test("ROBOTS_TXT: the oracle decides; ignoreRobotsTxt and robotsUserAgent", () => {
    const rules = RobotsTxt.parse("User-agent: *\nDisallow: /star\n\nUser-agent: FireCrawlAgent\nDisallow: /private\n");
    const entry = makeEntry({ origin: "https://example.com", robotsUrl: "https://example.com/robots.txt", status: "ok", rules, fetchedAt: 0, expiresAt: Infinity });
    const f = (o: FilterOptions = {}) => createCrawlFilter(START, o, entry);
    expect(f().check("/private/x", at())).toEqual({ ok: false, reason: "ROBOTS_TXT", url: "https://example.com/private/x" });
    expect(f().check("/star", at()).ok).toBe(true);
    expect(f({ robotsUserAgent: "OtherBot" }).check("/star", at())).toMatchObject({ ok: false, reason: "ROBOTS_TXT" });
    expect(f({ robotsUserAgent: "OtherBot" }).robotsAgents).toEqual(["OtherBot"]);
    expect(f({ ignoreRobotsTxt: true }).check("/private/x", at()).ok).toBe(true);
    // Other origins are unknown to this entry: allowed (robots-parser answers undefined upstream).
    expect(f({ allowSubdomains: true }).check("https://blog.example.com/private/x", at()).ok).toBe(true);
    // robotsAllows is that rule alone, for a URL the scope already accepted (the crawl planner's second step).
    expect(f().robotsAllows("https://example.com/private/x")).toBe(false);
    expect(f().robotsAllows("https://example.com/star")).toBe(true);
    expect(f({ robotsUserAgent: "OtherBot" }).robotsAllows("https://example.com/star")).toBe(false);
    expect(f({ ignoreRobotsTxt: true }).robotsAllows("https://example.com/private/x")).toBe(true);
    expect(f().robotsAllows("https://blog.example.com/private/x")).toBe(true);
  });
  test("FILE_TYPE: asset extensions refused, documents crawled", () => {
    for (const l of ["/a.png", "/a.JPG", "/s.css", "/app.js", "/f.woff2", "/x.zip", "/m.mp4", "/d.xlsx", "/i.webp", "/a.png?v=2"]) expect(reason(l)).toBe("FILE_TYPE");
    for (const l of ["/report.pdf", "/letter.docx", "/page.html", "/x.json", "/script.cgi"]) expect(reason(l)).toBe("OK");
  });
  test("the start URL must be absolute http(s)", () => {
    expect(() => createCrawlFilter("/relative")).toThrow(TypeError);
    expect(() => createCrawlFilter("ftp://example.com/")).toThrow(TypeError);
  });
});

describe("createCrawlFilter: accepted URLs", () => {
  test("relative links resolve against the page; fragments and (optionally) queries are dropped", () => {
    const f = createCrawlFilter("https://example.com/docs/", { ignoreQueryParameters: true });
    expect(f.check("page-2?ref=nav", at(0, "https://example.com/docs/page-1"))).toEqual({
      ok: true,
      url: "https://example.com/docs/page-2",
      key: "example.com/docs/page-2",
      href: "https://example.com/docs/page-2?ref=nav", // what robots.txt rules are matched against
    });
    expect(createCrawlFilter(START).check("/x?b=1", at())).toMatchObject({ url: "https://example.com/x?b=1", key: "example.com/x?b=1" });
  });
  test("similar URLs share a key; deduplicateSimilarURLs:false separates them", () => {
    const f = createCrawlFilter(START);
    const keys = ["/about", "/about/", "/about/index.html", "https://www.example.com/about", "http://example.com/about/index.php"].map((l) => (f.check(l, at()) as { key: string }).key);
    expect(new Set(keys).size).toBe(1);
    const g = createCrawlFilter(START, { deduplicateSimilarURLs: false });
    expect(new Set(["/about", "/about/"].map((l) => (g.check(l, at()) as { key: string }).key)).size).toBe(2);
  });
  test("filterLinks: unique by key, in order, with denials", () => {
    const r = createCrawlFilter(START).filterLinks(["/a", "/a/", "#top", "/b", "https://twitter.com/x", "/a/index.html", "/logo.png"], at());
    expect(r.accepted.map((a) => a.url)).toEqual(["https://example.com/a", "https://example.com/b"]);
    expect(r.denied.map((d) => d.reason)).toEqual(["SECTION_LINK", "SOCIAL_MEDIA", "FILE_TYPE"]);
  });
});

describe("a breadth-first crawl of the fixture site driven by the filter", () => {
  let site: CrawlSite;
  let gate: EgressGate;
  let engine: Engine;
  beforeAll(async () => {
    site = startCrawlSite({ docs: 30, blog: 25, products: 10, slowMs: 10 });
    gate = await createEgressGate({ allowPrivateNetwork: true, resolver: site.resolver });
    engine = createHttpEngine({ gate });
  });
  afterAll(async () => {
    await gate.close();
    await site.stop();
  });

  /** What the orchestrator does, minus the store, the limit, politeness and retries. */
  async function miniCrawl(start: string, options: FilterOptions, maxPages = 1000) {
    const robots = new RobotsCache({ engine });
    await robots.get(start);
    const filter = createCrawlFilter(start, options, robots);
    const first = filter.check(start, { depth: 0 });
    if (!first.ok) throw new Error("start refused");
    const seen = new Set([first.key]);
    const queue = [{ url: first.url, depth: 0 }];
    const visited: string[] = [];
    const denied = new Map<string, Set<string>>();
    while (queue.length > 0 && visited.length < maxPages) {
      const batch = queue.splice(0, 8);
      await Promise.all(
        batch.map(async ({ url, depth }) => {
          await robots.get(url);
          visited.push(url);
          const page = await engine.fetch({ url, timeoutMs: 5000, maxBodyBytes: 1 << 20 }).catch(() => undefined);
          if (!page?.text || !page.contentType.includes("html")) return;
          const links = extractLinks(parseHtml(page.text), page.finalUrl);
          for (const link of links) {
            const r = filter.check(link, { depth, baseUrl: page.finalUrl });
            if (!r.ok) {
              if (!denied.has(r.reason)) denied.set(r.reason, new Set());
              denied.get(r.reason)!.add(r.url);
              continue;
            }
            if (seen.has(r.key)) continue;
            seen.add(r.key);
            queue.push({ url: r.url, depth: depth + 1 });
          }
        }),
      );
    }
    return { visited, denied };
  }

  test("defaults: the whole main host once, robots and denylists obeyed, nothing external resolved", async () => {
    site.reset();
    const { visited, denied } = await miniCrawl(site.origin, {});
    const v = new Set(visited);
    for (const u of [...site.urls.docs, ...site.urls.blog, ...site.urls.deep, site.url("/about"), site.url("/private/open"), site.url("/files/report.pdf")]) expect(v).toContain(u);
    for (const u of [...site.urls.robotsDisallowed, ...site.urls.orphans, ...site.urls.subdomain, ...site.urls.external]) expect(v).not.toContain(u);
    expect(visited.filter((u) => /\/about/.test(new URL(u).pathname) && !u.includes("/go/"))).toEqual([site.url("/about")]);
    expect(denied.get("ROBOTS_TXT")).toEqual(new Set(site.urls.robotsDisallowed));
    expect([...denied.get("SOCIAL_MEDIA")!].sort()).toEqual([...site.urls.social, "mailto:hello@crawl.test"].sort());
    expect(denied.get("FILE_TYPE")!.size).toBe(3);
    expect(denied.get("EXTERNAL_LINK")).toContain(`${site.subOrigin}/post/1`);
    // Only the redirect /go/external leads off the main host; no social host is ever resolved.
    expect([...new Set(site.lookups.filter((h) => !h.endsWith(site.domain)))]).toEqual(["elsewhere.test"]);
    expect(site.hits("/private/secret")).toBe(0);
    expect(site.requests.some((r) => r.host.startsWith("www."))).toBe(false);
    expect(site.requests.filter((r) => r.path === "/robots.txt").length).toBe(1);
  });

  test("maxDiscoveryDepth 1: the start page and its links only", async () => {
    const { visited } = await miniCrawl(site.origin, { maxDiscoveryDepth: 1 });
    expect(visited).toContain(site.url("/docs/"));
    expect(visited).not.toContain(site.urls.docs[0]!);
    expect(visited).toContain(site.url("/deep/1"));
    expect(visited).not.toContain(site.url("/deep/2"));
  });

  test("a start path limits the crawl unless crawlEntireDomain", async () => {
    const under = await miniCrawl(site.url("/docs/"), {});
    expect(under.visited.every((u) => u.startsWith(site.url("/docs/")))).toBe(true);
    expect(under.visited.length).toBe(31);
    const all = await miniCrawl(site.url("/docs/"), { crawlEntireDomain: true });
    expect(all.visited).toContain(site.url("/about"));
  });

  test("allowSubdomains and allowExternalLinks reach the other hosts", async () => {
    const sub = await miniCrawl(site.origin, { allowSubdomains: true, includePaths: ["^/$", "^/post/"] });
    expect(sub.visited).toContain(`${site.subOrigin}/post/1`);
    expect(sub.visited).not.toContain(`${site.externalOrigin}/article/1`);
    const ext = await miniCrawl(site.origin, { allowExternalLinks: true, includePaths: ["^/$", "^/article/"] });
    expect(ext.visited).toContain(`${site.externalOrigin}/article/1`);
    expect(ext.visited).not.toContain(`${site.externalOrigin}/`);
  });

  test("ignoreQueryParameters folds query variants; robotsUserAgent switches groups", async () => {
    const q = await miniCrawl(site.url("/products/"), { ignoreQueryParameters: true });
    expect(q.visited.filter((u) => /item-1($|\?)/.test(u))).toEqual([site.url("/products/item-1")]);
    const withQ = await miniCrawl(site.url("/products/"), {});
    expect(withQ.visited.filter((u) => /item-1\?/.test(u)).sort()).toEqual([site.url("/products/item-1?color=blue"), site.url("/products/item-1?ref=list")]);
    const other = await miniCrawl(site.origin, { robotsUserAgent: "SomeOtherBot", includePaths: ["^/$", "^/star-only/", "^/script"] });
    expect(other.visited).toContain(site.url("/script.cgi"));
    expect(other.visited).not.toContain(site.url("/star-only/page"));
  });
});
