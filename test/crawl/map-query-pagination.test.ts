/**
 * A map follows query-string pagination with `ignoreQueryParameters: true`, its default (api-v2.md §2.6): the option
 * decides how results are deduplicated and written, not what is fetched, as a crawl fetches a link's `href`
 * (docs/crawl.md). Discovery queued each link with its query removed, so `/blog/?page=2` became `/blog/`, already
 * queued: a blog of 60 posts, 5 a page, gave the first page's posts only. Local `Bun.serve({ port: 0 })` site.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mapSite, type MapDeps, type MapSiteOptions } from "../../src/crawl/map.ts";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";

const POSTS = 60;
const PER_PAGE = 5;
const PAGES = POSTS / PER_PAGE;

let server: ReturnType<typeof Bun.serve>;
let origin: string;
let gate: EgressGate;
let deps: MapDeps;
/** Requests for /blog/, by their query. */
const blogHits: string[] = [];

/** `/blog/?page=N`: its five posts and a link to the next page (`/blog/` is page 1). */
function blogPage(n: number): string {
  const posts = Array.from({ length: PER_PAGE }, (_, i) => `<a href="/blog/post-${(n - 1) * PER_PAGE + i + 1}">post</a>`).join("");
  const next = n < PAGES ? `<a href="/blog/?page=${n + 1}">next</a>` : "";
  return `<html><head><title>Blog page ${n}</title></head><body>${posts}${next}</body></html>`;
}

beforeAll(async () => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const u = new URL(req.url);
      if (u.pathname === "/blog/") {
        blogHits.push(u.search);
        return new Response(blogPage(Number(u.searchParams.get("page") ?? "1")), { headers: { "content-type": "text/html" } });
      }
      if (u.pathname.startsWith("/blog/post-")) return new Response(`<html><head><title>${u.pathname}</title></head><body>post</body></html>`, { headers: { "content-type": "text/html" } });
      return new Response("not found", { status: 404 });
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
  blogHits.length = 0;
});

const map = (o: Partial<MapSiteOptions> = {}, d: Partial<MapDeps> = {}) => mapSite({ url: `${origin}/blog/`, sitemap: "skip", ...o }, { ...deps, ...d });
const posts = (r: { links: { url: string }[] }) => r.links.map((l) => l.url).filter((u) => u.includes("/post-"));

describe("map: query-string pagination", () => {
  test("the default (ignoreQueryParameters: true) follows ?page=N and lists every post, written without queries", async () => {
    // Breadth-first, each blog page is fetched after the previous one's posts: 67 pages in all, past the default
    // budget of 50 (which reaches page 9); a budget of 100 reaches the end.
    const r = await map({}, { maxPages: 100 });
    expect(posts(r)).toHaveLength(POSTS); // before: 5
    expect(r.links.some((l) => l.url.includes("?"))).toBe(false);
    expect(r.links.filter((l) => l.url === `${origin}/blog/`)).toHaveLength(1);
    expect(blogHits).toEqual(["", ...Array.from({ length: PAGES - 1 }, (_, i) => `?page=${i + 2}`)]);
  });

  test("as ignoreQueryParameters: false does (the pages are then listed apart)", async () => {
    const r = await map({ ignoreQueryParameters: false }, { maxPages: 100 });
    expect(posts(r)).toHaveLength(POSTS);
    expect(r.links.map((l) => l.url)).toContain(`${origin}/blog/?page=2`);
  });

  test("the page budget still bounds the fetches", async () => {
    // /blog/, its five posts and ?page=2, then post-6: eight pages.
    const r = await map({}, { maxPages: 8 });
    expect(blogHits).toEqual(["", "?page=2"]);
    expect(posts(r)).toHaveLength(2 * PER_PAGE);
    const dflt = await map();
    expect(blogHits.length).toBe(2 + 9); // the default budget, 50 pages, reaches ?page=9
    expect(posts(dflt)).toHaveLength(9 * PER_PAGE);
  });
});
