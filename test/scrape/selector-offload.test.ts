/**
 * A scrape cleaned with the caller's CSS selectors (`includeTags`/`excludeTags`) is parsed on a parse worker
 * whenever the pool is on, even a lone small page: css-select runs what the caller wrote, and some selectors cost
 * minutes on a page of a few KB (`p:has(~ p:has(~ x))` is cubic in the number of <p>). On the main thread nothing
 * could stop it and every other request waited (/health included); on a worker the scrape's deadline stops it.
 * Pages without selectors keep the previous rule (a lone small page stays on the main thread). Real workers,
 * real HTTP.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createParsePool, matchesCallerSelectors } from "../../src/scrape/parse-workers/pool.ts";
import type { ViewOptions } from "../../src/scrape/parse-workers/protocol.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const ARTICLE = `<html><head><title>Tomatoes</title></head><body><nav><a href="/">Home</a></nav><main><article><h1>Growing Tomatoes</h1><p class="lead">Start indoors.</p><p>Water <a href="/water">often</a>.</p><aside class="ad">Buy seeds</aside></article></main><footer>Footer</footer></body></html>`;
/** 24 KB: `p:has(~ p:has(~ x))` takes minutes on it (4 s at 800 <p>, cubic). */
const MANY_P = `<html><body>${"<p>a</p>".repeat(3_000)}</body></html>`;

let site: ReturnType<typeof Bun.serve>;
let inline: Harness;
let workers: Harness;

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => new Response(new URL(req.url).pathname === "/many-p" ? MANY_P : ARTICLE, { headers: { "content-type": "text/html" } }),
  });
  inline = await createHarness({ parseWorkers: 0 });
  workers = await createHarness({ parseWorkers: 1 });
});

afterAll(async () => {
  await inline.close();
  await workers.close();
  site.stop(true);
});

const url = (path: string) => `http://127.0.0.1:${site.port}${path}`;

async function scrape(h: Harness, body: Record<string, unknown>, status = 200) {
  const res = await h.request("/v2/scrape", { method: "POST", json: { maxAge: 0, ...body } });
  const json = (await res.json()) as any;
  expect(res.status).toBe(status);
  return status === 200 ? json.data : json;
}

/** A document without what differs between two runs of the same scrape. */
function comparable(doc: any) {
  const { scrapeId, concurrencyLimited, concurrencyQueueDurationMs, ...metadata } = doc.metadata;
  return { ...doc, metadata };
}

const VIEW_OPTIONS = { onlyMainContent: true, removeBase64Images: true, includeTags: [], excludeTags: [] } as ViewOptions;

describe("pages cleaned with the caller's selectors go to a worker", () => {
  test("which options count as the caller's selectors", () => {
    expect(matchesCallerSelectors({ includeTags: [], excludeTags: [] })).toBe(false);
    expect(matchesCallerSelectors({ includeTags: ["main"], excludeTags: [] })).toBe(true);
    expect(matchesCallerSelectors({ includeTags: [], excludeTags: [".ad"] })).toBe(true);
  });

  test("a lone small page with selectors is offloaded; without them it is not; an empty pool never offloads", async () => {
    const pool = createParsePool({ size: 1 });
    expect(pool.shouldOffload(1_000, 0)).toBe(false);
    expect(pool.shouldOffload(1_000, 0, true)).toBe(true);
    await pool.close();
    expect(createParsePool({ size: 0 }).shouldOffload(1_000, 0, true)).toBe(false);
  });

  test("a small page does not wait behind a page with selectors; a page with selectors waits if need be", async () => {
    const pool = createParsePool({ size: 1 });
    const page = { html: ARTICLE, pageUrl: "http://x/", contentType: "text/html", views: ["markdown" as const] };
    const first = pool.compute({ ...page, options: { ...VIEW_OPTIONS, excludeTags: [".ad"] } });
    expect(pool.shouldOffload(ARTICLE.length, 1)).toBe(false);
    expect(pool.shouldOffload(ARTICLE.length, 1, true)).toBe(true);
    const second = pool.compute({ ...page, options: { ...VIEW_OPTIONS, includeTags: ["article"] } });
    expect((await first).markdown).not.toContain("Buy seeds");
    expect((await second).markdown).toContain("Start indoors.");
    expect(pool.stats()).toMatchObject({ offloaded: 2, failed: 0 });
    await pool.close();
  });

  test("lone scrapes with includeTags or excludeTags are parsed by a worker, with the documents the main thread gives", async () => {
    const bodies = [
      { url: url("/article"), formats: ["markdown", "html"], includeTags: ["article"], excludeTags: ["aside"] },
      { url: url("/article"), formats: ["markdown", "links"], excludeTags: [".ad", "nav"] },
      { url: url("/article"), formats: ["html"], includeTags: ["p:first-of-type", "h1 + p ~ p"], onlyMainContent: false },
    ];
    for (const body of bodies) {
      const before = workers.services.parseWorkers.stats().offloaded;
      const got = await scrape(workers, body);
      expect(workers.services.parseWorkers.stats().offloaded).toBe(before + 1);
      expect(comparable(got)).toEqual(comparable(await scrape(inline, body)));
    }
  });

  test("a lone small page without selectors stays on the main thread, as before", async () => {
    const before = workers.services.parseWorkers.stats().offloaded;
    const doc = await scrape(workers, { url: url("/article"), formats: ["markdown"], includeTags: [], excludeTags: [] });
    expect(doc.markdown).toContain("Growing Tomatoes");
    expect(workers.services.parseWorkers.stats().offloaded).toBe(before);
  });

  test("a selector still costly after the patches times out at the scrape's deadline, and the server answers meanwhile", async () => {
    const h = await createHarness({ parseWorkers: 1 });
    try {
      const started = performance.now();
      const hostile = scrape(h, { url: url("/many-p"), formats: ["markdown"], includeTags: ["p:has(~ p:has(~ x))"], timeout: 2_000 }, 408);
      await Bun.sleep(500);
      const healthStarted = performance.now();
      const health = await h.request("/health", { auth: null });
      expect(health.status).toBe(200);
      // On the main thread the page held every request for minutes.
      expect(performance.now() - healthStarted).toBeLessThan(500);
      expect(await hostile).toMatchObject({ success: false, code: "SCRAPE_TIMEOUT" });
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(h.services.parseWorkers.stats()).toMatchObject({ timedOut: 1, disabled: false });
      // The worker was replaced: the next page with selectors is parsed as usual.
      const doc = await scrape(h, { url: url("/article"), formats: ["markdown"], excludeTags: ["aside"] });
      expect(doc.markdown).toContain("Start indoors.");
    } finally {
      await h.close();
    }
  }, 30_000);
});
