/**
 * `POST /v2/scrape`'s metadata and transport (redirects, 404s, compression, charsets, headers, the timeout), the cache
 * (maxAge, minAge, storeInCache, zeroDataRetention), stored results, personal requests, and the slot queue. Set-up
 * in scrape-site.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type { FixtureSite } from "../fixtures/site.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { useScrapeSite } from "./scrape-site.ts";

const ctx = useScrapeSite();
let site: FixtureSite;
let h: Harness;
beforeAll(() => ({ site, h } = ctx));
const { scrape } = ctx;

describe("POST /v2/scrape metadata and transport", () => {
  test("metadata: page fields, og/dc/article fields, custom meta, transport fields", async () => {
    const { body } = await scrape({ url: `${site.url}/article`, maxAge: 0 });
    const m = body.data.metadata;
    expect(m.title).toBe("Growing Tomatoes Indoors");
    expect(m.description).toBe("A practical guide to indoor tomatoes.");
    expect(m.language).toBe("en-GB");
    expect(m.keywords).toBe("tomatoes, gardening");
    expect(m.robots).toBe("index, follow");
    expect(m.ogTitle).toBe("Growing Tomatoes Indoors (OG)");
    expect(m.ogDescription).toBe("OG description");
    expect(m.ogSiteName).toBe("Fixture Gardens");
    expect(m.ogLocale).toBe("en_GB");
    expect(m.ogLocaleAlternate).toEqual(["fr_FR", "de_DE"]);
    expect(m.publishedTime).toBe("2026-01-02T03:04:05Z");
    expect(m.articleTag).toBe("gardening");
    expect(m.dcSubject).toBe("Horticulture");
    expect(m["twitter:card"]).toBe("summary");
    expect(m.author).toBe("Ada Gardener");
    expect(m.favicon).toBe(`${site.url}/favicon.png`);
    expect(m.url).toBe(`${site.url}/article`);
    expect(m.sourceURL).toBe(`${site.url}/article`);
    expect(m.statusCode).toBe(200);
    expect(m.contentType).toBe("text/html; charset=utf-8");
    expect(m.scrapeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(m.proxyUsed).toBe("basic");
    expect(m.cacheState).toBe("miss");
    expect(m.creditsUsed).toBe(1);
    expect(Object.keys(body.data).at(-1)).toBe("metadata");
  });

  test("redirects are followed: url is final, sourceURL is what was asked (unnormalised)", async () => {
    const asked = `${site.url}/redirect-chain`;
    const { body } = await scrape({ url: asked });
    expect(body.data.metadata.url).toBe(`${site.url}/article`);
    expect(body.data.metadata.sourceURL).toBe(asked);
    expect(body.data.markdown).toContain("Growing Tomatoes Indoors");
  });

  test("a 404 page is a successful scrape with statusCode 404 and metadata.error", async () => {
    const { status, body } = await scrape({ url: `${site.url}/missing` });
    expect(status).toBe(200);
    expect(body.data.metadata.statusCode).toBe(404);
    expect(body.data.metadata.error).toContain("404");
    expect(body.data.markdown).toContain("Nothing grows here");
  });

  test("gzip and brotli bodies decode to the same document", async () => {
    const plain = await scrape({ url: `${site.url}/article`, formats: ["rawHtml"] });
    const gz = await scrape({ url: `${site.url}/gzip`, formats: ["rawHtml"] });
    const br = await scrape({ url: `${site.url}/br`, formats: ["rawHtml"] });
    expect(gz.body.data.rawHtml).toBe(plain.body.data.rawHtml);
    expect(br.body.data.rawHtml).toBe(plain.body.data.rawHtml);
  });

  test("legacy charsets decode (meta Shift_JIS, header windows-1251)", async () => {
    const sj = await scrape({ url: `${site.url}/sjis` });
    expect(sj.body.data.markdown).toContain("こんにちは世界");
    const cp = await scrape({ url: `${site.url}/cp1251` });
    expect(cp.body.data.markdown).toContain("Привет");
  });

  test("custom headers and location languages reach the site", async () => {
    const { body } = await scrape({
      url: `${site.url}/echo-headers`,
      headers: { "X-Fixture": "yes", "User-Agent": "fixture-agent/1.0" },
      location: { country: "DE", languages: ["de-DE", "en"] },
    });
    const echoed = JSON.parse(body.data.markdown.replace(/^```\w*\n?|```$/gm, "").trim());
    expect(echoed["x-fixture"]).toBe("yes");
    expect(echoed["user-agent"]).toBe("fixture-agent/1.0");
    // `location` is served by the browser when Chromium is present (Chrome writes "de-DE,en;q=0.9"), else by HTTP.
    expect(echoed["accept-language"]).toMatch(/^de-DE, ?en;q=0\.9$/);
  });

  test("a slow page hits the timeout with 408 SCRAPE_TIMEOUT, promptly", async () => {
    const t0 = performance.now();
    const { status, body } = await scrape({ url: `${site.url}/slow?ms=5000`, timeout: 1000 });
    const elapsed = performance.now() - t0;
    expect(status).toBe(408);
    expect(body.code).toBe("SCRAPE_TIMEOUT");
    expect(elapsed).toBeLessThan(2500);
  });
});

describe("cache, minAge, zeroDataRetention and stored results", () => {
  test("second scrape is a cache hit with cachedAt; maxAge 0 fetches fresh", async () => {
    const url = `${site.url}/counter?k=a`;
    const a = await scrape({ url });
    expect(a.body.data.metadata.cacheState).toBe("miss");
    expect(a.body.data.markdown).toContain("Visit number 1");
    const b = await scrape({ url, formats: ["markdown", "links"] });
    expect(b.body.data.metadata.cacheState).toBe("hit");
    expect(b.body.data.metadata.cachedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(b.body.data.markdown).toContain("Visit number 1");
    const c = await scrape({ url, maxAge: 0 });
    expect(c.body.data.metadata.cacheState).toBe("miss");
    expect(c.body.data.markdown).not.toContain("Visit number 1");
  });

  test("minAge serves only cached data: 404 SCRAPE_NO_CACHED_DATA on a miss", async () => {
    const url = `${site.url}/counter?k=minage`;
    const before = site.hits.get("/counter") ?? 0;
    const miss = await scrape({ url, minAge: 0 });
    expect(miss.status).toBe(404);
    expect(miss.body.code).toBe("SCRAPE_NO_CACHED_DATA");
    expect(site.hits.get("/counter") ?? 0).toBe(before);
    await scrape({ url });
    const hit = await scrape({ url, minAge: 0 });
    expect(hit.status).toBe(200);
    expect(hit.body.data.metadata.cacheState).toBe("hit");
    const tooYoung = await scrape({ url, minAge: 3_600_000 });
    expect(tooYoung.status).toBe(404);
  });

  test("storeInCache:false and custom headers do not write the cache", async () => {
    const url = `${site.url}/counter?k=nostore`;
    await scrape({ url, storeInCache: false });
    expect((await scrape({ url, minAge: 0 })).status).toBe(404);
    await scrape({ url, headers: { "X-A": "1" } });
    expect((await scrape({ url, minAge: 0 })).status).toBe(404);
  });

  test("zeroDataRetention stores nothing: no cache read or write, no result row", async () => {
    const url = `${site.url}/counter?k=zdr`;
    await scrape({ url });
    const z = await scrape({ url, zeroDataRetention: true });
    expect(z.body.data.metadata.cacheState).toBe("miss");
    const id = z.body.data.metadata.scrapeId;
    const get = await h.request(`/v2/scrape/${id}`);
    expect(get.status).toBe(404);
    const rows = h.services.db.query("SELECT COUNT(*) AS n FROM scrapes WHERE id = ?").get(id) as { n: number };
    expect(rows.n).toBe(0);
  });

  test("GET /v2/scrape/{id} returns the stored document to its key only", async () => {
    const { body } = await scrape({ url: `${site.url}/article` });
    const id = body.data.metadata.scrapeId;
    const res = await h.request(`/v2/scrape/${id}`);
    expect(res.status).toBe(200);
    const got = (await res.json()) as any;
    expect(got).toEqual({ success: true, data: body.data });
    const other = h.services.keys.create("other").key;
    const res2 = await h.request(`/v2/scrape/${id}`, { auth: other });
    expect(res2.status).toBe(404);
    expect(((await res2.json()) as any).success).toBe(false);
    expect((await h.request(`/v2/scrape/00000000-0000-0000-0000-000000000000`)).status).toBe(404);
    const bad = await h.request(`/v2/scrape/not-a-uuid`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ success: false, code: "BAD_REQUEST", error: "Invalid job ID format. Job ID must be a valid UUID." });
  });
});

describe("personal requests and the shared cache", () => {
  test("a request with custom headers (cookies) is never answered from the cache", async () => {
    const url = `${site.url}/counter?k=personal`;
    const anon = await scrape({ url });
    expect(anon.body.data.markdown).toContain("Visit number");
    const withCookie = await scrape({ url, headers: { Cookie: "session=abc" } });
    expect(withCookie.body.data.metadata.cacheState).toBe("miss");
    expect(withCookie.body.data.markdown).not.toBe(anon.body.data.markdown);
  });
});

describe("the scrape slot queue (maxConcurrency)", () => {
  test("a request that waited for a slot says so (concurrencyLimited, concurrencyQueueDurationMs); one that did not says false", async () => {
    const one = await createHarness({ maxConcurrency: 1 });
    try {
      const post = (body: Record<string, unknown>) => one.request("/v2/scrape", { method: "POST", json: body }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
      const [first, second] = await Promise.all([
        post({ url: `${site.url}/slow?ms=400`, maxAge: 0, timeout: 10_000 }),
        Bun.sleep(50).then(() => post({ url: `${site.url}/counter`, maxAge: 0, timeout: 10_000 })),
      ]);
      expect(first.body.data.metadata.concurrencyLimited).toBe(false);
      expect(first.body.data.metadata.concurrencyQueueDurationMs).toBeUndefined();
      expect(second.body.data.metadata.concurrencyLimited).toBe(true);
      expect(second.body.data.metadata.concurrencyQueueDurationMs).toBeGreaterThan(200);
      // Two thirds of the timeout is the most a request waits for a slot: then 408 CONCURRENCY_QUEUE_TIMEOUT.
      const [, late] = await Promise.all([
        post({ url: `${site.url}/slow?ms=2500`, maxAge: 0, timeout: 10_000 }),
        Bun.sleep(50).then(() => post({ url: `${site.url}/counter`, maxAge: 0, timeout: 1500 })),
      ]);
      expect(late.status).toBe(408);
      expect(late.body.code).toBe("CONCURRENCY_QUEUE_TIMEOUT");
    } finally {
      await one.close();
    }
  }, 20_000);

  test("the time waited for a slot is part of the timeout: a request answers within its timeout, not the wait plus it", async () => {
    const one = await createHarness({ maxConcurrency: 1 });
    try {
      const post = (body: Record<string, unknown>) => one.request("/v2/scrape", { method: "POST", json: body }).then((r) => r.json() as Promise<any>);
      const started = performance.now();
      const [, stuck] = await Promise.all([
        post({ url: `${site.url}/slow?ms=1500`, maxAge: 0, timeout: 10_000 }),
        // Waits ~1.5 s for the slot, then a page that takes 5 s: the 3 s timeout ends it at 3 s (it was 4.5 s).
        Bun.sleep(50).then(() => post({ url: `${site.url}/slow?ms=5000`, maxAge: 0, timeout: 3000 })),
      ]);
      const elapsedMs = performance.now() - started;
      expect(stuck.code).toBe("SCRAPE_TIMEOUT");
      expect(elapsedMs).toBeLessThan(3000 + 700);
      // Reported as the timeout the request asked for, not what was left after the wait.
      expect([stuck.error, stuck.details.timeoutMs]).toEqual(["Scrape timed out after 3000 ms.", 3000]);
    } finally {
      await one.close();
    }
  }, 20_000);
});
