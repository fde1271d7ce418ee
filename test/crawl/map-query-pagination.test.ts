/**
 * A map follows query-string pagination with `ignoreQueryParameters: true`, its default (api-v2.md §2.6): the option
 * decides how results are deduplicated and written, not what is fetched, as a crawl fetches a link's `href`
 * (docs/crawl.md). Discovery queued each link with its query removed, so `/blog/?page=2` became `/blog/`, already
 * queued: a blog of 60 posts, 5 a page, gave the first page's posts only. Pagination is a query variant of the blog
 * page, fetched with the budget the site's pages leave (crawl/map-queue.ts), before other variants: it still is with
 * a share link's `?utm_*` and a calendar's `?date=` links on every page. Local `Bun.serve({ port: 0 })` site.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import type { MapDeps, MapSiteOptions } from "../../src/crawl/map.ts";
import { startMapTestSite, type MapTestSite } from "../helpers/map-test-site.ts";

const POSTS = 60;
const PER_PAGE = 5;
const PAGES = POSTS / PER_PAGE;

let site: MapTestSite;
let origin: string;
/** Requests for /blog/, by their query; kept across the maps of one test. */
const blogHits: string[] = [];
/** Each page also has a share link with `?utm_*` and 10 `/blog/events?date=` links. */
let noisy = false;

/** The links every page has when {@link noisy}. */
const noise = (path: string) => (noisy ? [`${path}?utm_source=share&utm_medium=social`, ...Array.from({ length: 10 }, (_, d) => `/blog/events?date=2026-11-${10 + d}`)] : []);
const page = (title: string, links: string[]) => `<html><head><title>${title}</title></head><body>${links.map((h) => `<a href="${h}">${h}</a>`).join("")}</body></html>`;

/** `/blog/?page=N`: its five posts and a link to the next page (`/blog/` is page 1). */
function blogPage(n: number): string {
  const links = Array.from({ length: PER_PAGE }, (_, i) => `/blog/post-${(n - 1) * PER_PAGE + i + 1}`);
  if (n < PAGES) links.push(`/blog/?page=${n + 1}`);
  return page(`Blog page ${n}`, [...links, ...noise("/blog/")]);
}

beforeAll(async () => {
  site = await startMapTestSite((u) => {
    const html = (body: string) => new Response(body, { headers: { "content-type": "text/html" } });
    if (u.pathname === "/blog/") {
      blogHits.push(u.search);
      return html(blogPage(Number(u.searchParams.get("page") ?? "1")));
    }
    if (u.pathname.startsWith("/blog/post-") || u.pathname === "/blog/events") return html(page(u.pathname, noise(u.pathname)));
    return new Response("not found", { status: 404 });
  });
  origin = site.origin;
});
afterAll(() => site.close());

const map = (o: Partial<MapSiteOptions> = {}, d: Partial<MapDeps> = {}) => site.map({ path: "/blog/", ...o }, d);
const posts = (r: { links: { url: string }[] }) => r.links.map((l) => l.url).filter((u) => u.includes("/post-"));

describe("map: query-string pagination", () => {
  afterEach(() => {
    blogHits.length = 0;
    noisy = false;
  });

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

  test("with share links' ?utm_* and a calendar's ?date= links on every page, pagination still lists every post", async () => {
    noisy = true;
    const r = await map({}, { maxPages: 100 });
    expect(posts(r)).toHaveLength(POSTS);
    expect(blogHits).toEqual(["", ...Array.from({ length: PAGES - 1 }, (_, i) => `?page=${i + 2}`)]); // no ?utm_ fetch
    // /blog/events, fetched at the first ?date= linked, and 5 other dates at most: they went after every blog page.
    expect(site.hits.filter((h) => h.startsWith("/blog/events?"))).toHaveLength(1 + 5);
  });
});
