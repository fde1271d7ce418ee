/**
 * `POST /v2/search` scraping its results: asyncScraping, scrapeOptions formats, highlights, the timeout while
 * scraping, a page listed twice, and odd answers from the backend.
 * The SearXNG instance is a local fake (search-site.ts, fake-searxng.ts).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type { FixtureSite } from "../fixtures/site.ts";
import type { Harness } from "../helpers/harness.ts";
import { useSearchApi } from "./search-site.ts";

const api = useSearchApi();
let h: Harness;
let site: FixtureSite;
beforeAll(() => ({ h, site } = api));
const { asked, lookups } = api;
const who = () => api.who();
const search = (body: Record<string, unknown>, harness?: Harness) => api.search(body, harness);

describe("POST /v2/search", () => {
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

});
