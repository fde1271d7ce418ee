/**
 * The crawl fixture site itself: host routing through the egress gate with the injected resolver, duplicates,
 * robots.txt, the PDF, and the stateful trouble pages (429 then 200, flaky 500), so crawl tests can trust it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import * as mupdf from "mupdf";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine } from "../../src/engines/types.ts";
import { startCrawlSite, type CrawlSite } from "../fixtures/crawl-site.ts";

let site: CrawlSite;
let gate: EgressGate;
let engine: Engine;
beforeAll(async () => {
  site = startCrawlSite({ slowMs: 200, busyTimes: 2 });
  gate = await createEgressGate({ allowPrivateNetwork: true, resolver: site.resolver });
  engine = createHttpEngine({ gate });
});
afterAll(async () => {
  await gate.close();
  await site.stop();
});
beforeEach(() => site.reset());
const get = (url: string, timeoutMs = 5000) => engine.fetch({ url, timeoutMs, maxBodyBytes: 1 << 20 });

describe("crawl fixture site", () => {
  test("hosts are told apart by name; unknown names do not resolve", async () => {
    expect((await get(`${site.origin}/`)).text).toContain("Crawl fixture home");
    expect((await get(`${site.wwwOrigin}/about/index.html`)).text).toContain("About the fixture");
    expect((await get(`${site.subOrigin}/post/2`)).text).toContain("Subdomain post 2");
    expect((await get(`${site.externalOrigin}/article/1`)).text).toContain("External article 1");
    await expect(get(`http://twitter.com:${site.port}/`)).rejects.toMatchObject({ code: "SCRAPE_DNS_RESOLUTION_ERROR" });
    expect(site.lookups).toContain("twitter.com");
    expect(site.hits("/about/index.html", `www.${site.domain}`)).toBe(1);
  });

  test("about 300 pages on the main host by default", () => {
    const u = site.urls;
    expect(u.docs.length + u.blog.length + u.products.length + u.orphans.length + u.deep.length).toBeGreaterThanOrEqual(260);
  });

  test("robots.txt and its runtime override", async () => {
    expect((await get(`${site.origin}/robots.txt`)).text).toContain("User-agent: FireCrawlAgent");
    site.setRobots({ status: 503 });
    expect((await get(`${site.origin}/robots.txt`)).statusCode).toBe(503);
    site.setRobots();
    expect((await get(`${site.origin}/robots.txt`)).statusCode).toBe(200);
  });

  test("the PDF is a real one-page PDF", async () => {
    const page = await get(`${site.origin}/files/report.pdf`);
    expect(page.contentType).toBe("application/pdf");
    const doc = mupdf.Document.openDocument(page.body, "application/pdf");
    expect(doc.countPages()).toBe(1);
    expect(doc.loadPage(0).toStructuredText("preserve-whitespace").asText()).toContain("crawlbox fixture report");
  });

  test("429 with Retry-After the first busyTimes hits, then 200; flaky 500 once", async () => {
    const a = await get(`${site.origin}/busy/7`);
    expect(a.statusCode).toBe(429);
    expect(a.headers["retry-after"]).toBe("1");
    expect((await get(`${site.origin}/busy/7`)).statusCode).toBe(429);
    expect((await get(`${site.origin}/busy/7`)).statusCode).toBe(200);
    expect((await get(`${site.origin}/flaky/3`)).statusCode).toBe(500);
    expect((await get(`${site.origin}/flaky/3`)).statusCode).toBe(200);
    expect((await get(`${site.origin}/error/500`)).statusCode).toBe(500);
    expect((await get(`${site.origin}/error/503`)).headers["retry-after"]).toBe("1");
  });

  test("slow pages, redirects and loops", async () => {
    const t = performance.now();
    expect((await get(`${site.origin}/slow/1`)).statusCode).toBe(200);
    expect(performance.now() - t).toBeGreaterThanOrEqual(190);
    await expect(get(`${site.origin}/slow/2`, 100)).rejects.toMatchObject({ code: "SCRAPE_TIMEOUT" });
    expect((await get(`${site.origin}/go/docs`)).finalUrl).toBe(site.urls.docs[0]!);
    expect((await get(`${site.origin}/go/external`)).finalUrl).toBe(`${site.externalOrigin}/article/2`);
    expect((await get(`${site.origin}/go/chain/4`)).finalUrl).toBe(`${site.origin}/about`);
    await expect(get(`${site.origin}/go/loop`)).rejects.toMatchObject({ code: "SCRAPE_SITE_ERROR" });
  });
});
