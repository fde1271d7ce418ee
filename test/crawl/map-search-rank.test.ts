/**
 * Map's `search` order (crawl/search-rank.ts) and its early stop with a small `limit` (crawl/map-discovery.ts).
 * `search:"pricing", limit:1` answered an uppercase 404 variant `/Pricing` or `/blog/post-1-pricing-update`, not
 * `/pricing`: discovery stopped at the first weak match, before the pages whose titles count were fetched, ties kept
 * discovery order, and nothing preferred a path that is the query. Words under 4 letters had no plural: `search:"faqs"`
 * found nothing though `/docs/faq` existed. The exact last segment then came before any score, so an unfetched tag page
 * `/blog/tag/python-sdk` beat `/docs/sdk/python` titled "Python SDK"; it is now a bonus. A title bonus as large, given
 * to any title with the words, then put `/docs` ("Documentation") behind its children titled "… | Acme Docs"; only a
 * title's leading part counts now, for less.
 * Local `Bun.serve({ port: 0 })` site.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mapSite, type MapDeps, type MapSiteOptions } from "../../src/crawl/map.ts";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import { rankBySearch } from "../../src/crawl/search-rank.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";

const HOME_LINKS = ["/blog/post-1-pricing-update", "/Pricing", "/about", "/team", "/pricing", "/en/pricing", "/docs/faq"];

let server: ReturnType<typeof Bun.serve>;
let origin: string;
let gate: EgressGate;
let deps: MapDeps;
const hits = new Map<string, number>();

beforeAll(async () => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (path === "/robots.txt" || path.endsWith(".xml") || path === "/Pricing") return new Response("not found", { status: 404 });
      const links = path === "/" ? HOME_LINKS.map((h) => `<a href="${h}">${h}</a>`).join("") : "";
      const title = path === "/pricing" ? "Pricing plans" : path === "/" ? "Home" : `Page ${path}`;
      return new Response(`<html><head><title>${title}</title></head><body>${links}</body></html>`, { headers: { "content-type": "text/html" } });
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
beforeEach(() => hits.clear());

const map = (o: Partial<MapSiteOptions>, d: Partial<MapDeps> = {}) => mapSite({ url: `${origin}/`, ...o }, { ...deps, ...d });
const urls = (r: { links: { url: string }[] }) => r.links.map((l) => l.url);
const at = (...paths: string[]) => paths.map((p) => `https://example.com${p}`);
const ranked = (paths: string[], search: string) => rankBySearch(at(...paths).map((url) => ({ url })), search).map((l) => l.url);

describe("search order", () => {
  test("a path whose last segment is the query comes first: in lower case, then the shortest", () => {
    expect(ranked(["/blog/post-1-pricing-update", "/Pricing", "/en/pricing/", "/pricing"], "pricing")).toEqual(at("/pricing", "/en/pricing/", "/Pricing", "/blog/post-1-pricing-update"));
    expect(ranked(["/blog/getting-started-with-tags", "/docs/getting-started"], "getting started")).toEqual(at("/docs/getting-started", "/blog/getting-started-with-tags"));
    expect(ranked(["/pricing-old", "/pricing.html"], "pricing")).toEqual(at("/pricing.html", "/pricing-old"));
    // Other links keep their order on equal scores.
    expect(ranked(["/b/pricing-x", "/a/pricing-y"], "pricing")).toEqual(at("/b/pricing-x", "/a/pricing-y"));
  });

  test("an exact last segment is a bonus, not a tier above every score: a page titled as the query outranks a bare one", () => {
    const rankedWith = (links: [string, string?][], search: string) =>
      rankBySearch(links.map(([path, title]) => ({ url: `https://example.com${path}`, ...(title ? { title } : {}) })), search).map((l) => new URL(l.url).pathname);
    expect(rankedWith([["/blog/tag/python-sdk"], ["/docs/sdk/python", "Python SDK"]], "python sdk")).toEqual(["/docs/sdk/python", "/blog/tag/python-sdk"]);
    expect(rankedWith([["/blog/tag/api"], ["/docs/api-reference", "API Reference"]], "api")).toEqual(["/docs/api-reference", "/blog/tag/api"]);
    expect(rankedWith([["/careers/jobs/security"], ["/trust/security-overview", "Security at Acme"]], "security")).toEqual(["/trust/security-overview", "/careers/jobs/security"]);
    expect(rankedWith([["/blog/2019/03/pricing"], ["/en-us/pricing-plans", "Pricing"]], "pricing")).toEqual(["/en-us/pricing-plans", "/blog/2019/03/pricing"]);
  });

  test("a section's root stays first: a title that only names the site after a separator (\"… | Acme Docs\") gets no bonus", () => {
    const children = ["quickstart", "install", "api", "sdk/python", "sdk/node", "guides/auth", "guides/webhooks", "faq"];
    const separators = [" | ", " - ", " — ", ": "];
    const links = [
      { url: "https://example.com/about", title: "About Acme" },
      ...children.map((c, i) => ({ url: `https://example.com/docs/${c}`, title: `${c.replace(/.*\//, "")}${separators[i % 4]}Acme Docs` })),
      { url: "https://example.com/docs", title: "Documentation" },
      { url: "https://example.com/pricing", title: "Pricing | Acme" },
    ];
    const paths = rankBySearch(links, "docs").map((l) => new URL(l.url).pathname);
    expect(paths[0]).toBe("/docs"); // before: 9th of 9 (children scored 3 + 2 + 3 = 8, /docs 3 + 3 = 6)
    expect(paths).toHaveLength(9);
    // A title whose own name has the words still gets its bonus (with its title words, more than an untitled exact segment).
    const named = rankBySearch([{ url: "https://example.com/docs" }, { url: "https://example.com/x/docs-hub", title: "Docs hub | Acme" }], "docs");
    expect(named.map((l) => new URL(l.url).pathname)).toEqual(["/x/docs-hub", "/docs"]);
  });

  test("an index file is its folder: /pricing/index.html is an exact match, as shallow as /pricing", () => {
    expect(ranked(["/blog/pricing-news", "/en/pricing", "/pricing/index.html"], "pricing")).toEqual(at("/pricing/index.html", "/en/pricing", "/blog/pricing-news"));
  });

  test("words under 4 letters match their plural, both ways", () => {
    expect(ranked(["/docs/faq"], "faqs")).toEqual(at("/docs/faq"));
    expect(ranked(["/reference/api"], "apis")).toEqual(at("/reference/api"));
    expect(ranked(["/account/keys"], "key")).toEqual(at("/account/keys"));
    expect(ranked(["/shop/boxes"], "box")).toEqual(at("/shop/boxes"));
  });

  test("not every word ending in s is a plural", () => {
    expect(ranked(["/whats-new"], "news")).toEqual([]);
    expect(ranked(["/les"], "less")).toEqual([]); // a word ending in s takes no +s
    expect(ranked(["/notes"], "not")).toEqual(at("/notes")); // a substring still counts, as before…
    expect(ranked(["/notes", "/not"], "not")).toEqual(at("/not", "/notes")); // …below the word itself
    expect(ranked(["/go"], "gos")).toEqual([]); // two letters: no plural rule
  });
});

describe("map: search with a small limit", () => {
  test("limit 1 answers the page that is the query, fetched for its title; unrelated pages are not fetched", async () => {
    const r = await map({ search: "pricing", limit: 1, sitemap: "skip" });
    expect(r.links).toEqual([{ url: `${origin}/pricing`, title: "Pricing plans" }]);
    expect(hits.get("/pricing")).toBe(1);
    expect(hits.get("/about")).toBeUndefined();
    expect(hits.get("/team")).toBeUndefined();
  });

  test("with no page fetched past the start page, the order alone puts /pricing first", async () => {
    const r = await map({ search: "pricing", sitemap: "skip" }, { maxPages: 1 });
    expect(urls(r)).toEqual(["/pricing", "/en/pricing", "/Pricing", "/blog/post-1-pricing-update"].map((p) => `${origin}${p}`));
  });

  test("search:'faqs' finds /docs/faq", async () => {
    expect(urls(await map({ search: "faqs", sitemap: "skip" }))).toEqual([`${origin}/docs/faq`]);
  });
});
