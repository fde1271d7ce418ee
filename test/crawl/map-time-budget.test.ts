/**
 * A map answers in its time with what it found (crawl/map.ts, crawl/map-discovery.ts): robots `Crawl-delay` keeps
 * fetches apart but never makes the map wait past its budget (with `Crawl-delay: 10` a default map took 60 s, and
 * `timeout: 30000` answered 408 with nothing though 30 sitemap URLs were known); a start page that hangs leaves
 * the sitemaps time; only a map that learnt nothing answers 408; a `limit` met is no "bound" to warn about.
 *
 * A map's time is judged less the time its process could not run (test/helpers/tick-probe.ts's lateMs: the event
 * loop held by a collection, another test file's leftovers, or a loaded machine), and the delay between fetches
 * where the map begins them: what the site sees also has each request's way there, which a loaded machine stretches
 * for one request and not the next (1,000 ms kept by the map were 1,168 ms then 979 ms at the site).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MapTimeoutError } from "../../src/crawl/errors.ts";
import { mapSite, type MapDeps, type MapSiteOptions } from "../../src/crawl/map.ts";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine } from "../../src/engines/types.ts";
import { withTickProbe } from "../helpers/tick-probe.ts";

const urlset = (urls: string[]) => `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.map((u) => `<url><loc>${u}</loc></url>`).join("")}</urlset>`;
const page = (body: string) => new Response(`<html><head><title>t</title></head><body>${body}</body></html>`, { headers: { "content-type": "text/html" } });

/** A site whose behaviour each test sets: robots.txt, the sitemap, how the start page answers. */
const site = {
  robots: "",
  sitemap: (_o: string): Response => new Response("", { status: 404 }),
  startHangs: false,
  /** robots.txt: "hang" never answers, a number answers with that status. */
  robotsAnswer: "ok" as "ok" | "hang" | number,
  /** How long robots.txt takes to answer. */
  robotsDelayMs: 0,
  pageTimes: [] as number[],
};
let server: ReturnType<typeof Bun.serve>;
let origin: string;
let gate: EgressGate;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const { pathname: p, origin: o } = new URL(req.url);
      if (p === "/robots.txt") {
        if (site.robotsAnswer === "hang") return new Promise<Response>(() => {});
        if (site.robotsDelayMs) await Bun.sleep(site.robotsDelayMs);
        return new Response(site.robots, { status: site.robotsAnswer === "ok" ? 200 : site.robotsAnswer });
      }
      if (p === "/sitemap.xml") return site.sitemap(o);
      if (p === "/" && site.startHangs) return new Promise<Response>(() => {});
      site.pageTimes.push(performance.now());
      // Every page links to five more below it: there is always more to discover.
      return page(Array.from({ length: 5 }, (_, i) => `<a href="${p.replace(/\/$/, "")}/p${i}">x</a>`).join(""));
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  gate = await createEgressGate({ allowPrivateNetwork: true });
});
afterAll(async () => {
  await gate.close();
  server.stop(true);
});

function setSite(robots: string, sitemapUrls: number, startHangs = false, robotsAnswer: typeof site.robotsAnswer = "ok") {
  site.robots = robots;
  site.robotsAnswer = robotsAnswer;
  site.robotsDelayMs = 0;
  site.startHangs = startHangs;
  site.pageTimes = [];
  site.sitemap = (o) => (sitemapUrls > 0 ? new Response(urlset(Array.from({ length: sitemapUrls }, (_, i) => `${o}/s/${i}`)), { headers: { "content-type": "application/xml" } }) : new Response("", { status: 404 }));
}

/**
 * A map with a fresh robots cache (robots.txt changes between tests), and how it went: `ms`, the time it took to
 * answer less the time its event loop was held (no map answers while its process does not run: 0-75 ms measured on
 * an idle machine, up to 0.9 s on a loaded one; a hold while the map only waited is taken off too, and the map's
 * own synchronous work, a few ms with these small sitemaps and pages); `pagesBegunAt`, when it began each page fetch
 * (its sitemap reads left out).
 */
async function timedMap(o: Partial<MapSiteOptions> = {}, d: Partial<MapDeps> = {}) {
  const http = createHttpEngine({ gate });
  const pagesBegunAt: number[] = [];
  const engine: Engine = {
    name: http.name,
    fetch(request, signal) {
      if (!new URL(request.url).pathname.endsWith("sitemap.xml")) pagesBegunAt.push(performance.now());
      return http.fetch(request, signal);
    },
  };
  const probed = await withTickProbe(() => mapSite({ url: `${origin}/`, ...o }, { engine, robots: new RobotsCache({ engine: http }), gate, ...d }));
  const result = probed.value;
  return { ...result, ms: probed.wallMs - probed.lateMs, pagesBegunAt, urls: result.links.map((l) => l.url) };
}

describe("map time budget", () => {
  test("Crawl-delay 10, no timeout: answers at once with the sitemap and start-page links, and says why discovery stopped", async () => {
    setSite("User-agent: *\nCrawl-delay: 10\n", 30);
    const r = await timedMap();
    expect(r.ms).toBeLessThan(3000); // before: 60 s (the 60 s budget spent waiting 10 s per page)
    expect(r.urls.filter((u) => u.includes("/s/")).length).toBe(30);
    expect(r.urls).toContain(`${origin}/p0`);
    expect(site.pageTimes.length).toBe(1); // the start page only: the next fetch would come after 10 s
    expect(r.warning).toContain("Crawl-delay");
  }, 20_000);

  test("Crawl-delay 10, timeout 3000: 200 with the 30 sitemap URLs within the timeout, not 408 with nothing", async () => {
    setSite("User-agent: *\nCrawl-delay: 10\n", 30);
    const r = await timedMap({ timeout: 3000 });
    expect(r.ms).toBeLessThan(3000);
    expect(r.urls.filter((u) => u.includes("/s/")).length).toBe(30);
    expect(r.warning).toContain("Link discovery stopped");
  }, 20_000);

  test("Crawl-delay 1 with a timeout: the delay is kept between the pages fetched, and the answer comes in time", async () => {
    setSite("User-agent: *\nCrawl-delay: 1\n", 0);
    const r = await timedMap({ timeout: 3500 });
    expect(r.ms).toBeLessThan(3500);
    expect(site.pageTimes.length).toBeGreaterThanOrEqual(2);
    expect(r.pagesBegunAt.length).toBe(site.pageTimes.length);
    for (let i = 1; i < r.pagesBegunAt.length; i++) expect(r.pagesBegunAt[i]! - r.pagesBegunAt[i - 1]!).toBeGreaterThanOrEqual(990);
    expect(r.warning).toContain("Link discovery stopped");
  }, 20_000);

  test("without a timeout, page discovery has a few seconds (discoveryBudgetMs), then answers with what it found", async () => {
    setSite("User-agent: *\nCrawl-delay: 0.3\n", 0);
    const r = await timedMap({}, { discoveryBudgetMs: 2000 });
    expect(r.ms).toBeLessThan(2500);
    expect(site.pageTimes.length).toBeGreaterThanOrEqual(3);
    expect(r.urls.length).toBeGreaterThan(10);
    expect(r.warning).toContain("stopped");
  }, 20_000);

  test("a start page that hangs leaves the sitemaps time: their URLs are the answer", async () => {
    setSite("User-agent: *\n", 12, true);
    const r = await timedMap({ timeout: 2000 });
    expect(r.ms).toBeLessThan(2000);
    expect(r.urls.filter((u) => u.includes("/s/")).length).toBe(12); // before: 408 (the start page had 15 s)
    expect(r.warning).toContain("start page did not answer");
  }, 20_000);

  test("a map that learnt nothing before its timeout is a 408 MAP_TIMEOUT; without a timeout, the start URL and a warning", async () => {
    setSite("User-agent: *\n", 0, true);
    const err = await timedMap({ timeout: 1500 }).catch((e) => e);
    expect(err).toBeInstanceOf(MapTimeoutError);
    expect(err.status).toBe(408);
    const r = await timedMap({}, { defaultBudgetMs: 1500 });
    expect(r.urls).toEqual([`${origin}/`]);
    expect(r.warning).toContain("start page did not answer");
  }, 20_000);

  test("a robots.txt that never answers: the sitemaps are read in the map's time, and the warning says why no page was fetched", async () => {
    setSite("", 20, false, "hang");
    const r = await timedMap({ timeout: 3000 });
    expect(r.ms).toBeLessThan(3000); // before: 408 MAP_TIMEOUT (robots.txt had 10 s of a 3 s map)
    expect(r.urls.filter((u) => u.includes("/s/")).length).toBe(20);
    expect(site.pageTimes.length).toBe(0); // unreachable robots.txt: nothing fetched for links (RFC 9309)
    expect(r.warning).toContain("robots.txt did not answer in time");
    expect(r.warning).toContain("ignoreRobotsTxt");
  }, 20_000);

  test("a robots.txt answering after the map's wait: the map acts as its warning says (no page fetched), not on the late file", async () => {
    setSite("User-agent: *\nAllow: /\n", 5);
    site.robotsDelayMs = 2000;
    const r = await timedMap({ timeout: 3000 });
    expect(r.ms).toBeLessThan(3000);
    expect(r.warning).toContain("robots.txt did not answer in time");
    expect(site.pageTimes.length).toBe(0); // before: the start page waited again, got the late file and was fetched
    expect(r.urls.filter((u) => u.includes("/s/")).length).toBe(5);
  }, 20_000);

  test("a robots.txt answering 503: the warning names it (before, the map was silently one URL long)", async () => {
    setSite("", 0, false, 503);
    const r = await timedMap();
    expect(r.urls).toEqual([`${origin}/`]);
    expect(site.pageTimes.length).toBe(0);
    expect(r.warning).toContain("robots.txt answered HTTP 503");
    const ignored = await timedMap({ ignoreRobotsTxt: true });
    expect(ignored.urls).toContain(`${origin}/p0`);
    expect(ignored.warning).toBeUndefined();
  }, 20_000);

  test("a limit met is no bound: a 60,000-URL sitemap gives 5000 links and no warning", async () => {
    setSite("User-agent: *\n", 60_000);
    const r = await timedMap({ sitemap: "only" });
    expect(r.urls.length).toBe(5000);
    expect(r.warning).toBeUndefined(); // before: "Sitemap reading stopped at a bound (…11000 URLs kept…)"
  }, 20_000);
});
