/**
 * `SEARXNG_ENGINES` and `SEARXNG_CATEGORIES` against a SearXNG that picks its engines as the real one does
 * (fake-searxng.ts: `engines=` and `categories=` are a union, hits labelled with their engine's first category):
 * the configured engines replace the web engines and stay out of news and images; no list carries another
 * category's hits; an image result always has a picture. Also: the search timeout names the time it waited.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseSearchRequest } from "../../src/api/search.ts";
import { createSearxngBackend } from "../../src/search/searxng.ts";
import { SearchService } from "../../src/search/service.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeSearxng, type FakeSearxng } from "./fake-searxng.ts";

let searx: FakeSearxng;
let withEngines: Harness;
let plain: Harness;

beforeAll(async () => {
  searx = startFakeSearxng();
  // An operator's pick: two web engines and an image engine.
  withEngines = await createHarness({ searxngEndpoint: searx.endpoint, searxngEngines: "duckduckgo, wikipedia,bing images" });
  plain = await createHarness({ searxngEndpoint: searx.endpoint, searxngCategories: "general,it" });
});
afterAll(async () => {
  await withEngines.close();
  await plain.close();
  searx.stop();
});

const search = async (h: Harness, body: Record<string, unknown>) => {
  const res = await h.request("/v2/search", { method: "POST", json: body });
  return { status: res.status, body: (await res.json()) as any };
};
/** The engines run by the requests made since `before`, as "engine/category". */
const ran = (before: number) => [...new Set(searx.requests.slice(before).flatMap((r) => r.engines.map((e) => `${e.engine}/${e.category}`)))].sort();
const hostsOf = (list: { url: string }[]) => [...new Set(list.map((r) => new URL(r.url).hostname))].sort();

describe("SEARXNG_ENGINES", () => {
  test("web: only the configured engines run (not every general engine), and the image engine's hits are not web results", async () => {
    const before = searx.requests.length;
    const { status, body } = await search(withEngines, { query: "tomatoes", limit: 20 });
    expect(status).toBe(200);
    expect(ran(before)).toEqual(["bing images/images", "duckduckgo/general", "wikipedia/general"]);
    expect(searx.requests[before]!.params.get("engines")).toBe("duckduckgo,wikipedia,bing images");
    expect(searx.requests[before]!.params.has("categories")).toBe(false);
    expect(hostsOf(body.data.web)).toEqual(["duckduckgo.example", "wikipedia.example"]);
    expect(body.data.web.length).toBe(8);
  });

  test("images: the instance's image engines only, no web engine's page shown as an image; every imageUrl is a picture", async () => {
    const before = searx.requests.length;
    const { body } = await search(withEngines, { query: "tomatoes", sources: ["images"], limit: 20 });
    expect(ran(before)).toEqual(["bing images/images", "duckduckgo images/images"]);
    for (const r of searx.requests.slice(before)) {
      expect(r.params.get("categories")).toBe("images");
      expect(r.params.has("engines")).toBe(false);
    }
    const images = body.data.images as { url: string; imageUrl: string; position: number }[];
    // 2 engines × 2 hits × 2 pages, less the bing images hit without a picture.
    expect(images.length).toBe(7);
    expect(hostsOf(images)).toEqual(["pages.bing-images.example", "pages.duckduckgo-images.example"]);
    for (const img of images) {
      expect(img.imageUrl).toMatch(/^https:\/\/img\.[a-z-]+\.example\/\d-\d\.png$/);
      expect(img.imageUrl).not.toBe(img.url);
    }
    expect(images.map((i) => i.position)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  test("news: the instance's news engines only, no web hits", async () => {
    const before = searx.requests.length;
    const { body } = await search(withEngines, { query: "tomatoes", sources: ["news"], limit: 20 });
    expect(ran(before)).toEqual(["bing news/news", "duckduckgo news/news"]);
    expect(hostsOf(body.data.news)).toEqual(["bing-news.example", "duckduckgo-news.example"]);
  });

  test("a category query (research → science) runs that category's engines, not the configured web ones", async () => {
    const before = searx.requests.length;
    const { body } = await search(withEngines, { query: "soil", categories: ["research"], limit: 3 });
    expect(ran(before)).toEqual(["arxiv/science"]);
    expect(body.data.web.map((r: any) => [new URL(r.url).hostname, r.category])).toEqual([
      ["arxiv.example", "research"],
      ["arxiv.example", "research"],
      ["arxiv.example", "research"],
    ]);
  });
});

describe("SEARXNG_CATEGORIES without SEARXNG_ENGINES", () => {
  test("web asks those categories and keeps their hits; images stay images", async () => {
    let before = searx.requests.length;
    let { body } = await search(plain, { query: "bun", limit: 50 });
    expect(searx.requests[before]!.params.get("categories")).toBe("general,it");
    expect(ran(before)).toEqual(["brave/general", "duckduckgo/general", "github/it", "google/general", "wikipedia/general"]);
    expect(hostsOf(body.data.web)).toEqual(["brave.example", "duckduckgo.example", "github.example", "google.example", "wikipedia.example"]);

    before = searx.requests.length;
    ({ body } = await search(plain, { query: "bun", sources: ["images"], limit: 50 }));
    expect(searx.requests[before]!.params.get("categories")).toBe("images");
    expect(body.data.images.every((i: any) => i.imageUrl.startsWith("https://img."))).toBe(true);
  });
});

describe("the search timeout", () => {
  test("names the time waited (the cap), not a longer requested timeout", async () => {
    // A SearXNG that answers after the cap: the search gives up at the cap.
    const slow = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async () => (await Bun.sleep(2000), Response.json({ results: [] })) });
    try {
      const s = withEngines.services;
      const service = new SearchService({
        backend: createSearxngBackend({ endpoint: `http://127.0.0.1:${slow.port}`, engines: "", categories: "" }),
        scrape: s.scrape,
        limiter: s.limiter,
        ledger: s.ledger,
        config: s.config,
        maxTimeoutMs: 300,
      });
      const who = s.keys.verify(withEngines.key)!;
      const err = await service.search(parseSearchRequest({ query: "x", timeout: 120_000 }), who).then(() => undefined, (e) => e);
      expect(err).toMatchObject({ code: "SEARCH_TIMEOUT", status: 408 });
      expect(err.message).toBe("Search timed out after 300 ms.");
      expect(err.details).toEqual({ timeoutMs: 300 });
    } finally {
      slow.stop(true);
    }
  });
});

describe("engines that do not answer (SearXNG's unresponsive_engines)", () => {
  test("nothing found because every engine asked timed out: a retryable 500 naming them, not an empty search", async () => {
    searx.dead.add("duckduckgo").add("wikipedia");
    try {
      const before = withEngines.services.ledger.usage(withEngines.services.keys.verify(withEngines.key)!).creditsUsed;
      const { status, body } = await search(withEngines, { query: "tomatoes", limit: 5 });
      expect([status, body.success, body.code]).toEqual([500, false, "SEARCH_BACKEND_ERROR"]);
      expect(body.error).toContain("duckduckgo (timeout), wikipedia (timeout)");
      expect(body.error).not.toContain("127.0.0.1"); // the operator's address stays in the log
      expect(withEngines.services.ledger.usage(withEngines.services.keys.verify(withEngines.key)!).creditsUsed).toBe(before);
    } finally {
      searx.dead.clear();
    }
  });

  test("one source's engines silent, another's answering: the results, with a warning naming the silent engines", async () => {
    searx.dead.add("bing news").add("duckduckgo news");
    try {
      const { status, body } = await search(withEngines, { query: "tomatoes", sources: ["web", "news"], limit: 5 });
      expect(status).toBe(200);
      expect(body.data.web.length).toBe(5);
      expect(body.data.news).toEqual([]);
      expect(body.warning).toContain("did not answer: bing news (timeout), duckduckgo news (timeout)");
    } finally {
      searx.dead.clear();
    }
  });

  test("hits that came back but were all filtered out (includeDomains) are an empty search, not the silent engines' 500", async () => {
    searx.dead.add("wikipedia");
    try {
      const { status, body } = await search(withEngines, { query: "tomatoes", limit: 5, includeDomains: ["nowhere.example"] });
      expect(status).toBe(200);
      expect(body.data.web).toEqual([]);
      expect(body.warning).toContain("No search results found");
    } finally {
      searx.dead.clear();
    }
  });

  test("some engines silent while others found results: the results, no warning for a query that found something", async () => {
    searx.dead.add("wikipedia");
    try {
      const { status, body } = await search(withEngines, { query: "tomatoes", limit: 5 });
      expect(status).toBe(200);
      expect(hostsOf(body.data.web)).toEqual(["duckduckgo.example"]);
      expect(body.warning).toBeUndefined();
    } finally {
      searx.dead.clear();
    }
  });
});
