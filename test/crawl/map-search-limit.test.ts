/**
 * Map with `search` and a small `limit` (api-v2.md §2.6: `search` ranks and filters, `limit` caps the result).
 * Discovery must go on until `limit` links that `search` keeps are known, not stop once `limit` links of any kind
 * are: a home page with a dozen unrelated links and one `/docs` link used to yield `[{url: "/docs"}]` alone. Nor
 * does it stop while one of the best results known still waits to be fetched (its title can reorder them), and
 * pages whose link matches are fetched first (crawl/map-discovery.ts, crawl/map-queue.ts).
 * Local `Bun.serve({ port: 0 })` site on 127.0.0.1.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mapSite, type MapDeps, type MapSiteOptions } from "../../src/crawl/map.ts";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";

const UNRELATED = ["about", "contact", "pricing", "team", "careers", "blog", "press", "legal", "privacy", "terms", "status", "partners"];
const DOCS = ["/docs", "/docs/a", "/docs/b", "/docs-archive", "/docs/a/deep1", "/docs/a/deep2", "/docs/a/deep3"];
/** Sitemap entries before the matching ones: more than `2 × limit + 1000`, the bound without `search`. */
const SITEMAP_FILLER = 1100;

const LINKS: Record<string, string[]> = {
  "/": [...UNRELATED.map((p) => `/${p}`), "/docs"],
  "/docs": ["/docs/a", "/docs/b", "/docs-archive", "/"],
  "/docs/a": ["/docs/a/deep1", "/docs/a/deep2", "/docs/a/deep3"],
};

function page(path: string): string {
  const title = path === "/" ? "Home" : path.startsWith("/docs") ? `Docs ${path}` : `Page ${path}`;
  const links = (LINKS[path] ?? []).map((h) => `<a href="${h}">${h}</a>`).join("");
  return `<html><head><title>${title}</title></head><body>${links}</body></html>`;
}

let server: ReturnType<typeof Bun.serve>;
let origin: string;
let gate: EgressGate;
let deps: MapDeps;
const hits = new Map<string, number>();
let sitemap: string | undefined;

beforeAll(async () => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (path === "/sitemap.xml" && sitemap) return new Response(sitemap, { headers: { "content-type": "application/xml" } });
      if (path === "/robots.txt" || path.endsWith(".xml")) return new Response("not found", { status: 404 });
      return new Response(page(path), { headers: { "content-type": "text/html" } });
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  gate = await createEgressGate({ allowPrivateNetwork: true });
  const engine = createHttpEngine({ gate });
  deps = { engine, robots: new RobotsCache({ engine }), gate };
});
afterAll(async () => {
  await gate.close();
  server.stop(true);
});
beforeEach(() => {
  hits.clear();
  sitemap = undefined;
});

const map = (o: Partial<MapSiteOptions>, d: Partial<MapDeps> = {}) => mapSite({ url: `${origin}/`, ...o }, { ...deps, ...d });
const pagesFetched = () => [...hits.keys()].filter((p) => p !== "/robots.txt" && !p.endsWith(".xml"));

describe("map: search with a small limit", () => {
  test("discovery goes on until limit matching links are known: all 7 docs links, with their titles", async () => {
    const r = await map({ search: "docs", limit: 10, sitemap: "skip" });
    expect(new Set(r.links.map((l) => l.url))).toEqual(new Set(DOCS.map((p) => `${origin}${p}`)));
    for (const l of r.links) expect(l.title).toBe(`Docs ${new URL(l.url).pathname}`);
    expect(r.links[0]!.url).toBe(`${origin}/docs`); // URL and title both match: ranked first
    expect(r.warning).toBeUndefined();
  });

  test("it stops once limit matching links are known and the best of them are fetched, and cuts the ranked list to limit", async () => {
    const r = await map({ search: "docs", limit: 3, sitemap: "skip" });
    expect(r.links.map((l) => l.url)).toEqual(["/docs", "/docs/a", "/docs/b"].map((p) => `${origin}${p}`));
    // /docs listed four matching links; the best three are fetched (their titles count), the deeper ones /docs/a
    // lists are not. Before, discovery stopped as soon as /docs had listed them, with /docs/a and /docs/b unread.
    expect(hits.get("/docs")).toBe(1);
    expect(hits.get("/docs/a")).toBe(1);
    expect(hits.get("/docs/b")).toBe(1);
    expect(hits.get("/docs/a/deep1")).toBeUndefined();
  });

  test("the page bound still holds: discovery ends at maxPages even with too few matches (matching pages fetched first)", async () => {
    const r = await map({ search: "docs", limit: 10, sitemap: "skip" }, { maxPages: 2 });
    expect(pagesFetched()).toEqual(["/", "/docs"]); // /docs before the twelve unrelated links listed ahead of it
    expect(r.links.map((l) => l.url)).toEqual(["/docs", "/docs/a", "/docs/b", "/docs-archive"].map((p) => `${origin}${p}`));
  });

  test("sitemaps are read past 2 × limit + 1000 URLs when searching: matches listed late are found", async () => {
    const filler = Array.from({ length: SITEMAP_FILLER }, (_, i) => `<url><loc>${origin}/item-${i}</loc></url>`);
    const docs = ["one", "two", "three", "four", "five"].map((n) => `<url><loc>${origin}/docs/${n}</loc></url>`);
    sitemap = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${[...filler, ...docs].join("")}</urlset>`;
    const r = await map({ search: "docs", limit: 5, sitemap: "only" });
    expect(r.links.map((l) => l.url).sort()).toEqual(["five", "four", "one", "three", "two"].map((n) => `${origin}/docs/${n}`));
    expect(pagesFetched()).toEqual([]);
  });
});
