/**
 * Map of a start URL that redirects to another site maps the site it landed on, as a crawl does (api-v2.md §5.6,
 * upstream's `originUrl`): the landed page's links are that site's own, and its sitemaps are the ones read.
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { mapSite, type MapDeps } from "../../src/crawl/map.ts";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import { startCrawlSite, type CrawlSite } from "../fixtures/crawl-site.ts";

let site: CrawlSite;
let gate: EgressGate;
let deps: MapDeps;

beforeAll(async () => {
  site = startCrawlSite({ docs: 2, blog: 1, products: 1, orphans: 1, deepChain: 1, subdomainPages: 1 });
  gate = await createEgressGate({ allowPrivateNetwork: true, resolver: site.resolver });
  const engine = createHttpEngine({ gate });
  deps = { engine, robots: new RobotsCache({ engine }), gate, maxPages: 20 };
});
afterAll(async () => {
  await gate.close();
  await site.stop();
});
beforeEach(() => site.reset());

const urls = (r: { links: { url: string }[] }) => r.links.map((l) => l.url);

test("a start URL redirecting to another host maps the site it landed on", async () => {
  // /go/external → elsewhere.test/article/2, which links to /, which links to /article/1..3.
  const r = await mapSite({ url: `${site.origin}/go/external`, filterByPath: false }, deps);
  const got = urls(r);
  expect(got).toContain(`${site.externalOrigin}/article/2`);
  for (const u of site.urls.external) expect(got).toContain(u);
  // Nothing of the start site beyond the URL asked for (its pages are not the landed site's).
  expect(got.filter((u) => u.startsWith(site.origin))).toEqual([`${site.origin}/go/external`]);
});

test("…under the path it landed on, unless filterByPath is off", async () => {
  const r = await mapSite({ url: `${site.origin}/go/external`, sitemap: "skip" }, deps);
  // The landed page links only to `/`, outside `/article/2`.
  expect(urls(r)).toEqual([`${site.origin}/go/external`, `${site.externalOrigin}/article/2`]);
});

test("the landed site's sitemaps are read, not the start site's", async () => {
  const r = await mapSite({ url: `${site.origin}/go/external`, filterByPath: false }, deps);
  expect(site.requests.some((q) => q.host === new URL(site.externalOrigin).hostname && q.path === "/article/2/sitemap.xml")).toBe(true);
  expect(site.requests.some((q) => q.host === site.domain && q.path.endsWith("sitemap.xml"))).toBe(false);
  expect(r.links.length).toBeGreaterThan(1);
});

test("a start URL redirecting within its own site (www. added) is mapped as before", async () => {
  const r = await mapSite({ url: `${site.origin}/go/docs`, sitemap: "skip", filterByPath: false, limit: 5 }, deps);
  for (const u of urls(r)) expect(new URL(u).hostname.replace(/^www\./, "")).toBe(site.domain);
});
