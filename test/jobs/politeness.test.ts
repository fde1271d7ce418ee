/**
 * Politeness through the whole job path: a robots.txt `Crawl-delay` found by the crawl's kickoff paces the
 * crawl's requests to that host (the job's options change while it runs), and no more than that; when the start page
 * lands on another host, that host's own Crawl-delay paces the crawl there.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startCrawlSite, type CrawlSite } from "../fixtures/crawl-site.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: CrawlSite;
let h: Harness;

beforeAll(async () => {
  site = startCrawlSite({ docs: 6, blog: 2, products: 2, orphans: 1, deepChain: 2, subdomainPages: 1, crawlDelaySeconds: 0.3 });
  h = await createHarness({ jobConcurrency: 8, perHostConcurrency: 8 }, { resolver: site.resolver });
});
afterAll(async () => {
  await h.close();
  await site.stop();
});

test("robots.txt Crawl-delay spaces the crawl's page requests", async () => {
  const created = (await (await h.request("/v2/crawl", { method: "POST", json: { url: `${site.origin}/docs/`, limit: 5, sitemap: "skip" } })).json()) as any;
  let status: any;
  for (let i = 0; i < 400; i++) {
    status = await (await h.request(`/v2/crawl/${created.id}`)).json();
    if (status.status !== "scraping") break;
    await Bun.sleep(25);
  }
  expect(status.status).toBe("completed");
  expect(status.completed).toBe(5);
  const pages = site.requests.filter((r) => r.path.startsWith("/docs/")).map((r) => r.at).sort((a, b) => a - b);
  expect(pages.length).toBe(5);
  // The start page is fetched while the kickoff reads robots.txt; every request after it is at least 300 ms after
  // the previous one, the first gap included (the pace starts when the kickoff learns the delay).
  // (Times are of arrival at the site: a request that left on time but reached it late on a busy machine makes the
  // next gap look short by as much; 275 ms was seen once with two other test processes running.)
  for (let i = 1; i < pages.length; i++) expect(pages[i]! - pages[i - 1]!).toBeGreaterThanOrEqual(250);
  // And not much more: an idle worker wakes when the pace ends, not at its next 1 s poll.
  for (let i = 2; i < pages.length; i++) expect(pages[i]! - pages[i - 1]!).toBeLessThan(800);
});

test("a start page that moves the crawl to another host: that host's robots.txt Crawl-delay paces the crawl there", async () => {
  // The start host asks for no delay; the host its start page redirects to asks for 300 ms.
  const moved = startCrawlSite({ docs: 2, blog: 1, products: 1, orphans: 1, deepChain: 1, subdomainPages: 1, crawlDelaySeconds: 0, externalCrawlDelaySeconds: 0.3 });
  const own = await createHarness({ jobConcurrency: 8, perHostConcurrency: 8 }, { resolver: moved.resolver });
  try {
    const created = (await (await own.request("/v2/crawl", { method: "POST", json: { url: `${moved.origin}/go/external`, limit: 4, crawlEntireDomain: true, sitemap: "skip" } })).json()) as any;
    let status: any;
    for (let i = 0; i < 400; i++) {
      status = await (await own.request(`/v2/crawl/${created.id}`)).json();
      if (status.status !== "scraping") break;
      await Bun.sleep(25);
    }
    expect(status.status).toBe("completed");
    expect(status.completed).toBe(4);
    const external = new URL(moved.externalOrigin).hostname;
    const pages = moved.requests.filter((r) => r.host === external && r.path !== "/robots.txt").map((r) => r.at).sort((a, b) => a - b);
    expect(pages.length).toBe(4); // /article/2 (where the start page landed), then /, /article/1, /article/3
    // (Times are of arrival at the site: a request that left on time but reached it late on a busy machine makes the
  // next gap look short by as much; 275 ms was seen once with two other test processes running.)
  for (let i = 1; i < pages.length; i++) expect(pages[i]! - pages[i - 1]!).toBeGreaterThanOrEqual(250);
  } finally {
    await own.close();
    await moved.stop();
  }
});
