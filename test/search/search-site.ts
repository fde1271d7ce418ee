/**
 * The shared set-up of the `POST /v2/search` tests (search-results, search-scrape, search-errors): a local server
 * that speaks SearXNG's JSON search API (GET `/search?q=…&format=json&pageno=…&categories=…&language=…&time_range=…
 * &safesearch=…`, docs.searxng.org/dev/search_api; 403 unless `format=json` is enabled, as the real one) stands in
 * for the instance, beside the fixture site and a harness whose resolver resolves no name (as in an air gap).
 */
import { afterAll, beforeAll } from "bun:test";
import { startFixtureSite, type FixtureSite } from "../fixtures/site.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { ENGINES, selectEngines } from "./fake-searxng.ts";

/** What a test file gets: filled in by the file's first `beforeAll`. */
export interface SearchApi {
  h: Harness;
  apiUrl: string;
  site: FixtureSite;
  searxPort: number;
  /** Query strings the fake SearXNG received, newest last. */
  asked: URLSearchParams[];
  /** Names the egress gate was asked to resolve. */
  lookups: string[];
  /** How the fake SearXNG answers: as SearXNG, 403 as without `format=json`, an HTML page, or after 3 s. */
  mode: "ok" | "no-json" | "html" | "slow";
  /** The harness key's identity (its credit usage). */
  who(): NonNullable<ReturnType<Harness["services"]["keys"]["verify"]>>;
  /** `POST /v2/search` with `body`, on the file's harness unless another is given. */
  search(body: Record<string, unknown>, harness?: Harness): Promise<{ status: number; body: any }>;
}

/** 25 general results over 3 pages (10, 10, 5): fixture pages, a GitHub repo, a PDF, a page that cannot be fetched. */
function generalResults(site: FixtureSite, q: string, category: string) {
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

/** Registers the file's set-up and tear-down; the returned object is filled in before the first test. */
export function useSearchApi(): SearchApi {
  let searx: ReturnType<typeof Bun.serve>;
  const api = { asked: [] as URLSearchParams[], lookups: [] as string[], mode: "ok" } as SearchApi;
  const { asked, lookups } = api;
  api.who = () => api.h.services.keys.verify(api.h.key)!;
  api.search = async (body, harness = api.h) => {
    const res = await harness.request("/v2/search", { method: "POST", json: body });
    return { status: res.status, body: (await res.json()) as any };
  };
  beforeAll(async () => {
    const site = (api.site = startFixtureSite());
    searx = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const url = new URL(req.url);
        if (url.pathname !== "/searxng/search") return new Response("not found", { status: 404 });
        asked.push(url.searchParams);
        if (api.mode === "no-json" || url.searchParams.get("format") !== "json") return new Response("Forbidden", { status: 403 });
        if (api.mode === "html") return new Response("<html><body>SearXNG</body></html>", { headers: { "content-type": "text/html" } });
        if (api.mode === "slow") await Bun.sleep(3000);
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
          results = generalResults(site, q, label).slice((pageno - 1) * 10, pageno * 10);
        }
        return Response.json({ query: q, number_of_results: results.length, results, answers: [], corrections: [], infoboxes: [], suggestions: [], unresponsive_engines: [] });
      },
    });
    // No name resolves (no DNS query leaves the machine): results on other hosts fail to scrape, as in an air gap.
    api.h = await createHarness(
      { searxngEndpoint: `http://127.0.0.1:${searx.port}/searxng`, searxngEngines: "duckduckgo,wikipedia" },
      { resolver: async (host) => (lookups.push(host), []) },
    );
    api.searxPort = searx.port!;
    api.apiUrl = api.h.listen();
  });

  afterAll(async () => {
    await api.h.close();
    searx.stop(true);
    api.site.stop();
  });
  return api;
}
