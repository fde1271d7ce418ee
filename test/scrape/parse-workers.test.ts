/**
 * Parse workers (src/scrape/parse-workers): concurrent and large pages are parsed on worker threads and give
 * the same documents as the main thread; renderers that read the DOM keep the page on the main thread; a crashed
 * worker costs nothing but the hand-over (the page is parsed on the main thread). Real workers, real HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createParsePool, ParseWorkerError } from "../../src/scrape/parse-workers/pool.ts";
import type { ViewOptions } from "../../src/scrape/parse-workers/protocol.ts";
import { startCrawlSite } from "../fixtures/crawl-site.ts";
import { startFixtureSite, type FixtureSite } from "../fixtures/site.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: FixtureSite;
let inline: Harness;
let workers: Harness;

beforeAll(async () => {
  site = startFixtureSite();
  inline = await createHarness({ parseWorkers: 0 });
  workers = await createHarness({ parseWorkers: 2 });
});

afterAll(async () => {
  await inline.close();
  await workers.close();
  site.stop();
});

/** A document without what differs between two runs of the same scrape. */
function comparable(doc: any) {
  const { scrapeId, concurrencyLimited, concurrencyQueueDurationMs, ...metadata } = doc.metadata;
  return { ...doc, metadata };
}

async function scrape(h: Harness, body: Record<string, unknown>) {
  const res = await h.request("/v2/scrape", { method: "POST", json: { maxAge: 0, ...body } });
  expect(res.status).toBe(200);
  return ((await res.json()) as any).data;
}

const CASES: Record<string, unknown>[] = [
  { url: "/article", formats: ["markdown", "html", "links", "images"] },
  { url: "/article", formats: ["markdown"], onlyMainContent: false },
  { url: "/article", formats: ["markdown", "images"], removeBase64Images: false },
  { url: "/article", formats: ["html", "rawHtml"], includeTags: ["article"], excludeTags: ["figure"] },
  { url: "/docs/relative-base.html", formats: ["markdown", "links", "images"] },
  { url: "/docs/body-base.html", formats: ["markdown", "links"] },
  { url: "/sjis", formats: ["markdown"] },
  { url: "/gzip", formats: ["markdown", "links"] },
  { url: "/missing", formats: ["markdown"] },
];

describe("parse workers", () => {
  test("concurrent scrapes go to the workers and give the documents the main thread gives", async () => {
    const bodies = CASES.map((c) => ({ ...c, url: `${site.url}${c.url}` }));
    const expected = [];
    for (const b of bodies) expected.push(comparable(await scrape(inline, b)));
    const before = workers.services.parseWorkers.stats().offloaded;
    const got = await Promise.all(bodies.map((b) => scrape(workers, b)));
    expect(workers.services.parseWorkers.stats().offloaded - before).toBeGreaterThanOrEqual(3);
    expect(workers.services.parseWorkers.stats().failed).toBe(0);
    expect(got.map(comparable)).toEqual(expected);
    expect(inline.services.parseWorkers.stats()).toEqual({ size: 0, live: 0, offloaded: 0, failed: 0 });
  });

  test("a lone small page stays on the main thread; a large one goes to a worker", async () => {
    const before = workers.services.parseWorkers.stats().offloaded;
    await scrape(workers, { url: `${site.url}/article`, formats: ["markdown"] });
    expect(workers.services.parseWorkers.stats().offloaded).toBe(before);
    const large = await scrape(workers, { url: `${site.url}/large`, formats: ["markdown", "links"] });
    expect(workers.services.parseWorkers.stats().offloaded).toBe(before + 1);
    expect(comparable(large)).toEqual(comparable(await scrape(inline, { url: `${site.url}/large`, formats: ["markdown", "links"] })));
    expect(large.markdown).toContain("Padding paragraph 2799");
  });

  test("crawl pages (links collected for discovery) are parsed by the workers too, with the same results", async () => {
    const cs = startCrawlSite({ docs: 24 });
    const a = await createHarness({ parseWorkers: 0, jobConcurrency: 4, perHostConcurrency: 4 }, { resolver: cs.resolver });
    const b = await createHarness({ parseWorkers: 2, jobConcurrency: 4, perHostConcurrency: 4 }, { resolver: cs.resolver });
    try {
      const crawl = async (h: Harness) => {
        const body = { url: cs.url("/docs/"), includePaths: ["^/docs/"], limit: 100, scrapeOptions: { maxAge: 0, formats: ["markdown", "links"] } };
        const started = (await (await h.request("/v2/crawl", { method: "POST", json: body })).json()) as any;
        for (let i = 0; i < 800; i++) {
          const s = (await (await h.request(`/v2/crawl/${started.id}`)).json()) as any;
          if (s.status === "completed") return (s.data as any[]).map((d) => JSON.stringify([d.metadata.sourceURL, d.metadata.title, d.markdown, d.links])).sort();
          await Bun.sleep(25);
        }
        throw new Error("crawl did not finish");
      };
      const viaWorkers = await crawl(b);
      expect(b.services.parseWorkers.stats().offloaded).toBeGreaterThan(0);
      expect(b.services.parseWorkers.stats().failed).toBe(0);
      expect(viaWorkers.length).toBe(cs.urls.docs.length + 1);
      expect(viaWorkers).toEqual(await crawl(a));
    } finally {
      await a.close();
      await b.close();
      await cs.stop();
    }
  }, 30_000);

  test("a format that reads the DOM itself (attributes) keeps the page on the main thread", async () => {
    const before = workers.services.parseWorkers.stats().offloaded;
    const body = { url: `${site.url}/large`, formats: [{ type: "attributes", selectors: [{ selector: "a", attribute: "href" }] }] };
    const doc = await scrape(workers, body);
    expect(workers.services.parseWorkers.stats().offloaded).toBe(before);
    expect(doc.attributes[0].values.length).toBeGreaterThan(2800);
  });

  test("a crashed worker: the page is parsed on the main thread, the crash is logged, the next page gets a new worker", async () => {
    const warnings: string[] = [];
    const log = { debug() {}, info() {}, warn: (m: string) => warnings.push(m), error() {} };
    const h = await createHarness({ parseWorkers: 1 }, { parseWorkerPath: join(import.meta.dir, "..", "fixtures", "crashing-parse-worker.ts"), log: log as any });
    try {
      for (let i = 0; i < 2; i++) {
        const doc = await scrape(h, { url: `${site.url}/large`, formats: ["markdown"] });
        expect(doc.markdown).toContain("Padding paragraph 2799");
      }
      expect(h.services.parseWorkers.stats()).toMatchObject({ offloaded: 0, failed: 2 });
      expect(warnings.filter((w) => w.includes("parse worker crashed")).length).toBe(2);
    } finally {
      await h.close();
    }
  });
});

const VIEW_OPTIONS: ViewOptions = { onlyMainContent: true, removeBase64Images: true } as ViewOptions;

describe("the pool", () => {
  test("rejects invalid sizes; a closed or empty pool refuses work instead of hanging", async () => {
    expect(() => createParsePool({ size: -1 })).toThrow(TypeError);
    const empty = createParsePool({ size: 0 });
    expect(empty.shouldOffload(10_000_000, 5)).toBe(false);
    await expect(empty.compute({ html: "<p>x</p>", pageUrl: "http://x/", contentType: "text/html", options: VIEW_OPTIONS, views: ["markdown"] })).rejects.toBeInstanceOf(ParseWorkerError);
    const pool = createParsePool({ size: 1, largePageChars: 0 });
    expect(pool.shouldOffload(10, 0)).toBe(true);
    const views = await pool.compute({ html: "<html><head><title>T</title></head><body><main><h1>Hi</h1><p>Some words here.</p></main></body></html>", pageUrl: "http://x/", contentType: "text/html", options: VIEW_OPTIONS, views: ["metadata", "markdown"] });
    expect(views.metadata).toMatchObject({ title: "T" });
    expect(views.markdown).toContain("# Hi");
    await pool.close();
    expect(pool.shouldOffload(10_000_000, 5)).toBe(false);
    await expect(pool.compute({ html: "", pageUrl: "http://x/", contentType: "text/html", options: VIEW_OPTIONS, views: [] })).rejects.toBeInstanceOf(ParseWorkerError);
  });
});
