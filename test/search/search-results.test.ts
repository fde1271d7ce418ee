/**
 * `POST /v2/search`'s results: the official SDK's `search`, paging up to `limit`, news and images in upstream's
 * shapes, categories and domain filters, language and location, and time ranges.
 * The SearXNG instance is a local fake (search-site.ts, fake-searxng.ts).
 */
import { beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import type { FixtureSite } from "../fixtures/site.ts";
import type { Harness } from "../helpers/harness.ts";
import { useSearchApi } from "./search-site.ts";

const api = useSearchApi();
let h: Harness;
let apiUrl: string;
let site: FixtureSite;
beforeAll(() => ({ h, apiUrl, site } = api));
const { asked } = api;
const search = (body: Record<string, unknown>, harness?: Harness) => api.search(body, harness);

describe("POST /v2/search", () => {
  test("the official SDK's search: web results up to the limit, paged from SearXNG, 2 credits per 10", async () => {
    api.mode = "ok";
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

});
