/**
 * A map of an unchanged site is the same list every time (crawl/map-discovery.ts): pages are fetched a few at a time
 * but read in the order they were queued. Before, each page's links were listed as its answer arrived, so response
 * jitter changed the order, and with a `limit`, which links were listed at all (5 runs gave 5 orders and 5 sets).
 * Local `Bun.serve({ port: 0 })` site whose pages answer after delays the test sets.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mapSite, type MapDeps, type MapSiteOptions } from "../../src/crawl/map.ts";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";

const SECTIONS = 8;
const CHILDREN = 6;

let server: ReturnType<typeof Bun.serve>;
let origin: string;
let gate: EgressGate;
let deps: MapDeps;
/** Milliseconds section N waits before answering. */
let delayOf: (section: number) => number = () => 0;

const html = (title: string, links: string[]) =>
  new Response(`<html><head><title>${title}</title></head><body>${links.map((h) => `<a href="${h}">${h}</a>`).join("")}</body></html>`, { headers: { "content-type": "text/html" } });

beforeAll(async () => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/") return html("Home", Array.from({ length: SECTIONS }, (_, s) => `/s${s}`));
      const m = /^\/s(\d+)$/.exec(path);
      if (m) {
        const s = Number(m[1]);
        await Bun.sleep(delayOf(s));
        return html(`Section ${s}`, Array.from({ length: CHILDREN }, (_, c) => `/s${s}/c${c}`));
      }
      if (path === "/robots.txt" || path.endsWith(".xml")) return new Response("not found", { status: 404 });
      return html(path, []);
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

async function mapWith(delays: (section: number) => number, o: Partial<MapSiteOptions> = {}) {
  delayOf = delays;
  const r = await mapSite({ url: `${origin}/`, sitemap: "skip", maxDiscoveryDepth: 2, ...o }, deps);
  return r.links;
}

describe("map: the same site, the same list", () => {
  test("whichever page of a batch answers first, the links are listed in the order the pages were queued", async () => {
    const firstFirst = await mapWith((s) => s * 40); // the first queued answers first
    const lastFirst = await mapWith((s) => (SECTIONS - s) * 40); // the last queued answers first
    expect(lastFirst).toEqual(firstFirst);
    const children = firstFirst.map((l) => l.url).filter((u) => /\/c\d$/.test(u));
    expect(children).toEqual(Array.from({ length: SECTIONS * CHILDREN }, (_, i) => `${origin}/s${Math.floor(i / CHILDREN)}/c${i % CHILDREN}`));
  });

  test("with a limit met half-way through a batch, the same links are listed whatever the timing", async () => {
    const limit = 1 + SECTIONS + CHILDREN + 2; // the start page's links, then a part of the first sections'
    const runs = [(s: number) => s * 30, (s: number) => (SECTIONS - s) * 30, (s: number) => [50, 0, 90, 20, 70, 10, 0, 40][s]!];
    const lists = [];
    for (const delays of runs) lists.push((await mapWith(delays, { limit })).map((l) => l.url));
    expect(lists[0]).toHaveLength(limit);
    expect(lists[0]!.slice(-3)).toEqual([`${origin}/s0/c5`, `${origin}/s1/c0`, `${origin}/s1/c1`]);
    expect(lists[1]).toEqual(lists[0]!);
    expect(lists[2]).toEqual(lists[0]!);
  });
});
