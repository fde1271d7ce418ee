/**
 * Crawl options end to end through `POST /v2/crawl` on the generated multi-host fixture site (test/fixtures/
 * crawl-site.ts): scope rules, robots.txt, sitemaps, dedup, query parameters, depth, subdomains, external and
 * social links. The filter rules themselves are unit-tested in test/crawl; this checks the whole path.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createCrawlPlanner } from "../../src/jobs/crawl-planner.ts";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import { StartPageDisallowedError } from "../../src/crawl/errors.ts";
import type { Job } from "../../src/jobs/types.ts";
import { silentLogger } from "../../src/log.ts";
import { startCrawlSite, type CrawlSite } from "../fixtures/crawl-site.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: CrawlSite;
let h: Harness;

beforeAll(async () => {
  site = startCrawlSite({ docs: 12, blog: 12, products: 6, orphans: 3, deepChain: 5, subdomainPages: 3, slowMs: 50, crawlDelaySeconds: 0 });
  h = await createHarness({ retryBaseDelayMs: 20, jobConcurrency: 8, perHostConcurrency: 8 }, { resolver: site.resolver });
});
afterAll(async () => {
  await h.close();
  await site.stop();
});

/** Runs a crawl to its end; returns the crawled paths (host-relative for the main site) and the errors body. */
async function crawl(body: Record<string, unknown>) {
  const res = await h.request("/v2/crawl", { method: "POST", json: { url: `${site.origin}/`, ...body } });
  const created = (await res.json()) as any;
  expect(created.success).toBe(true);
  const deadline = Date.now() + 60_000;
  let status: any;
  while (Date.now() < deadline) {
    status = await (await h.request(`/v2/crawl/${created.id}?limit=1000`)).json();
    if (status.status !== "scraping") break;
    await Bun.sleep(50);
  }
  expect(status.status).toBe("completed");
  const urls: string[] = status.data.map((d: any) => d.metadata.sourceURL as string);
  const paths = urls.map((u) => (u.startsWith(site.origin) ? u.slice(site.origin.length) : u));
  const errors = (await (await h.request(`/v2/crawl/${created.id}/errors`)).json()) as any;
  const finals: string[] = status.data.map((d: any) => d.metadata.url as string);
  return { status, urls, paths, finals, errors };
}

describe("crawl options through the API", () => {
  test("limit is enforced and pages are unique under www/slash/index.html variants", async () => {
    const { status, urls, errors } = await crawl({ limit: 25, crawlEntireDomain: true, sitemap: "skip" });
    // Pages that failed for good (a redirect loop, say) are in /errors, not in data, and a page that redirected to one
    // the crawl already has is in neither (upstream hides that error too); each gave its place back, as upstream's
    // limit counts the pages that did not fail (api-v2.md §5.6): the site has more than 25 pages, so 25 results.
    expect(urls.length).toBe(25);
    expect(status.completed).toBe(status.total);
    expect(status.total).toBeGreaterThan(25);
    expect(errors.errors.length).toBeLessThanOrEqual(status.total - 25);
    const canon = urls.map((u) => u.replace("://www.", "://").replace(/\/index\.(html|php)$/, "/").replace(/\/$/, ""));
    expect(new Set(canon).size).toBe(urls.length);
    const finals = status.data.map((d: any) => String(d.metadata.url).replace("://www.", "://").replace(/\/index\.(html|php)$/, "/").replace(/\/$/, ""));
    expect(new Set(finals).size).toBe(finals.length);
  });

  test("includePaths and excludePaths (regex on the path); a start page they refuse has its links followed but is an error, not a result", async () => {
    const { paths, errors, status } = await crawl({ limit: 200, crawlEntireDomain: true, sitemap: "skip", includePaths: ["^/docs/"], excludePaths: ["page-1[0-9]"] });
    expect(paths.length).toBeGreaterThan(3);
    for (const p of paths) {
      expect(p).toStartWith("/docs/");
      expect(p).not.toMatch(/page-1[0-9]/);
    }
    // Upstream's CrawlDenialError of the source page: in /errors, not in data, not charged.
    expect(errors.errors).toContainEqual(expect.objectContaining({ url: `${site.origin}/`, code: "CRAWL_DENIAL" }));
    expect(errors.errors.find((e: any) => e.url === `${site.origin}/`).error).toContain("the crawl's start page, is not one of its results");
    expect(status.creditsUsed).toBe(paths.length);
  });

  test("a start URL without its root path's slash is not reported as redirected to itself with the slash", async () => {
    const { errors } = await crawl({ url: site.origin, limit: 5, sitemap: "skip", includePaths: ["^/docs/"] });
    const start = errors.errors.find((e: any) => e.code === "CRAWL_DENIAL" && new URL(e.url).pathname === "/");
    expect(start.error).toContain("the crawl's start page, is not one of its results");
    expect(start.error).not.toContain("redirected");
  });

  test("a pattern the matcher cannot apply (look-around) is dropped, as upstream drops it, and the status says so", async () => {
    const { status } = await crawl({ limit: 3, crawlEntireDomain: true, sitemap: "skip", includePaths: ["^/(?!private)docs/"] });
    expect(status.warning).toContain('These includePaths/excludePaths patterns were not applied: "^/(?!private)docs/"');
    const plain = await crawl({ limit: 3, crawlEntireDomain: true, sitemap: "skip", includePaths: ["^/docs/"] });
    expect(plain.status.warning ?? "").not.toContain("not applied");
  });

  test("without crawlEntireDomain only pages under the start path are crawled", async () => {
    const res = await h.request("/v2/crawl", { method: "POST", json: { url: `${site.origin}/docs/`, limit: 200, sitemap: "skip" } });
    const created = (await res.json()) as any;
    let status: any;
    for (let i = 0; i < 600; i++) {
      status = await (await h.request(`/v2/crawl/${created.id}?limit=1000`)).json();
      if (status.status !== "scraping") break;
      await Bun.sleep(50);
    }
    const paths = status.data.map((d: any) => new URL(d.metadata.sourceURL).pathname);
    expect(paths.length).toBeGreaterThan(5);
    for (const p of paths) expect(p).toStartWith("/docs/");
  });

  test("maxDiscoveryDepth 1: the start page and the pages it links to, nothing further", async () => {
    const { paths } = await crawl({ limit: 500, crawlEntireDomain: true, sitemap: "skip", maxDiscoveryDepth: 1, excludePaths: ["^/slow/", "^/busy/", "^/error/", "^/flaky/"] });
    expect(paths).toContain("/");
    expect(paths).toContain("/deep/1");
    expect(paths).not.toContain("/deep/2");
    expect(paths.some((p) => /^\/docs\/page-\d+$/.test(p))).toBe(false);
  });

  test("robots.txt: disallowed pages are not fetched and are reported; ignoreRobotsTxt fetches them", async () => {
    site.reset();
    const honoured = await crawl({ limit: 500, crawlEntireDomain: true, sitemap: "skip", maxDiscoveryDepth: 1, excludePaths: ["^/slow/", "^/busy/"] });
    expect(honoured.paths).not.toContain("/private/secret");
    expect(honoured.paths).not.toContain("/script.cgi");
    expect(honoured.paths).toContain("/private/open");
    expect(honoured.errors.robotsBlocked.map((u: string) => new URL(u).pathname)).toContain("/private/secret");
    expect(site.hits("/private/secret")).toBe(0);
    expect(honoured.status.warning).toContain("robots.txt");
    const ignored = await crawl({ limit: 500, crawlEntireDomain: true, sitemap: "skip", maxDiscoveryDepth: 1, ignoreRobotsTxt: true, excludePaths: ["^/slow/", "^/busy/"] });
    expect(ignored.paths).toContain("/private/secret");
  });

  test("sitemap: only crawls the sitemap's URLs (index, gzip and text sitemaps included); skip ignores them", async () => {
    const only = await crawl({ limit: 500, crawlEntireDomain: true, sitemap: "only" });
    expect(only.paths).toContain("/orphans/page-1");
    expect(only.paths.some((p) => p.startsWith("/blog/post-"))).toBe(true); // from blog.xml.gz
    expect(only.paths.some((p) => p.startsWith("/products/item-"))).toBe(true); // from products.txt
    // The start page too (upstream's kickoff enqueues it), and no page's links are followed: the sitemap's pages
    // alone (it followed every page's links, and left out the start page).
    expect(only.paths).toContain("/");
    const listed = new Set(site.urls.sitemapListed.map((u) => (u.startsWith(site.origin) ? u.slice(site.origin.length) : u)));
    expect(only.paths.filter((p) => p !== "/" && !listed.has(p))).toEqual([]);
    const skipped = await crawl({ limit: 500, crawlEntireDomain: true, sitemap: "skip", excludePaths: ["^/slow/", "^/busy/"] });
    expect(skipped.paths).not.toContain("/orphans/page-1"); // linked from nowhere
  });

  test("ignoreQueryParameters collapses query variants, and still fetches the link with its query", async () => {
    const withQuery = await crawl({ limit: 500, crawlEntireDomain: true, sitemap: "skip", includePaths: ["^/products/"] });
    const without = await crawl({ limit: 500, crawlEntireDomain: true, sitemap: "skip", includePaths: ["^/products/"], ignoreQueryParameters: true });
    expect(withQuery.urls.some((u) => u.includes("?"))).toBe(true);
    const pathsWithout = without.urls.map((u) => new URL(u).pathname);
    expect(new Set(pathsWithout).size).toBe(pathsWithout.length); // one page per path
    expect(without.urls.length).toBeLessThan(withQuery.urls.length);
    // The query only leaves the dedup key: items are linked as `item-N?ref=list` (or `?ref=home` from the home
    // page), and that is what was fetched.
    const items = without.urls.filter((u) => u.includes("/products/item-"));
    expect(items.length).toBeGreaterThan(3);
    for (const u of items) expect(u).toMatch(/\?ref=(list|home)$/);
  });

  test("maxDiscoveryDepth 0: the start page only, sitemap pages included", async () => {
    const { paths } = await crawl({ limit: 500, crawlEntireDomain: true, maxDiscoveryDepth: 0 });
    expect(paths).toEqual(["/"]);
  });

  test("redirects: one leaving the crawl's scope is a CRAWL_DENIAL error; one landing on a crawled page is not a second copy", async () => {
    const { urls, finals, errors } = await crawl({ limit: 500, crawlEntireDomain: true, sitemap: "skip", maxDiscoveryDepth: 1, excludePaths: ["^/slow/", "^/busy/"] });
    // /go/external → elsewhere.test/article/2 (external links are not allowed): an error, not a document.
    expect(urls).not.toContain(`${site.origin}/go/external`);
    const denial = errors.errors.find((e: any) => e.url === `${site.origin}/go/external`);
    expect(denial?.code).toBe("CRAWL_DENIAL");
    expect(denial?.error).toContain(`${site.externalOrigin}/article/2`);
    // /go/about → /about/ and /go/docs → /docs/page-1, both also linked directly: each landing page once,
    // whichever task got there first; no page twice at all.
    const canon = finals.map((u) => u.replace(/\/$/, ""));
    expect(canon.filter((u) => u === `${site.origin}/about`).length).toBe(1);
    expect(canon.filter((u) => u === `${site.origin}/docs/page-1`).length).toBe(1);
    expect(new Set(canon).size).toBe(canon.length);
    // The duplicate is not an error a user has to look at (upstream hides SCRAPE_RACED_REDIRECT_ERROR too).
    expect(errors.errors.some((e: any) => e.code === "SCRAPE_RACED_REDIRECT_ERROR")).toBe(false);
  });

  test("a start page that redirects to another host moves the crawl there: that site's links are its own", async () => {
    // /go/external → elsewhere.test/article/2, which links to elsewhere.test/, which links to /article/1..3.
    const { finals, status } = await crawl({ url: `${site.origin}/go/external`, limit: 20, crawlEntireDomain: true, sitemap: "skip" });
    expect(status.data[0] && finals.every((u) => u.startsWith(site.externalOrigin))).toBe(true);
    expect([...finals].sort()).toEqual([`${site.externalOrigin}/`, ...[1, 2, 3].map((i) => `${site.externalOrigin}/article/${i}`)].sort());
  });

  test("a start page that moved the crawl to another host and is refused as a result still moves it there", async () => {
    // /go/external lands on elsewhere.test/article/2, which the excludes refuse: an error, but its links, and theirs,
    // are judged from elsewhere.test (the crawl stopped one level deep when the move was not kept).
    const { finals, errors } = await crawl({ url: `${site.origin}/go/external`, limit: 20, crawlEntireDomain: true, sitemap: "skip", excludePaths: ["^/article/2$"] });
    expect([...finals].sort()).toEqual([`${site.externalOrigin}/`, `${site.externalOrigin}/article/1`, `${site.externalOrigin}/article/3`]);
    expect(errors.errors).toMatchObject([{ url: `${site.origin}/go/external`, code: "CRAWL_DENIAL" }]);
  });

  test("the kickoff judges its sitemaps from the start URL, whether or not the start page already moved the crawl", async () => {
    const planner = createCrawlPlanner({ engine: h.services.discoveryHttp, robots: h.services.robots, log: silentLogger });
    const job = { id: crypto.randomUUID(), kind: "crawl", url: `${site.origin}/`, options: { crawlerOptions: { crawlEntireDomain: true, limit: 50 } } } as unknown as Job;
    // Another job id: the planner remembers what it handed over per job.
    const moved = { ...job, id: crypto.randomUUID(), options: { ...job.options, originUrl: `${site.externalOrigin}/article/2` } } as Job;
    const signal = new AbortController().signal;
    const before = (await planner.kickoff(job, signal)).discovered.map((t) => t.url).sort();
    const after = (await planner.kickoff(moved, signal)).discovered.map((t) => t.url).sort();
    expect(before.length).toBeGreaterThan(5);
    expect(after).toEqual(before);
  });

  test("a start page sent to a social network does not make it the crawl's site", async () => {
    const planner = createCrawlPlanner({ engine: h.services.discoveryHttp, robots: h.services.robots, log: silentLogger });
    const job = { id: "j", kind: "crawl", url: `${site.origin}/`, options: {} } as unknown as Job;
    expect(planner.originAfterRedirect(job, "https://www.facebook.com/somebrand")).toBeUndefined();
    expect(planner.originAfterRedirect(job, `${site.wwwOrigin}/`)).toBeUndefined(); // www. added: the same site
    expect(planner.originAfterRedirect(job, `${site.externalOrigin}/article/2`)).toBe(`${site.externalOrigin}/article/2`);
  });

  test("subdomains and external links only when allowed; social links never", async () => {
    const base = { limit: 500, crawlEntireDomain: true, sitemap: "skip", maxDiscoveryDepth: 1, excludePaths: ["^/slow/", "^/busy/"] };
    const plain = await crawl(base);
    expect(plain.urls.some((u) => u.startsWith(site.subOrigin))).toBe(false);
    expect(plain.urls.some((u) => u.startsWith(site.externalOrigin))).toBe(false);
    const subs = await crawl({ ...base, allowSubdomains: true });
    expect(subs.urls.some((u) => u.startsWith(site.subOrigin))).toBe(true);
    const ext = await crawl({ ...base, allowExternalLinks: true });
    expect(ext.urls.some((u) => u.startsWith(site.externalOrigin))).toBe(true);
    expect(site.lookups.some((name) => /facebook|twitter|linkedin|github/.test(name))).toBe(false);
  }, 30_000); // three crawls, two of them reaching the other hosts (≈ 2 s each on a quiet machine)
});

describe("the start page and robots.txt", () => {
  test("a start page robots.txt disallows, or a robots.txt answering 503, is not fetched: CRAWL_DENIAL in /errors", async () => {
    for (const robots of ["disallow", "503"] as const) {
      const hits: string[] = [];
      const own = Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        fetch(req) {
          const path = new URL(req.url).pathname;
          hits.push(path);
          if (path === "/robots.txt") return robots === "503" ? new Response("down", { status: 503 }) : new Response("User-agent: *\nDisallow: /\n");
          return new Response(`<html><body><h1>${path}</h1><a href="/a">a</a></body></html>`, { headers: { "content-type": "text/html" } });
        },
      });
      try {
        const start = `http://127.0.0.1:${own.port}/start`;
        const refused = await crawl({ url: start, limit: 5, sitemap: "skip" }); // completes (checked by crawl())
        expect(refused.status.data).toEqual([]);
        expect(hits).toEqual(["/robots.txt"]);
        expect(refused.errors.errors).toMatchObject([{ url: start, code: "CRAWL_DENIAL" }]);
        // Reported as robots-blocked too, with the status's warning (upstream's recordRobotsBlocked of the start URL).
        expect(refused.errors.robotsBlocked).toEqual([start]);
        expect(refused.status.warning).toContain("robots.txt file prevented this");
        // Not upstream's "Only 0 result(s) found… try crawlEntireDomain=true": only ignoreRobotsTxt would help.
        expect(refused.status.warning).not.toContain("result(s) found");
        // ignoreRobotsTxt fetches it.
        const again = await crawl({ url: start, limit: 1, sitemap: "skip", ignoreRobotsTxt: true });
        expect(again.urls).toEqual([start]);
      } finally {
        own.stop(true);
      }
    }
  });

  test("a robots.txt that times out disallows the start page, as a 5xx does (RFC 9309 unreachable); one that cannot be reached at all does not", async () => {
    const slow = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        if (new URL(req.url).pathname === "/robots.txt") await Bun.sleep(3_000);
        return new Response("<p>page</p>", { headers: { "content-type": "text/html" } });
      },
    });
    try {
      const robots = new RobotsCache({ engine: h.services.discoveryHttp, timeoutMs: 300 });
      const planner = createCrawlPlanner({ engine: h.services.discoveryHttp, robots, log: silentLogger });
      const job = (url: string) => ({ id: crypto.randomUUID(), kind: "crawl", url, options: { crawlerOptions: {} } }) as unknown as Job;
      const signal = new AbortController().signal;
      expect(await planner.startAllowed(job(`http://127.0.0.1:${slow.port}/`), signal)).toBe("unreachable");
      const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("x") });
      const gone = `http://127.0.0.1:${closed.port}/`;
      closed.stop(true);
      expect(await planner.startAllowed(job(gone), signal)).toBe(true);
      expect(new StartPageDisallowedError("http://x/", true).message).toContain("could not be read");
      expect(new StartPageDisallowedError("http://x/").message).not.toContain("5xx");
    } finally {
      slow.stop(true);
    }
  });

  test("when robots.txt cannot be fetched at all, the start page reports its own error (not a robots denial)", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("x") });
    const start = `http://127.0.0.1:${closed.port}/`;
    closed.stop(true);
    const { errors } = await crawl({ url: start, limit: 2, sitemap: "skip" });
    expect(errors.errors[0]?.code).toBe("SCRAPE_SITE_ERROR");
  }, 30_000);
});
