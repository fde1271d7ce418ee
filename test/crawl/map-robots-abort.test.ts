/**
 * A map's robots.txt fetches end when the map answers (crawl/robots-cache.ts, crawl/map-discovery.ts): nothing the
 * caller did not wait for goes on fetching. Before, a robots.txt file asked for in advance (a subdomain's, for a page
 * queued but never fetched) or one slower than the map's `timeout` (the start URL's) went on for up to the cache's
 * 10 s after the answer, for nobody. A shared fetch still runs while another caller waits for it.
 * Local `Bun.serve({ port: 0 })` site for site.test and its subdomains; its robots.txt files hang until let go.
 */
import { afterEach, expect, test } from "bun:test";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import { htmlPage, startMapTestSite, type MapTestSite } from "../helpers/map-test-site.ts";

/** How long a hanging robots.txt waits for its client to go away before it answers anyway. */
const HANG_MS = 3_000;
/** Time given to closed connections to be seen closed by the site. */
const SETTLE_MS = 200;

let site: MapTestSite | undefined;
afterEach(async () => {
  await site?.close();
  site = undefined;
});

/** A robots.txt that answers after {@link HANG_MS}, or not at all when its client goes away first. */
async function hangingRobots(request: Request): Promise<Response> {
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, HANG_MS);
    request.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
  return new Response("User-agent: *\nAllow: /\n");
}

/** The site: `hanging` hosts' robots.txt hang, the others' are missing; the home page links two subdomains' pages and two of its own. */
function start(hanging: (host: string) => boolean): Promise<MapTestSite> {
  return startMapTestSite(
    (u, request) => {
      if (u.pathname === "/robots.txt") return hanging(u.hostname) ? hangingRobots(request) : new Response("not found", { status: 404 });
      const links = u.hostname === "site.test" && u.pathname === "/" ? [`http://a.site.test:${u.port}/x`, `http://b.site.test:${u.port}/y`, "/p1", "/p2"] : [];
      return htmlPage(`Page ${u.pathname}`, links);
    },
    { hosts: ["site.test", "a.site.test", "b.site.test"] },
  );
}

test("robots.txt files asked for in advance (subdomains' pages queued, never fetched) stop when the map answers", async () => {
  site = await start((host) => host !== "site.test");
  const robots = new RobotsCache({ engine: site.deps.engine });
  const began = performance.now();
  // `limit: 3` is met by the start page's links: no subdomain page is fetched, their robots.txt was only asked ahead.
  const r = await site.map({ limit: 3 }, { robots });
  const tookMs = performance.now() - began;
  expect(r.links).toHaveLength(3);
  expect(tookMs).toBeLessThan(2_000);
  await Bun.sleep(SETTLE_MS);
  // Before: ["//a.site.test/robots.txt", "//b.site.test/robots.txt"] open, and robots.fetching 2, for up to 10 s.
  expect(site.openRequests()).toEqual([]);
  expect(robots.fetching).toBe(0);
  // Nothing is cached for a fetch nobody waited for: the next map asks again.
  expect(robots.peek(`http://a.site.test:${new URL(site.origin).port}/`)).toBeUndefined();
});

test("a start robots.txt slower than the map's timeout stops when the map answers", async () => {
  site = await start((host) => host === "site.test");
  const robots = new RobotsCache({ engine: site.deps.engine });
  const r = await site.map({ timeout: 1_500 }, { robots });
  expect(r.warning ?? "").toContain("did not answer in time");
  await Bun.sleep(SETTLE_MS);
  expect(site.openRequests()).toEqual([]); // before: ["/robots.txt"], open until the cache's own 10 s
  expect(robots.fetching).toBe(0);
});

test("a shared robots.txt fetch goes on while one caller still waits, ends when the last gives up, and one without a signal keeps it", async () => {
  site = await start(() => true);
  const robots = new RobotsCache({ engine: site.deps.engine });
  const url = `${site.origin}/`;
  const [first, second] = [new AbortController(), new AbortController()];
  const a = robots.get(url, first.signal);
  const b = robots.get(url, second.signal);
  a.catch(() => {});
  b.catch(() => {});
  await Bun.sleep(SETTLE_MS);
  expect(site.openRequests()).toEqual(["/robots.txt"]); // one fetch for both
  first.abort();
  await expect(a).rejects.toBeDefined();
  await Bun.sleep(SETTLE_MS);
  expect(site.openRequests()).toEqual(["/robots.txt"]); // the second still waits
  second.abort();
  await expect(b).rejects.toBeDefined();
  await Bun.sleep(SETTLE_MS);
  expect(site.openRequests()).toEqual([]);
  expect(robots.fetching).toBe(0);

  // A caller without a signal keeps the fetch going though one with a signal gave up; the file is cached.
  const third = new AbortController();
  const pinned = robots.getWithin(url, 60_000);
  const c = robots.get(url, third.signal);
  c.catch(() => {});
  await Bun.sleep(SETTLE_MS);
  third.abort();
  await Bun.sleep(SETTLE_MS);
  expect(site.openRequests()).toEqual(["/robots.txt"]);
  expect((await pinned).status).toBe("ok");
  expect(robots.peek(url)?.status).toBe("ok");
}, 10_000);
