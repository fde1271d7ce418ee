/**
 * A local SearXNG that chooses its engines as the real one does, for the search tests.
 *
 * - Engine selection is searx/webadapter.py `parse_generic`: `engines=` names engines (unknown names ignored), each
 *   run under its first category; `categories=` adds every engine of those categories (an engine belongs to each
 *   category it lists); with both, the union; with neither, the `general` category.
 * - Each hit is labelled `category` = its engine's first category, whatever category it was asked under
 *   (searx/results.py, "FIXME : handle more than one category per engine").
 * - `format=json` only (403 otherwise, as an instance without JSON enabled).
 *
 * The engine table is a few engines of SearXNG's default settings.yml with their categories. Web engines give
 * pages (some with a `thumbnail`, as current web engines do), image engines pictures (`img_src`, `thumbnail_src`,
 * `resolution`; one hit of `bing images` has neither picture, as a broken engine result may), news engines dated
 * stories. Two hits per engine per page, two pages. Engines put in `dead` answer nothing and are listed in
 * `unresponsive_engines` as `[name, "timeout"]`, as SearXNG lists an engine that timed out or was blocked.
 */

/** Engine name → its categories, first = the label of its hits (settings.yml). */
export const ENGINES: Record<string, readonly string[]> = {
  duckduckgo: ["general", "web"],
  wikipedia: ["general"],
  brave: ["general", "web"],
  google: ["general", "web"],
  "bing images": ["images", "web"],
  "duckduckgo images": ["images", "web"],
  "bing news": ["news"],
  "duckduckgo news": ["news", "web"],
  arxiv: ["science", "scientific publications"],
  github: ["it", "repos"],
};

/** One engine run: SearXNG's EngineRef (engine, the category it runs under). */
export interface EngineRef {
  engine: string;
  category: string;
}

const csv = (v: string | null) => (v ?? "").split(",").map((x) => x.trim()).filter(Boolean);

/** The engines of `category`: those listing it anywhere in their categories. */
const enginesOf = (category: string): EngineRef[] =>
  Object.entries(ENGINES).filter(([, cats]) => cats.includes(category)).map(([engine]) => ({ engine, category }));

/** searx/webadapter.py `parse_generic` over the query string (no preferences cookie, nothing locked). */
export function selectEngines(params: URLSearchParams): EngineRef[] {
  const known = new Set(Object.values(ENGINES).flat());
  const categories = csv(params.get("categories")).filter((c) => known.has(c));
  const named = csv(params.get("engines")).filter((e) => e in ENGINES).map((engine) => ({ engine, category: ENGINES[engine]![0]! }));
  const refs = named.length > 0 ? [...named, ...categories.flatMap(enginesOf)] : (categories.length > 0 ? categories : ["general"]).flatMap(enginesOf);
  // deduplicate_engineref_list
  const seen = new Set<string>();
  return refs.filter((r) => !seen.has(`${r.engine}|${r.category}`) && seen.add(`${r.engine}|${r.category}`));
}

/** The hits one engine gives for `q` on page `pageno`, labelled as SearXNG labels them. */
function hitsOf(engine: string, q: string, pageno: number): Record<string, unknown>[] {
  if (pageno > 2) return [];
  const label = ENGINES[engine]![0]!;
  const slug = engine.replace(/\s+/g, "-");
  return [0, 1].map((i) => {
    const n = `${pageno}-${i}`;
    const base = { title: `${engine} ${n} ${q}`, engine, engines: [engine], category: label, score: 1 };
    if (label === "images") {
      const picture = engine === "bing images" && n === "1-1" ? {} : { img_src: `https://img.${slug}.example/${n}.png`, thumbnail_src: `https://img.${slug}.example/${n}-t.png` };
      return { ...base, url: `https://pages.${slug}.example/${n}`, content: "", ...picture, resolution: "640 x 480", template: "images.html" };
    }
    if (label === "news") return { ...base, url: `https://${slug}.example/story-${n}`, content: `story ${n}`, publishedDate: "2026-01-02T03:04:05" };
    // Web engines: some hits carry a `thumbnail`, as current SearXNG's web results may.
    return { ...base, url: `https://${slug}.example/page-${n}`, content: `about ${q}`, ...(i === 0 ? { thumbnail: `https://${slug}.example/thumb-${n}.jpg` } : {}) };
  });
}

/** A running fake: its base URL (`…/searxng`), the engines each request ran, and `stop`. */
export interface FakeSearxng {
  endpoint: string;
  /** Per request, newest last: its query string and the engines SearXNG would have run. */
  requests: { params: URLSearchParams; engines: EngineRef[] }[];
  /** Engines that time out (no hits; named in `unresponsive_engines`). */
  dead: Set<string>;
  stop(): void;
}

/** Starts the fake on a loopback port; `/searxng/search` is its search API. */
export function startFakeSearxng(): FakeSearxng {
  const requests: FakeSearxng["requests"] = [];
  const dead = new Set<string>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const url = new URL(req.url);
      if (url.pathname !== "/searxng/search") return new Response("not found", { status: 404 });
      if (url.searchParams.get("format") !== "json") return new Response("Forbidden", { status: 403 });
      const q = url.searchParams.get("q") ?? "";
      const pageno = Number(url.searchParams.get("pageno") ?? "1");
      const engines = selectEngines(url.searchParams);
      requests.push({ params: url.searchParams, engines });
      const results = engines.filter((r) => !dead.has(r.engine)).flatMap((r) => hitsOf(r.engine, q, pageno));
      const unresponsive = [...new Set(engines.map((r) => r.engine).filter((e) => dead.has(e)))].map((e) => [e, "timeout"]);
      return Response.json({ query: q, number_of_results: results.length, results, answers: [], corrections: [], infoboxes: [], suggestions: [], unresponsive_engines: unresponsive });
    },
  });
  return { endpoint: `http://127.0.0.1:${server.port}/searxng`, requests, dead, stop: () => server.stop(true) };
}
