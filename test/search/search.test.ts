/**
 * `POST /v2/search` over SearXNG (src/search): a local server that speaks SearXNG's JSON search API (GET
 * `/search?q=…&format=json&pageno=…&categories=…&language=…&time_range=…&safesearch=…`, docs.searxng.org/dev/
 * search_api; 403 unless `format=json` is enabled, as the real one) stands in for the instance. Covers the
 * official SDK's `search`, paging up to `limit`, news and images, categories and domain filters, time ranges,
 * scraping the results, credits, the backend's failures, the timeout, and the unconfigured 400.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { startFixtureSite, type FixtureSite } from "../fixtures/site.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { ENGINES, selectEngines } from "./fake-searxng.ts";

let site: FixtureSite;
let searx: ReturnType<typeof Bun.serve>;
let h: Harness;
let apiUrl: string;
/** Query strings the fake SearXNG received, newest last. */
const asked: URLSearchParams[] = [];
let mode: "ok" | "no-json" | "html" | "slow" = "ok";
/** Names the egress gate was asked to resolve. */
const lookups: string[] = [];

/** 25 general results over 3 pages (10, 10, 5): fixture pages, a GitHub repo, a PDF, a page that cannot be fetched. */
function generalResults(q: string, category: string) {
  const urls = [
    `${site.url}/article`,
    `${site.url}/docs/relative-base.html`,
    "https://github.com/crawlbox/crawlbox",
    "https://papers.example.org/tomatoes.pdf",
    "http://127.0.0.1:1/unreachable",
    ...Array.from({ length: 20 }, (_, i) => `https://www.example.com/result-${i}`),
  ];
  return urls.map((url, i) => ({ url, title: `Result ${i} for ${q}`, content: `Snippet ${i}`, engine: "duckduckgo", engines: ["duckduckgo"], positions: [i + 1], score: 1 / (i + 1), category, publishedDate: null }));
}

beforeAll(async () => {
  site = startFixtureSite();
  searx = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      if (url.pathname !== "/searxng/search") return new Response("not found", { status: 404 });
      asked.push(url.searchParams);
      if (mode === "no-json" || url.searchParams.get("format") !== "json") return new Response("Forbidden", { status: 403 });
      if (mode === "html") return new Response("<html><body>SearXNG</body></html>", { headers: { "content-type": "text/html" } });
      if (mode === "slow") await Bun.sleep(3000);
      // SearXNG's own check of `language` (searx/webadapter.py VALID_LANGUAGE_CODE): anything else is its 400.
      const language = url.searchParams.get("language");
      if (language !== null && !/^[a-z]{2,3}(-[a-zA-Z]{2})?$/.test(language) && language !== "all" && language !== "auto") {
        return new Response(`Invalid value "${language}" for parameter language`, { status: 400 });
      }
      const q = url.searchParams.get("q") ?? "";
      const pageno = Number(url.searchParams.get("pageno") ?? "1");
      const category = url.searchParams.get("categories");
      // Labelled as SearXNG labels hits: the first category of an engine it runs for these parameters
      // (fake-searxng.ts: `engines=` alone runs those engines, `categories=` that category's).
      const label = ENGINES[selectEngines(url.searchParams)[0]!.engine]![0]!;
      let results: unknown[] = [];
      const hit = (u: string, i: number) => ({ url: u, title: `Special ${i}`, content: "", engine: "duckduckgo", category: label });
      if (q === "bad urls") {
        results = pageno > 1 ? [] : [{ url: "http://[", title: "broken", content: "" }, hit(`${site.url}/article`, 1)];
      } else if (q === "slow results" && category !== "news") {
        results = pageno > 1 ? [] : [hit(`${site.url}/article`, 0), hit(`${site.url}/slow?ms=4000`, 1)];
      } else if (q === "dated") {
        const ago = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();
        results = pageno > 1 ? [] : [
          { ...hit("https://a.example.com/two-hours", 0), publishedDate: ago(2) },
          { ...hit("https://a.example.com/ten-hours", 1), publishedDate: ago(10) },
          { ...hit("https://a.example.com/undated", 2), publishedDate: null },
        ];
      } else if (q === "statute site:.gov") {
        results = pageno > 1 ? [] : [
          hit("https://www.ecfr.gov/current/title-21", 0),
          hit("https://blog.example.com/about-statutes", 1),
          hit("https://www.nycourts.state.ny.us/rules", 2),
          hit("https://www.army.mil/regulations", 3),
          hit("https://gov.example.org/not-a-government", 4),
        ];
      } else if (q === "same page") {
        results = pageno > 1 ? [] : [hit(`${site.url}/counter`, 0)];
      } else if (q === "current news" && category === "news") {
        // Current SearXNG news engines put the picture in `thumbnail`, not `thumbnail_src`.
        results = pageno > 1 ? [] : [{ url: "https://news.example.com/b", title: "News B", content: "Soil", publishedDate: "2026-11-21T08:00:00", thumbnail: "https://news.example.com/b.jpg", category: "news" }];
      } else if (category === "news") {
        results = pageno > 1 ? [] : [{ url: "https://news.example.com/a", title: "News A", content: "Tomato prices", publishedDate: "2026-11-20T10:00:00", thumbnail_src: "https://news.example.com/a.jpg", category: "news" }];
      } else if (category === "images") {
        results = pageno > 1 ? [] : [{ url: "https://img.example.com/page", title: "A tomato", content: "", img_src: "https://img.example.com/tomato.png", thumbnail_src: "https://img.example.com/t.png", resolution: "800 x 600", img_format: "png", category: "images" }];
      } else {
        results = generalResults(q, label).slice((pageno - 1) * 10, pageno * 10);
      }
      return Response.json({ query: q, number_of_results: results.length, results, answers: [], corrections: [], infoboxes: [], suggestions: [], unresponsive_engines: [] });
    },
  });
  // No name resolves (no DNS query leaves the machine): results on other hosts fail to scrape, as in an air gap.
  h = await createHarness(
    { searxngEndpoint: `http://127.0.0.1:${searx.port}/searxng`, searxngEngines: "duckduckgo,wikipedia" },
    { resolver: async (host) => (lookups.push(host), []) },
  );
  apiUrl = h.listen();
});

afterAll(async () => {
  await h.close();
  searx.stop(true);
  site.stop();
});

/** The harness key's identity (its credit usage). */
const who = () => h.services.keys.verify(h.key)!;

const search = async (body: Record<string, unknown>, harness = h) => {
  const res = await harness.request("/v2/search", { method: "POST", json: body });
  return { status: res.status, body: (await res.json()) as any };
};

describe("POST /v2/search", () => {
  test("the official SDK's search: web results up to the limit, paged from SearXNG, 2 credits per 10", async () => {
    mode = "ok";
    const app = new Firecrawl({ apiKey: h.key, apiUrl });
    const before = asked.length;
    const out = await app.search("tomatoes", { limit: 12 });
    expect(out.web?.length).toBe(12);
    expect(out.web![0]).toEqual({ url: `${site.url}/article`, title: "Result 0 for tomatoes", description: "Snippet 0", position: 1 });
    expect((out.web![11] as any).position).toBe(12);
    const calls = asked.slice(before);
    expect(calls.map((p) => p.get("pageno"))).toEqual(["1", "2"]);
    expect(calls[0]!.get("format")).toBe("json");
    // SEARXNG_ENGINES alone: with `categories` too, SearXNG would run every general engine besides (engines.test.ts).
    expect(calls[0]!.has("categories")).toBe(false);
    expect(calls[0]!.get("language")).toBe("en-US");
    expect(calls[0]!.get("engines")).toBe("duckduckgo,wikipedia");
    const raw = await search({ query: "tomatoes", limit: 12 });
    expect(raw.body).toMatchObject({ success: true, creditsUsed: 4 });
    expect(raw.body.id).toBeString();
    expect(Object.keys(raw.body.data)).toEqual(["web"]);
  });

  test("news and images in upstream's shapes", async () => {
    const { body } = await search({ query: "tomatoes", sources: ["news", { type: "images" }], limit: 5 });
    expect(body.data.web).toBeUndefined();
    expect(body.data.news).toEqual([{ title: "News A", url: "https://news.example.com/a", snippet: "Tomato prices", date: "2026-11-20T10:00:00", imageUrl: "https://news.example.com/a.jpg", position: 1 }]);
    expect(body.data.images).toEqual([{ title: "A tomato", imageUrl: "https://img.example.com/tomato.png", imageWidth: 800, imageHeight: 600, url: "https://img.example.com/page", position: 1 }]);
  });

  test("categories, domain filters, time range, language and safe search reach SearXNG or filter its results", async () => {
    let before = asked.length;
    let { body } = await search({ query: "crawler", categories: ["github"], limit: 5 });
    expect(asked[before]!.get("q")).toBe("crawler site:github.com");
    expect(body.data.web).toEqual([{ url: "https://github.com/crawlbox/crawlbox", title: "Result 2 for crawler site:github.com", description: "Snippet 2", position: 1, category: "github" }]);

    before = asked.length;
    ({ body } = await search({ query: "soil", categories: ["research"], limit: 2 }));
    expect(asked[before]!.get("categories")).toBe("science");
    expect(body.data.web.map((r: any) => r.category)).toEqual(["research", "research"]);

    before = asked.length;
    ({ body } = await search({ query: "bun", categories: [{ type: "developer" }], limit: 2 }));
    expect(asked[before]!.get("categories")).toBe("it");
    expect(body.data.web.length).toBe(2);

    // [LATEST] gov: US government hosts only (.gov, .mil, the states' .us names).
    before = asked.length;
    ({ body } = await search({ query: "statute", categories: ["gov"], limit: 5 }));
    expect(asked[before]!.get("q")).toBe("statute site:.gov");
    expect(body.data.web.map((r: any) => [r.url, r.category])).toEqual([
      ["https://www.ecfr.gov/current/title-21", "gov"],
      ["https://www.nycourts.state.ny.us/rules", "gov"],
      ["https://www.army.mil/regulations", "gov"],
    ]);

    // Two categories are two queries (not one query asking for both), interleaved and labelled.
    before = asked.length;
    ({ body } = await search({ query: "crawler", categories: ["github", "pdf"], limit: 5 }));
    expect(asked.slice(before).map((p) => p.get("q")).sort()).toEqual(expect.arrayContaining(["crawler filetype:pdf", "crawler site:github.com"]));
    expect(body.data.web.map((r: any) => [r.url, r.category])).toEqual([
      ["https://github.com/crawlbox/crawlbox", "github"],
      ["https://papers.example.org/tomatoes.pdf", "pdf"],
    ]);

    // The domains are asked of the engines too (`site:` terms), and filtered after; a domain given as a URL is its host.
    before = asked.length;
    ({ body } = await search({ query: "x", includeDomains: ["example.com"], limit: 3 }));
    expect(asked[before]!.get("q")).toBe("x site:example.com");
    expect(body.data.web.map((r: any) => r.url)).toEqual(["https://www.example.com/result-0", "https://www.example.com/result-1", "https://www.example.com/result-2"]);
    before = asked.length;
    ({ body } = await search({ query: "x", includeDomains: ["https://www.example.com/some/path", "papers.example.org"], limit: 3 }));
    expect(asked[before]!.get("q")).toBe("x (site:example.com OR site:papers.example.org)");
    expect(body.data.web.map((r: any) => r.url)).toEqual(["https://papers.example.org/tomatoes.pdf", "https://www.example.com/result-0", "https://www.example.com/result-1"]);
    before = asked.length;
    ({ body } = await search({ query: "x", excludeDomains: ["example.com", "127.0.0.1"], limit: 3 }));
    expect(asked[before]!.get("q")).toBe("x -site:example.com -site:127.0.0.1");
    // Only two of the 25 results are outside both domains (example.org is not example.com).
    expect(body.data.web.map((r: any) => r.url)).toEqual(["https://github.com/crawlbox/crawlbox", "https://papers.example.org/tomatoes.pdf"]);

    before = asked.length;
    await search({ query: "x", tbs: "qdr:w", lang: "de", country: "at", safe: "strict", limit: 1 });
    expect(asked[before]!.get("time_range")).toBe("week");
    expect(asked[before]!.get("language")).toBe("de-AT");
    expect(asked[before]!.get("safesearch")).toBe("2");

    // A location names the country when no country is given; an explicit country wins; a place naming none, none.
    for (const [body, language] of [
      [{ location: "Berlin, Germany" }, "en-DE"],
      [{ location: "San Francisco,California,United States", lang: "es" }, "es-US"],
      [{ location: "Germany", country: "at" }, "en-AT"],
      [{ location: "Atlantis" }, "en"],
      [{ location: "Austin, Texas" }, "en-US"],
      // Ambiguous: Georgia after a city (the US state or the country), a two-letter code after a city (CA: California or Canada).
      [{ location: "Atlanta, Georgia" }, "en"],
      [{ location: "San Francisco, CA" }, "en"],
    ] as const) {
      before = asked.length;
      await search({ query: "x", limit: 1, ...body });
      expect(asked[before]!.get("language")).toBe(language);
    }
  });

  test("lang: a region it carries is kept (language part lower-cased) unless a country or location is given; SearXNG never gets a code it refuses", async () => {
    for (const [body, language] of [
      [{ lang: "en-GB" }, "en-GB"],
      [{ lang: "pt-BR" }, "pt-BR"],
      [{ lang: "zh-CN" }, "zh-CN"],
      [{ lang: "EN" }, "en-US"],
      [{ lang: "EN-gb" }, "en-GB"],
      [{ lang: "en_GB" }, "en-GB"],
      [{ lang: "en-GB", country: "de" }, "en-DE"],
      [{ lang: "pt-BR", location: "Portugal" }, "pt-PT"],
      // A location naming no country leaves the lang's own region.
      [{ lang: "pt-BR", location: "Atlantis" }, "pt-BR"],
      // A country SearXNG cannot take: the bare language.
      [{ lang: "de", country: "deu" }, "de"],
      [{ lang: "zh-Hans" }, "zh-US"],
    ] as const) {
      const before = asked.length;
      const r = await search({ query: "x", limit: 1, ...body });
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), 200]);
      expect([JSON.stringify(body), asked[before]!.get("language")]).toEqual([JSON.stringify(body), language]);
    }
    // No language SearXNG would take: none is sent (the instance's default applies) rather than a 500.
    const before = asked.length;
    const r = await search({ query: "x", limit: 1, lang: "english" });
    expect(r.status).toBe(200);
    expect(asked[before]!.has("language")).toBe(false);
  });

  test("a web source's own location or country wins over the request's (and over the default us)", async () => {
    for (const [body, language] of [
      [{ sources: [{ type: "web", location: "Germany" }] }, "en-DE"],
      [{ sources: [{ type: "web", location: "Germany" }], country: "at" }, "en-DE"],
      [{ sources: [{ type: "web", country: "fr", lang: "fr" }], location: "Germany" }, "fr-FR"],
      [{ sources: [{ type: "web", lang: "en-GB" }] }, "en-GB"],
    ] as const) {
      const before = asked.length;
      expect((await search({ query: "x", limit: 1, ...body })).status).toBe(200);
      expect([JSON.stringify(body), asked[before]!.get("language")]).toEqual([JSON.stringify(body), language]);
    }
  });

  test("a news result's picture from current SearXNG's `thumbnail` is its imageUrl", async () => {
    const { body } = await search({ query: "current news", sources: ["news"], limit: 1 });
    expect(body.data.news).toEqual([{ title: "News B", url: "https://news.example.com/b", snippet: "Soil", date: "2026-11-21T08:00:00", imageUrl: "https://news.example.com/b.jpg", position: 1 }]);
  });

  test("tbs windows finer than SearXNG's day: the last day is asked for, and dated results older than the window are dropped", async () => {
    const urls = (body: any) => body.data.web.map((r: any) => new URL(r.url).pathname);
    let before = asked.length;
    let { body } = await search({ query: "dated", tbs: "qdr:h6" });
    expect(asked[before]!.get("time_range")).toBe("day");
    expect(urls(body)).toEqual(["/two-hours", "/undated"]);
    ({ body } = await search({ query: "dated", tbs: "qdr:n30" }));
    expect(urls(body)).toEqual(["/undated"]);
    ({ body } = await search({ query: "dated", tbs: "qdr:d,sbd:1" }));
    expect(urls(body)).toEqual(["/two-hours", "/ten-hours", "/undated"]);
    // Twelve months are a year.
    before = asked.length;
    await search({ query: "dated", tbs: "qdr:m12" });
    expect(asked[before]!.get("time_range")).toBe("year");
    // Two years: no SearXNG range holds it, so none is asked for.
    before = asked.length;
    ({ body } = await search({ query: "dated", tbs: "qdr:y2" }));
    expect(asked[before]!.has("time_range")).toBe(false);
    expect(urls(body)).toHaveLength(3);
  });

  test("asyncScraping: results at once with scrapeIds; each page is scraped as a batch job and read with GET /v2/scrape/{id}", async () => {
    const { status, body } = await search({ query: "tomatoes", limit: 2, asyncScraping: true, scrapeOptions: { formats: ["markdown"], maxAge: 0 } });
    expect(status).toBe(200);
    expect(body.data.web.map((r: any) => r.url)).toEqual([`${site.url}/article`, `${site.url}/docs/relative-base.html`]);
    expect(body.data.web[0].markdown).toBeUndefined();
    expect(body.scrapeIds.web).toHaveLength(2);
    const [articleId] = body.scrapeIds.web;
    let doc: any;
    for (let i = 0; i < 200 && !doc; i++) {
      const res = await h.request(`/v2/scrape/${articleId}`);
      if (res.status === 200) doc = ((await res.json()) as any).data;
      else await Bun.sleep(25);
    }
    expect(doc.markdown).toContain("Growing Tomatoes Indoors");
    expect(doc.metadata).toMatchObject({ scrapeId: articleId, sourceURL: `${site.url}/article` });
    // The batch's other page too: it is charged when scraped, and must not be charged during the next test.
    let other = 0;
    for (let i = 0; i < 200 && other !== 200; i++) {
      other = (await h.request(`/v2/scrape/${body.scrapeIds.web[1]}`)).status;
      if (other !== 200) await Bun.sleep(25);
    }
    expect(other).toBe(200);
    // A key that can pay for the search but not one page is refused before anything is searched or charged.
    const poor = h.services.keys.create("async-poor", 2).key;
    const res = await h.request("/v2/search", { method: "POST", auth: poor, json: { query: "tomatoes", limit: 2, asyncScraping: true, scrapeOptions: { formats: ["markdown"] } } });
    expect(res.status).toBe(402);
    expect(h.services.ledger.usage(h.services.keys.verify(poor)!).creditsUsed).toBe(0);
    // Without formats there is nothing to scrape later: no ids; with zero data retention it is refused.
    expect((await search({ query: "tomatoes", limit: 1, asyncScraping: true })).body.scrapeIds).toBeUndefined();
    const zdr = await search({ query: "tomatoes", limit: 1, asyncScraping: true, enterprise: ["zdr"], scrapeOptions: { formats: ["markdown"] } });
    expect(zdr.status).toBe(400);
    expect(zdr.body.error).toContain("zero data retention");
  });

  test("scrapeOptions.formats: web results carry their documents; a result that cannot be fetched is a warning", async () => {
    const usedBefore = h.services.ledger.usage(who()).creditsUsed;
    const { status, body } = await search({ query: "tomatoes", limit: 5, scrapeOptions: { formats: ["markdown"], maxAge: 0 } });
    expect(status).toBe(200);
    const [article, base] = body.data.web;
    expect(article.markdown).toContain("# Growing Tomatoes Indoors");
    expect(article.metadata).toMatchObject({ sourceURL: `${site.url}/article`, statusCode: 200 });
    expect(article.title).toBe("Result 0 for tomatoes");
    expect(base.markdown).toContain("Relative base");
    // github.com and papers.example.org do not resolve here, and 127.0.0.1:1 refuses: three results without documents.
    expect(body.warning).toMatch(/^3 of 5 results could not be scraped/);
    expect(lookups).toEqual(expect.arrayContaining(["github.com", "papers.example.org"]));
    // 2 for the search and 1 per scraped page, as the key's usage shows.
    expect(body.creditsUsed).toBe(4);
    expect(h.services.ledger.usage(who()).creditsUsed - usedBefore).toBe(4);
  });

  test("highlights: a scraped result's description becomes the passages of its page that answer the query; off with highlights: false and under zero data retention", async () => {
    const { body } = await search({ query: "watering the soil", limit: 1, scrapeOptions: { formats: ["markdown"], maxAge: 0 } });
    const [article] = body.data.web;
    expect(article.markdown).toContain("# Growing Tomatoes Indoors");
    expect(article.description).not.toBe("Snippet 0");
    expect(article.description).toContain("Check the soil with a finger");
    expect(article.description).toContain("Keep the soil moist");
    expect(article.description.length).toBeLessThanOrEqual(500);
    const plain = await search({ query: "watering the soil", limit: 1, highlights: false, scrapeOptions: { formats: ["markdown"], maxAge: 0 } });
    expect(plain.body.data.web[0]).toMatchObject({ description: "Snippet 0", markdown: expect.stringContaining("Growing Tomatoes") });
    const zdr = await search({ query: "watering the soil", limit: 1, enterprise: ["zdr"], scrapeOptions: { formats: ["markdown"] } });
    expect(zdr.body.data.web[0].description).toBe("Snippet 0");
    // Without scraping there is no page in hand: the engine's description stays.
    expect((await search({ query: "watering the soil", limit: 1 })).body.data.web[0].description).toBe("Snippet 0");
  });

  test("the timeout passing while results are scraped: the results come back, the unscraped ones without content", async () => {
    const { status, body } = await search({ query: "slow results", limit: 2, timeout: 1500, scrapeOptions: { formats: ["markdown"], maxAge: 0 } });
    expect(status).toBe(200);
    expect(body.data.web[0].markdown).toContain("Growing Tomatoes Indoors");
    expect(body.data.web[1].markdown).toBeUndefined();
    expect(body.warning).toContain("1 results are returned without their content");
    expect(body.creditsUsed).toBe(3);
  });

  test("a page listed by both web and news is scraped once", async () => {
    const before = site.hits.get("/counter") ?? 0;
    const { body } = await search({ query: "same page", sources: ["web", "news"], limit: 2, scrapeOptions: { formats: ["markdown"], maxAge: 0 } });
    expect(site.hits.get("/counter")).toBe(before + 1);
    expect(body.data.web[0].markdown).toBe(body.data.news[0].markdown);
    expect(body.creditsUsed).toBe(2 + 1); // 2 for the two results, 1 for the one scrape
  });

  test("odd answers and inputs: an unparsable hit URL is dropped, a huge timeout is capped, filtered-out pages stop the paging", async () => {
    let r = await search({ query: "bad urls", categories: ["pdf", "github"], limit: 3 });
    expect(r.status).toBe(200);
    r = await search({ query: "bad urls", limit: 3 });
    expect(r.body.data.web.map((x: any) => x.url)).toEqual([`${site.url}/article`]);
    expect((await search({ query: "x", limit: 1, timeout: 1e300 })).status).toBe(200);
    const before = asked.length;
    await search({ query: "x", includeDomains: ["nowhere.test"], limit: 100 });
    // Two pages without an accepted hit end the paging (100 results would otherwise read 12 pages).
    expect(asked.length - before).toBe(2);
  });

  test("an empty result is a success with upstream's warning", async () => {
    const { body } = await search({ query: "x", includeDomains: ["nowhere.test"], limit: 3 });
    expect(body).toMatchObject({ success: true, data: { web: [] }, warning: "No search results found", creditsUsed: 0 });
  });

  test("backend failures are clear 500s; the timeout is a 408", async () => {
    mode = "no-json";
    let r = await search({ query: "x" });
    expect(r.status).toBe(500);
    expect(r.body).toMatchObject({ success: false, code: "SEARCH_BACKEND_ERROR" });
    expect(r.body.error).toContain("settings.yml");
    expect(r.body.error).not.toContain(String(searx.port)); // the operator's address stays in the server log
    mode = "html";
    r = await search({ query: "x" });
    expect(r.body).toMatchObject({ code: "SEARCH_BACKEND_ERROR" });
    expect(r.body.error).toContain("SEARXNG_ENDPOINT");
    mode = "slow";
    const started = performance.now();
    r = await search({ query: "x", timeout: 1000 });
    expect(r.status).toBe(408);
    expect(r.body).toMatchObject({ success: false, code: "SEARCH_TIMEOUT" });
    expect(performance.now() - started).toBeLessThan(2500);
    mode = "ok";
  });

  test("bad input and a spent quota are refused before SearXNG is asked", async () => {
    const before = asked.length;
    // Upstream's search controller answers its own validation errors: "Invalid request body", the issues in details.
    const empty = await search({ query: "" });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ success: false, code: "BAD_REQUEST", error: "Invalid request body" });
    expect(empty.body.details.map((i: any) => i.path)).toContainEqual(["query"]);
    const unknown = await search({ query: "x", num_results: 3 });
    expect(unknown.body).toMatchObject({ success: false, code: "BAD_REQUEST", error: "Invalid request body", details: [{ code: "unrecognized_keys", keys: ["num_results"] }] });
    const both = await search({ query: "x", includeDomains: ["a.com"], excludeDomains: ["b.com"] });
    expect(both.body).toMatchObject({ error: "Invalid request body", details: [{ message: "includeDomains and excludeDomains cannot both be specified" }] });
    expect((await search({ query: "x", limit: 101 })).status).toBe(400);
    expect((await search({ query: "x", scrapeOptions: { formats: ["changeTracking"] } })).status).toBe(400);
    expect((await search({ query: "x", categories: ["gov", "pdf"] })).body.details[0].message).toBe("The gov category cannot be combined with other categories");
    // Firecrawl Exchange (the Firecrawl MCP server's default sources: ["web", "alexandria"]): upstream's answer for a
    // team without it, which the MCP server recognises and asks again with web results only.
    for (const sources of [["web", "alexandria"], [{ type: "alexandria" }]]) {
      const exchange = await search({ query: "x", sources, domainTools: true, toolDetail: "compact" });
      expect(exchange.status).toBe(403);
      expect(exchange.body).toMatchObject({ success: false, code: "EXCHANGE_NOT_ENABLED", error: "Exchange is not enabled for this team." });
    }
    const poor = h.services.keys.create("poor", 1).key;
    const res = await h.request("/v2/search", { method: "POST", json: { query: "x" }, auth: poor });
    expect(res.status).toBe(402);
    // The most a search can cost is checked: 30 results from two sources could cost 12.
    const some = h.services.keys.create("some", 10).key;
    expect((await h.request("/v2/search", { method: "POST", json: { query: "x", limit: 30, sources: ["web", "news"] }, auth: some })).status).toBe(402);
    expect(asked.length).toBe(before);
    expect(() => loadConfig({ SEARXNG_ENDPOINT: "http://admin:secret@10.0.0.8:8080" })).toThrow(ConfigError);
  });

  test("concurrent searches of one key cannot all pass on its last credits", async () => {
    // Each search of 5 results may cost 2: a quota of 4 lets two run at once, not three.
    const { key } = h.services.keys.create("last-two", 4);
    const statuses = await Promise.all([1, 2, 3].map((i) => h.request("/v2/search", { method: "POST", json: { query: `race ${i}` }, auth: key }).then((r) => r.status)));
    expect(statuses.sort()).toEqual([200, 200, 402]);
    expect(h.services.ledger.usage(h.services.keys.verify(key)!).creditsUsed).toBe(4);
  });

  test("without SEARXNG_ENDPOINT: 400 SEARCH_NOT_CONFIGURED naming it", async () => {
    const bare = await createHarness();
    try {
      const { status, body } = await search({ query: "x" }, bare);
      expect(status).toBe(400);
      expect(body).toMatchObject({ success: false, code: "SEARCH_NOT_CONFIGURED" });
      expect(body.error).toContain("SEARXNG_ENDPOINT");
    } finally {
      await bare.close();
    }
  });
});
