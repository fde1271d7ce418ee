/**
 * A URL's place in a map is the best of the sources that saw it (crawl/map-listing.ts): the start page's links are
 * listed before the sitemaps are read, and a page it links to that a sitemap lists early kept its "discovered" place
 * behind the whole sitemap. With a 60,000-URL sitemap, `/big/item-1` (its 2nd entry, linked from the start page) was
 * missing from the default 5000 results, though `sitemap:"only"` had it. Local `Bun.serve({ port: 0 })` site.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mapSite, type MapDeps, type MapSiteOptions } from "../../src/crawl/map.ts";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";

const SITEMAP_URLS = 60_000;

let server: ReturnType<typeof Bun.serve>;
let origin: string;
let gate: EgressGate;
let deps: MapDeps;

beforeAll(async () => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const { pathname, origin: o } = new URL(req.url);
      if (pathname === "/sitemap.xml") {
        // The home page, then /big/item-1 … /big/item-59999.
        const locs = [`${o}/`, ...Array.from({ length: SITEMAP_URLS - 1 }, (_, i) => `${o}/big/item-${i + 1}`)];
        const body = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${locs.map((l) => `<url><loc>${l}</loc></url>`).join("")}</urlset>`;
        return new Response(body, { headers: { "content-type": "application/xml" } });
      }
      if (pathname === "/robots.txt") return new Response("", { status: 404 });
      if (pathname === "/") {
        const links = ["/about", "/big/item-1", "/big/item-30000"].map((h) => `<a href="${h}">${h}</a>`).join("");
        return new Response(`<html><head><title>Home</title></head><body>${links}</body></html>`, { headers: { "content-type": "text/html" } });
      }
      return new Response(`<html><head><title>Page ${pathname}</title></head><body></body></html>`, { headers: { "content-type": "text/html" } });
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

const map = (o: Partial<MapSiteOptions> = {}) => mapSite({ url: `${origin}/`, ...o }, deps);
const urls = (r: { links: { url: string }[] }) => r.links.map((l) => l.url);

describe("map: a URL's place is the best of its sources", () => {
  test("a page the start page links to keeps its sitemap place: the default map lists what sitemap:'only' lists", async () => {
    const only = urls(await map({ sitemap: "only" }));
    const include = urls(await map());
    expect(only).toHaveLength(5000);
    expect(only[1]).toBe(`${origin}/big/item-1`);
    expect(include[1]).toBe(`${origin}/big/item-1`); // before: missing (listed after the 11,000 sitemap URLs read)
    expect(include).toEqual(only);
    expect(include).not.toContain(`${origin}/about`); // linked only: after the sitemap, past the limit
  });

  test("with room for every URL, the sitemap's order is kept and the pages only linked come after it", async () => {
    const r = urls(await map({ limit: 70_000 }));
    expect(r).toHaveLength(SITEMAP_URLS + 1);
    expect(r.slice(0, 3)).toEqual([`${origin}/`, `${origin}/big/item-1`, `${origin}/big/item-2`]);
    expect(r[30_000]).toBe(`${origin}/big/item-30000`); // before: at the end, with /about
    expect(r.at(-1)).toBe(`${origin}/about`);
  });
});
