import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ARTICLE_HTML, startFixtureSite, type FixtureSite } from "../fixtures/site.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: FixtureSite;
let h: Harness;

beforeAll(async () => {
  site = startFixtureSite();
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
  site.stop();
});

async function scrape(body: Record<string, unknown>, auth?: string) {
  const res = await h.request("/v2/scrape", { method: "POST", json: body, auth });
  return { status: res.status, body: (await res.json()) as any };
}

describe("POST /v2/scrape formats", () => {
  test("markdown by default: main content only, GFM table, fenced code with language, absolute links", async () => {
    const { status, body } = await scrape({ url: `${site.url}/article` });
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    const md: string = body.data.markdown;
    expect(md).toContain("# Growing Tomatoes Indoors");
    expect(md).toContain("## Light and temperature");
    expect(md).toMatch(/\|\s*Stage\s*\|\s*Hours of light\s*\|\s*Temperature\s*\|/);
    expect(md).toMatch(/\|\s*-+\s*\|/);
    expect(md).toContain("```javascript");
    expect(md).toContain("console.log");
    expect(md).toContain(`[guide to grow lamps](${site.url}/guides/lamps)`);
    expect(md).toMatch(/\*\*eight hours\*\*/);
    expect(md).toMatch(/[_*]steady warmth[_*]/);
    expect(md).toMatch(/[-*] Water in the morning/);
    expect(md).not.toContain("SCRIPT_SHOULD_NOT_APPEAR");
    expect(md).not.toContain("color: red");
    expect(md).not.toContain("All rights reserved");
    expect(md).not.toContain("Ten best shovels");
    expect(md).not.toContain("About us");
    expect(md).not.toContain("base64");
    expect(body.data.html).toBeUndefined();
    expect(body.data.rawHtml).toBeUndefined();
  });

  test("onlyMainContent:false keeps the boilerplate", async () => {
    const { body } = await scrape({ url: `${site.url}/article`, onlyMainContent: false });
    expect(body.data.markdown).toContain("All rights reserved");
    expect(body.data.markdown).toContain("About us");
    expect(body.data.markdown).toContain("Growing Tomatoes Indoors");
  });

  test("html is cleaned and absolute; rawHtml is the page as served", async () => {
    const { body } = await scrape({ url: `${site.url}/article`, formats: ["html", "rawHtml"] });
    expect(body.data.rawHtml).toBe(ARTICLE_HTML);
    expect(body.data.html).toContain("Growing Tomatoes Indoors");
    expect(body.data.html).not.toContain("<script");
    expect(body.data.html).not.toContain("<style");
    expect(body.data.html).toContain(`href="${site.url}/guides/lamps"`);
    expect(body.data.markdown).toBeUndefined();
  });

  test("links: absolute, deduplicated, mailto kept, fragments dropped", async () => {
    const { body } = await scrape({ url: `${site.url}/article`, formats: ["links"] });
    const links: string[] = body.data.links;
    expect(links).toContain(`${site.url}/guides/lamps`);
    expect(links).toContain("https://external.example.org/research");
    expect(links).toContain(`${site.url}/about`);
    expect(links).toContain("mailto:grow@example.org");
    expect(links.some((l) => l.includes("#top"))).toBe(false);
    expect(new Set(links).size).toBe(links.length);
  });

  test("a relative <base href> applies once, the same in markdown, html, links and images", async () => {
    const { body } = await scrape({ url: `${site.url}/docs/relative-base.html`, formats: ["markdown", "html", "links", "images"], onlyMainContent: false });
    const chapter = `${site.url}/docs/sub/c.html`;
    const figure = `${site.url}/docs/sub/img/fig.png`;
    expect(body.data.markdown).toContain(`[the chapter](${chapter})`);
    expect(body.data.markdown).toContain(`![figure](${figure})`);
    expect(body.data.html).toContain(`href="${chapter}"`);
    expect(body.data.html).toContain(`src="${figure}"`);
    expect(body.data.links).toContain(chapter);
    expect(body.data.images).toContain(figure);
  });

  test("a <base href> in the body counts (first one with an href, as in browsers)", async () => {
    const { body } = await scrape({ url: `${site.url}/docs/body-base.html`, formats: ["markdown", "links"], onlyMainContent: false });
    expect(body.data.markdown).toContain(`[the next page](${site.url}/elsewhere/d.html)`);
    expect(body.data.links).toContain(`${site.url}/elsewhere/d.html`);
  });

  test("images: absolute URLs; base64 images only when removeBase64Images is false", async () => {
    const a = await scrape({ url: `${site.url}/article`, formats: ["images"] });
    expect(a.body.data.images).toContain(`${site.url}/images/plant.jpg`);
    expect(a.body.data.images).toContain(`${site.url}/img/og.jpg`);
    expect(a.body.data.images.some((i: string) => i.startsWith("data:"))).toBe(false);
    const b = await scrape({ url: `${site.url}/article`, formats: ["images"], removeBase64Images: false, maxAge: 0 });
    expect(b.body.data.images.some((i: string) => i.startsWith("data:image/png"))).toBe(true);
  });

  test("removeBase64Images keeps the alt text", async () => {
    const { body } = await scrape({ url: `${site.url}/article` });
    expect(body.data.markdown).toContain("Seedlings under a lamp");
    expect(body.data.markdown).not.toContain("iVBORw0KGgo");
  });

  test("scrape_id at the top level only for an origin naming the website, as upstream", async () => {
    const web = await scrape({ url: `${site.url}/article`, origin: "website", maxAge: 0 });
    expect(web.body.scrape_id).toBe(web.body.data.metadata.scrapeId);
    const api = await scrape({ url: `${site.url}/article`, origin: "js-sdk@4.42.0", maxAge: 0 });
    expect("scrape_id" in api.body).toBe(false);
  });

  test("attributes format", async () => {
    const { status, body } = await scrape({
      url: `${site.url}/article`,
      formats: [{ type: "attributes", selectors: [{ selector: ".product", attribute: "data-sku" }, { selector: "meta[name=author]", attribute: "content" }] }],
    });
    expect(status).toBe(200);
    expect(body.data.attributes).toEqual([
      { selector: ".product", attribute: "data-sku", values: ["T-100", "T-200"] },
      { selector: "meta[name=author]", attribute: "content", values: ["Ada Gardener"] },
    ]);
  });

  test("an invalid attributes selector is a 400 before anything is fetched", async () => {
    const before = site.hits.get("/article") ?? 0;
    const { status, body } = await scrape({ url: `${site.url}/article`, formats: ["markdown", { type: "attributes", selectors: [{ selector: "a", attribute: "href" }, { selector: "div[[", attribute: "x" }] }] });
    expect(status).toBe(400);
    expect(body.success).toBe(false);
    expect(body.code).toBe("BAD_REQUEST");
    // In the shape of every other 400's details: the format by its index in the request.
    expect(body.details.map((d: any) => [d.code, d.path])).toEqual([["custom", ["formats", 1, "selectors", 1, "selector"]]]);
    expect(body.details[0].message).toStartWith("Invalid CSS selector: div[[");
    expect(site.hits.get("/article") ?? 0).toBe(before);
  });

  test("includeTags keeps only matching elements; excludeTags removes them (tags, classes, ids)", async () => {
    const inc = await scrape({ url: `${site.url}/article`, includeTags: ["table"], maxAge: 0 });
    expect(inc.body.data.markdown).toContain("Flowering");
    expect(inc.body.data.markdown).not.toContain("south-facing window");
    const exc = await scrape({ url: `${site.url}/article`, excludeTags: [".lead", "table", "#main-nav"], onlyMainContent: false, maxAge: 0 });
    expect(exc.body.data.markdown).not.toContain("eight hours");
    expect(exc.body.data.markdown).not.toContain("Flowering");
    expect(exc.body.data.markdown).not.toContain("About us");
    expect(exc.body.data.markdown).toContain("Watering schedule");
  });

  test("plain text pages are returned as text", async () => {
    const { body } = await scrape({ url: `${site.url}/text`, formats: ["markdown", "html"] });
    expect(body.data.markdown).toBe("plain text line one\nline two");
    expect(body.data.html).toContain("<pre>plain text line one");
  });

  test("a binary page gives SCRAPE_UNSUPPORTED_FILE_ERROR", async () => {
    const { status, body } = await scrape({ url: `${site.url}/binary` });
    expect(status).toBe(422);
    expect(body.code).toBe("SCRAPE_UNSUPPORTED_FILE_ERROR");
  });

  test("rawBase64: the body exactly as fetched, any content type, one credit; only as the sole format", async () => {
    const bin = await scrape({ url: `${site.url}/binary`, formats: ["rawBase64"] });
    expect(bin.status).toBe(200);
    expect([...Buffer.from(bin.body.data.rawBase64, "base64")]).toEqual([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00]);
    expect(bin.body.data.markdown).toBeUndefined();
    expect(bin.body.data.metadata).toMatchObject({ statusCode: 200, creditsUsed: 1, contentType: "application/octet-stream" });
    const sjis = await scrape({ url: `${site.url}/sjis`, formats: ["rawBase64"], maxAge: 0 });
    const bytes = Buffer.from(sjis.body.data.rawBase64, "base64");
    expect(bytes.includes(0x82)).toBe(true); // Shift_JIS bytes, not re-encoded text
    const mixed = await scrape({ url: `${site.url}/article`, formats: ["rawBase64", "markdown"] });
    expect(mixed.status).toBe(400);
  });
});

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
});
