/**
 * Parse workers (src/scrape/parse-workers): pages parsed on worker threads give the documents the main thread
 * gives (every case forced onto a worker, then the default rule under concurrency and over a crawl); the views a
 * worker returns are the ones used; renderers that read the DOM keep the page on the main thread. Real workers,
 * real HTTP. (Workers that crash, exit or hang: parse-workers-failing.test.ts; the pool on its own:
 * parse-workers-pool.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createParsePool, LARGE_PAGE_CHARS, type ParsePool } from "../../src/scrape/parse-workers/pool.ts";
import { startCrawlSite } from "../fixtures/crawl-site.ts";
import { startFixtureSite, type FixtureSite } from "../fixtures/site.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { scrape, withPool } from "./parse-workers-helpers.ts";

let site: FixtureSite;
let odd: ReturnType<typeof Bun.serve>;
let inline: Harness;
let workers: Harness;

/** Pages with <meta> names that are also Object.prototype members. */
const PROTO_META = `<html><head><title>Proto</title><meta name="constructor" content="c"><meta name="__proto__" content="p"><meta name="toString" content="t"></head><body><main><h1>Proto</h1><p>Names that are also prototype members.</p></main></body></html>`;

/**
 * Pages whose text differs from their bytes in the ways decoding can differ: byte order marks (one, two, UTF-16),
 * a charset named only by the header, undeclared bytes that are not UTF-8.
 */
const html = (s: string) => `<html><head><title>Charset</title></head><body><main><h1>Charset</h1><p>${s}</p></main></body></html>`;
const utf8 = (s: string) => new TextEncoder().encode(s);
const CHARSET_PAGES: Record<string, { bytes: Uint8Array; type: string }> = {
  "/bom": { bytes: new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(html("Grüße aus Köln, naïve café"))]), type: "text/html" },
  "/bom2": { bytes: new Uint8Array([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, ...utf8(html("zwei Marken"))]), type: "text/html; charset=utf-8" },
  "/utf16": { bytes: new Uint8Array([0xff, 0xfe, ...new Uint8Array(new Uint16Array([...html("ΑΒΓ δέκα λέξεις")].map((c) => c.charCodeAt(0))).buffer)]), type: "text/html" },
  "/header-latin1": { bytes: new Uint8Array([...utf8(html("x")).slice(0, 60), 0xe9, 0xe8, 0xe0, ...utf8(html("caf\u00e9")).slice(60)]), type: "text/html; charset=windows-1252" },
  "/undeclared": { bytes: new Uint8Array([...utf8(html("no charset")).slice(0, 60), 0xe9, 0xff, 0x80, ...utf8(html("x")).slice(60)]), type: "text/html" },
};

beforeAll(async () => {
  site = startFixtureSite();
  odd = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => {
      const page = CHARSET_PAGES[new URL(req.url).pathname];
      return page ? new Response(page.bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": page.type } }) : new Response(PROTO_META, { headers: { "content-type": "text/html" } });
    },
  });
  inline = await createHarness({ parseWorkers: 0 });
  workers = await createHarness({ parseWorkers: 2 });
});

afterAll(async () => {
  await inline.close();
  await workers.close();
  site.stop();
  odd.stop(true);
});

/** A document without what differs between two runs of the same scrape. */
function comparable(doc: any) {
  const { scrapeId, concurrencyLimited, concurrencyQueueDurationMs, ...metadata } = doc.metadata;
  return { ...doc, metadata };
}

const CASES: Record<string, unknown>[] = [
  { url: "/article", formats: ["markdown", "html", "links", "images"] },
  { url: "/article", formats: ["markdown"], onlyMainContent: false },
  { url: "/article", formats: ["markdown", "images"], removeBase64Images: false },
  { url: "/article", formats: ["html", "rawHtml"], includeTags: ["article"], excludeTags: ["figure"] },
  { url: "/docs/relative-base.html", formats: ["markdown", "links", "images"] },
  { url: "/docs/body-base.html", formats: ["markdown", "links"] },
  { url: "/sjis", formats: ["markdown"] },
  { url: "/cp1251", formats: ["markdown"] },
  { url: "/gzip", formats: ["markdown", "links"] },
  { url: "/missing", formats: ["markdown"] },
  { url: "/large", formats: ["markdown", "links"] },
];

describe("parse workers", () => {
  test("every case parsed on a worker gives the document the main thread gives", async () => {
    const pool = createParsePool({ size: 2, largePageChars: 0 });
    const forced = await withPool(pool);
    try {
      const bodies = [
        ...CASES.map((c) => ({ ...c, url: `${site.url}${c.url}` })),
        ...Object.keys(CHARSET_PAGES).map((path) => ({ url: `http://127.0.0.1:${odd.port}${path}`, formats: ["markdown", "html"] })),
        { url: `http://127.0.0.1:${odd.port}/`, formats: ["markdown"] },
      ];
      for (const body of bodies) expect(comparable(await scrape(forced, body))).toEqual(comparable(await scrape(inline, body)));
      // A page from the cache (its text decoded again by the cache).
      const cached = { url: `http://127.0.0.1:${odd.port}/bom`, formats: ["markdown"], maxAge: 600_000 };
      for (const h of [forced, inline]) await scrape(h, cached);
      const [hitForced, hitInline] = [await scrape(forced, cached), await scrape(inline, cached)];
      expect(hitForced.metadata.cacheState).toBe("hit");
      const { cachedAt: _a, ...forcedMeta } = comparable(hitForced).metadata;
      const { cachedAt: _b, ...inlineMeta } = comparable(hitInline).metadata;
      expect({ ...hitForced, metadata: forcedMeta }).toEqual({ ...hitInline, metadata: inlineMeta });
      expect(hitForced.markdown).toContain("Grüße aus Köln");
      expect(pool.stats()).toMatchObject({ offloaded: bodies.length + 2, failed: 0 });
      const proto = await scrape(forced, bodies.at(-1)!);
      expect(proto.metadata).toMatchObject({ constructor: "c", __proto__: "p", toString: "t", title: "Proto" });
    } finally {
      await forced.close();
    }
  });

  test("the views a worker returns are the ones in the document", async () => {
    const sentinel: ParsePool = {
      shouldOffload: () => true,
      compute: async () => ({ metadata: { title: "from the worker" }, markdown: "markdown from the worker", links: ["http://worker.test/"] }),
      stats: () => ({ size: 1, live: 1, offloaded: 0, failed: 0, timedOut: 0, disabled: false }),
      close: async () => {},
    };
    const h = await withPool(sentinel);
    try {
      const doc = await scrape(h, { url: `${site.url}/article`, formats: ["markdown", "links"] });
      expect(doc.markdown).toBe("markdown from the worker");
      expect(doc.links).toEqual(["http://worker.test/"]);
      expect(doc.metadata.title).toBe("from the worker");
      expect(doc.metadata.statusCode).toBe(200);
    } finally {
      await h.close();
    }
  });

  test("by default, concurrent scrapes go to the workers, with the same documents", async () => {
    const bodies = CASES.map((c) => ({ ...c, url: `${site.url}${c.url}` }));
    const expected = [];
    for (const b of bodies) expected.push(comparable(await scrape(inline, b)));
    const before = workers.services.parseWorkers.stats().offloaded;
    const got = await Promise.all(bodies.map((b) => scrape(workers, b)));
    expect(workers.services.parseWorkers.stats().offloaded - before).toBeGreaterThanOrEqual(3);
    expect(workers.services.parseWorkers.stats().failed).toBe(0);
    expect(got.map(comparable)).toEqual(expected);
    expect(inline.services.parseWorkers.stats()).toMatchObject({ size: 0, live: 0, offloaded: 0, failed: 0 });
  });

  test("a lone page goes to a worker only from 1 Mi characters on (below that the hand-over measured slower)", async () => {
    const pool = createParsePool({ size: 1 });
    expect(pool.shouldOffload(512 * 1024, 0)).toBe(false);
    expect(pool.shouldOffload(LARGE_PAGE_CHARS - 1, 0)).toBe(false);
    expect(pool.shouldOffload(LARGE_PAGE_CHARS, 0)).toBe(true);
    expect(pool.shouldOffload(1000, 1)).toBe(true);
    await pool.close();
  });

  test("a lone small page stays on the main thread; a large one goes to a worker", async () => {
    const before = workers.services.parseWorkers.stats().offloaded;
    await scrape(workers, { url: `${site.url}/article`, formats: ["markdown"] });
    expect(workers.services.parseWorkers.stats().offloaded).toBe(before);
    const large = await scrape(workers, { url: `${site.url}/large`, formats: ["markdown"] });
    expect(workers.services.parseWorkers.stats().offloaded).toBe(before + 1);
    expect(large.markdown).toContain("Padding paragraph 9999");
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

  test("a format that reads the DOM itself (product) keeps the page on the main thread; attributes selectors go to a worker", async () => {
    const before = workers.services.parseWorkers.stats().offloaded;
    await scrape(workers, { url: `${site.url}/large`, formats: ["product"] });
    expect(workers.services.parseWorkers.stats().offloaded).toBe(before);
    const body = { url: `${site.url}/large`, formats: [{ type: "attributes", selectors: [{ selector: "a", attribute: "href" }] }] };
    const doc = await scrape(workers, body);
    expect(workers.services.parseWorkers.stats().offloaded).toBe(before + 1);
    expect(doc.attributes[0].values.length).toBeGreaterThan(10000);
  });
});
