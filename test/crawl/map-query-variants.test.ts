/**
 * A map's page budget (50 fetches) goes to the site's pages before their query variants (crawl/map-queue.ts,
 * crawl/map-query.ts). Since discovery fetched links with their query (so that `/blog/?page=2` is followed), every
 * `?ref=`, `?utm_*`, `?date=` and facet link was a page of its own: the four sites below, rebuilt from a review,
 * gave far fewer of their pages than before query links were followed (figures per site; `sitemap: "skip"`).
 * Tracking parameters are now dropped, a page is fetched once whatever its query, robots.txt is asked before a page
 * takes a fetch, and other queries (pagination first) get the budget the pages leave. Local `Bun.serve` sites.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { MapResult } from "../../src/crawl/map.ts";
import { htmlPage, startMapTestSite, type MapTestSite } from "../helpers/map-test-site.ts";

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const notFound = () => new Response("not found", { status: 404 });

/** 10 categories × 10 subcategories × 5 products; header, footer and share links carry ?ref= and ?utm_. */
function productTree(robots = ""): (u: URL) => Response {
  return (u) => {
    const p = u.pathname;
    if (p === "/robots.txt") return robots ? new Response(robots) : notFound();
    const header = ["/?ref=logo", ...range(10).map((i) => `/c${i}?ref=nav`)];
    const footer = ["/?utm_source=footer&utm_medium=link", `${p}?utm_source=share&utm_medium=social`, `${p}?ref=share`];
    let body: string[] | undefined;
    if (p === "/") body = range(10).map((i) => `/c${i}`);
    else if (/^\/c\d$/.test(p)) body = range(10).map((j) => `${p}/s${j}`);
    else if (/^\/c\d\/s\d$/.test(p)) body = range(5).map((k) => `${p}/p${k}`);
    else if (/^\/c\d\/s\d\/p\d$/.test(p)) body = [];
    return body ? htmlPage(`Page ${p}`, [...header, ...body, ...footer]) : notFound();
  };
}

/** A 30-day calendar widget on every page (/events?date=, /calendar?month= back and forth), a blog paged by ?page=, docs. */
function calendarSite(u: URL): Response {
  const p = u.pathname;
  const nav = ["/", "/events", "/calendar", "/blog", "/docs"];
  const widget = [...range(30).map((d) => `/events?date=2026-11-${String(d + 1).padStart(2, "0")}`), "/calendar?month=2026-10", "/calendar?month=2026-12"];
  const page = (title: string, body: string[]) => htmlPage(title, [...nav, ...widget, ...body]);
  const date = u.searchParams.get("date");
  if (p === "/") return page("Home", []);
  if (p === "/events") return page(date ? `Events on ${date}` : "Events", []);
  if (p === "/calendar") {
    const m = Number((u.searchParams.get("month") ?? "2026-11").slice(5));
    return page(`Calendar ${m}`, [m - 1, m + 1].map((n) => `/calendar?month=2026-${String(n).padStart(2, "0")}`));
  }
  if (p === "/blog") {
    const n = Number(u.searchParams.get("page") ?? "1");
    return page(`Blog page ${n}`, [...range(10).map((i) => `/blog/post-${(n - 1) * 10 + i + 1}`), ...(n < 6 ? [`/blog?page=${n + 1}`] : [])]);
  }
  if (/^\/blog\/post-\d+$/.test(p)) return page(`Post ${p}`, []);
  if (p === "/docs") return page("Docs", range(8).map((i) => `/docs/s${i}`));
  if (/^\/docs\/s\d$/.test(p)) return page(`Docs ${p}`, range(8).map((j) => `${p}/t${j}`));
  if (/^\/docs\/s\d\/t\d$/.test(p)) return page(`Docs ${p}`, range(5).map((k) => `${p}/p${k}`));
  if (/^\/docs\/s\d\/t\d\/p\d$/.test(p)) return page(`Docs ${p}`, []);
  return notFound();
}

const COLOURS = ["red", "blue", "green", "black", "white", "grey", "pink", "navy"];
const SIZES = ["xs", "s", "m", "l", "xl", "xxl"];
/** A listing page's 66 facet and sort links. */
const facets = (p: string) => [
  ...COLOURS.flatMap((c) => SIZES.map((s) => `${p}?color=${c}&size=${s}`)),
  ...COLOURS.map((c) => `${p}?color=${c}`),
  ...SIZES.map((s) => `${p}?size=${s}`),
  ...["price", "name", "new", "rating"].map((s) => `${p}?sort=${s}`),
];

/** 20 categories of 25 products; each listing page has its facet links ahead of its content. */
function facetShop(u: URL): Response {
  const p = u.pathname;
  const nav = ["/", "/shop"];
  if (p === "/") return htmlPage("Home", [...nav, "/shop/cat-0", "/shop/cat-1", "/shop/cat-2"]);
  if (p === "/shop") return htmlPage("Shop", [...nav, ...facets(p), ...range(20).map((i) => `/shop/cat-${i}`)]);
  if (/^\/shop\/cat-\d+$/.test(p)) return htmlPage(`Category ${p}`, [...nav, ...facets(p), ...range(25).map((k) => `${p}/item-${k}`)]);
  if (/^\/shop\/cat-\d+\/item-\d+$/.test(p)) return htmlPage(`Item ${p}`, nav);
  return notFound();
}

/** A shop whose facets reveal products nothing else links: /shop shows 8 of 100, each ?color= page that colour's 10. */
function revealingShop(u: URL): Response {
  const p = u.pathname;
  const nav = ["/", "/shop"];
  const colours = [...COLOURS, "gold", "teal"];
  if (p === "/") return htmlPage("Home", nav);
  if (p === "/shop") {
    const c = colours.indexOf(u.searchParams.get("color") ?? "");
    const items = c < 0 ? range(8) : range(10).map((k) => c * 10 + k);
    return htmlPage("Shop", [...nav, ...colours.map((x) => `/shop?color=${x}`), ...items.map((k) => `/shop/item-${k}`)]);
  }
  if (/^\/shop\/item-\d+$/.test(p)) return htmlPage(`Item ${p}`, nav);
  return notFound();
}

let site: MapTestSite | undefined;
afterEach(async () => {
  await site?.close();
  site = undefined;
});
/** Maps a site of `handler` with the default budget (50 pages). */
async function mapOf(handler: (u: URL) => Response): Promise<MapResult> {
  site = await startMapTestSite(handler);
  return site.map({}, { discoveryBudgetMs: 30_000 });
}
const count = (r: MapResult, re: RegExp) => r.links.filter((l) => re.test(new URL(l.url).pathname)).length;
const PRODUCT = /^\/c\d\/s\d\/p\d$/;

describe("map: query variants leave the budget to the site's pages", () => {
  // Figures: [before query links were followed (afdd77c^), with every query a page (afdd77c), now].
  test("a product tree whose header, footer and share links carry ?ref= and ?utm_: 195 products (105 with every query a page)", async () => {
    const r = await mapOf(productTree());
    expect(count(r, PRODUCT)).toBeGreaterThanOrEqual(195);
    expect(r.links.length).toBeGreaterThanOrEqual(306); // [306, 216, 306]
    expect(site!.hits.filter((h) => /ref=|utm_/.test(h))).toEqual([]); // tracking parameters are never fetched
    expect(site!.hits.length).toBe(50);
  });

  test("the same behind Disallow: /*?: every fetch goes to a page robots.txt allows (32 of 50 were made)", async () => {
    const r = await mapOf(productTree("User-agent: *\nDisallow: /*?\n"));
    expect(count(r, PRODUCT)).toBeGreaterThanOrEqual(195); // [195, 105, 195]
    expect(site!.hits.length).toBe(50);
    expect(site!.hits.filter((h) => h.includes("?"))).toEqual([]);
  });

  test("a calendar widget's 30 ?date= links on every page: the docs are found (25 of them with every query a page)", async () => {
    const r = await mapOf(calendarSite);
    expect(count(r, /^\/docs/)).toBeGreaterThanOrEqual(208); // [208, 25, 208]
    expect(count(r, /^\/blog\/post-/)).toBeGreaterThanOrEqual(10); // [10, 20, 10]: pagination waits for what pages leave
    expect(site!.hits.filter((h) => h.startsWith("/events?") || h.startsWith("/calendar?"))).toEqual([]);
  });

  test("a shop's 66 facet and sort links per listing page: every category is fetched (75 products with every query a page)", async () => {
    const r = await mapOf(facetShop);
    expect(count(r, /\/item-\d+$/)).toBeGreaterThanOrEqual(500); // [500, 75, 500]
    expect(site!.hits.filter((h) => h.includes("?"))).toEqual([]);
  });

  test("a shop whose facets reveal other products: they are fetched with the budget the pages leave", async () => {
    const r = await mapOf(revealingShop);
    // [8, 100, 50]: /shop's 8 products are fetched first, then ?color= pages, each followed by its 10 products.
    expect(count(r, /\/item-\d+$/)).toBeGreaterThanOrEqual(50);
    expect(new Set(site!.hits.slice(0, 10))).toEqual(new Set(["/", "/shop", ...range(8).map((k) => `/shop/item-${k}`)]));
    expect(new Set(site!.hits.slice(10, 14))).toEqual(new Set(["red", "blue", "green", "black"].map((c) => `/shop?color=${c}`)));
  });
});

describe("map: which query variants are fetched", () => {
  test("pagination goes before other queries, each page's other queries at most 5, parameters in any order one page", async () => {
    site = await startMapTestSite((u) => {
      if (u.pathname === "/") {
        const others = ["/list?b=2&a=1", "/list?a=1&b=2", ...range(8).map((i) => `/list?sort=s${i}`)];
        return htmlPage("Home", ["/list", ...others, "/list?page=2", "/list?page=3"]);
      }
      return htmlPage(`List ${u.search}`, []);
    });
    await site.map({}, { maxPages: 4 });
    expect(site.hits.toSorted()).toEqual(["/", "/list", "/list?page=2", "/list?page=3"]);
    await site.map();
    expect(site.hits.toSorted()).toEqual(["/", "/list", "/list?b=2&a=1", "/list?page=2", "/list?page=3", ...range(4).map((i) => `/list?sort=s${i}`)]);
  });

  test("a page linked with a query and then without one before it is fetched is fetched once, at its own URL", async () => {
    site = await startMapTestSite((u) => htmlPage(`Page ${u.pathname}${u.search}`, u.pathname === "/" ? ["/a?page=2", "/b?ref=x", "/a", "/b"] : []));
    let r = await site.map({}, { maxPages: 3 });
    expect(site.hits.toSorted()).toEqual(["/", "/a", "/b"]); // ?page=2 waits for the pages
    expect(r.links.find((l) => l.url.endsWith("/a"))!.title).toBe("Page /a");
    r = await site.map();
    expect(site.hits.toSorted()).toEqual(["/", "/a", "/a?page=2", "/b"]);
    expect(r.links.find((l) => l.url.endsWith("/a"))!.title).toBe("Page /a");
  });

  test("robots.txt disallowing the first links found leaves the budget to allowed ones", async () => {
    site = await startMapTestSite((u) => {
      if (u.pathname === "/robots.txt") return new Response("User-agent: *\nDisallow: /private\n");
      const links = [...range(10).map((i) => `/private/${i}`), ...range(10).map((i) => `/public/${i}`)];
      return htmlPage(`Page ${u.pathname}`, u.pathname === "/" ? links : []);
    });
    await site.map({}, { maxPages: 6 });
    expect(site.hits.toSorted()).toEqual(["/", ...range(5).map((i) => `/public/${i}`)]); // before: "/" alone (5 slots taken by /private/*)
  });

  test("a subdomain's robots.txt, read when its pages are taken, gives their fetches to the pages queued after them", async () => {
    // blocked.site.test's six pages fill the queue before its robots.txt is read; site.test's six wait for room.
    site = await startMapTestSite(
      (u) => {
        if (u.pathname === "/robots.txt") return u.hostname === "blocked.site.test" ? new Response("User-agent: *\nDisallow: /\n") : notFound();
        const links = [...range(6).map((i) => `http://blocked.site.test:${u.port}/b${i}`), ...range(6).map((i) => `/p${i}`)];
        return htmlPage(`Page ${u.pathname}`, u.pathname === "/" ? links : []);
      },
      { hosts: ["site.test", "blocked.site.test"] },
    );
    await site.map({}, { maxPages: 4 });
    // Before: "/" alone (the three fetches went to blocked.site.test's pages, and site.test's were never offered again).
    expect(site.hits.toSorted()).toEqual(["/", "/p0", "/p1", "/p2"]);
  });
});

describe("map: ignoreQueryParameters false keeps every query, tracking ones too", () => {
  /** `/docs?ref=vN` links `/only-vN`, `/docs` links `/only-none`; titles name the query. */
  function refSite(u: URL): Response {
    const ref = u.searchParams.get("ref");
    if (u.pathname === "/") return htmlPage("Home", ["/x?ref=nav", "/docs?ref=v1", "/docs?ref=v2"]);
    if (u.pathname === "/x") return htmlPage("X", []);
    if (u.pathname === "/docs") return htmlPage(`Docs ${ref ?? "none"}`, [`/only-${ref ?? "none"}`]);
    return u.pathname.startsWith("/only-") ? htmlPage(`Only ${u.pathname}`, []) : notFound();
  }
  const listed = (r: MapResult) => r.links.map((l) => [new URL(l.url).pathname + new URL(l.url).search, l.title]);

  test("each query is a page fetched as written and titled by itself; nothing is invented", async () => {
    site = await startMapTestSite(refSite);
    const r = await site.map({ ignoreQueryParameters: false });
    // Before: the three untitled, an invented /x "X" and /docs "Docs none", /only-none; /only-v1 and /only-v2 lost.
    expect(listed(r)).toEqual([
      ["/", "Home"], ["/x?ref=nav", "X"], ["/docs?ref=v1", "Docs v1"], ["/docs?ref=v2", "Docs v2"],
      ["/only-v1", "Only /only-v1"], ["/only-v2", "Only /only-v2"],
    ]);
    expect(site.hits.toSorted()).toEqual(["/", "/docs?ref=v1", "/docs?ref=v2", "/only-v1", "/only-v2", "/x?ref=nav"]);
  });

  test("with ignoreQueryParameters (the default) tracking parameters are still dropped", async () => {
    site = await startMapTestSite(refSite);
    const r = await site.map();
    expect(listed(r)).toEqual([["/", "Home"], ["/x", "X"], ["/docs", "Docs none"], ["/only-none", "Only /only-none"]]);
    expect(site.hits.filter((h) => h.includes("ref="))).toEqual([]);
  });

  test("a start URL with utm_ and the page's own links keep their titles", async () => {
    site = await startMapTestSite((u) => htmlPage(`Blog ${u.searchParams.get("page")}`, ["/blog?page=2", "/blog?utm_source=x&page=2"]));
    const r = await site.map({ path: "/blog?page=2&utm_source=news", ignoreQueryParameters: false });
    // Before: /blog?page=2 and /blog?utm_source=x&page=2 were listed without a title.
    expect(listed(r)).toEqual([["/blog?page=2&utm_source=news", "Blog 2"], ["/blog?page=2", "Blog 2"], ["/blog?utm_source=x&page=2", "Blog 2"]]);
  });
});
