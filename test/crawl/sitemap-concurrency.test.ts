/**
 * An index's children are fetched a few at a time (crawl/sitemap-read.ts): 19 children answering in 1 s each took
 * 19 s one at a time, and a map with `timeout: 10000` answered 408 with nothing. At most SITEMAP_CONCURRENCY are in
 * flight, the URLs come out in the index's order whatever order the files arrive in, and a child that hangs holds
 * neither the others nor the map, which names it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mapSite } from "../../src/crawl/map.ts";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import * as sitemaps from "../../src/crawl/sitemap.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine } from "../../src/engines/types.ts";

const { readSitemaps } = sitemaps;
// Read through the namespace, so that this file also runs (and fails on timing) against a reader without the constant.
const SITEMAP_CONCURRENCY = (sitemaps as Record<string, unknown>).SITEMAP_CONCURRENCY as number;
const CHILDREN = 19;
const urlset = (urls: string[]) => `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.map((u) => `<url><loc>${u}</loc></url>`).join("")}</urlset>`;

/** Child `i` answers after `delayMs(i)`; `hang` never answers. */
const behaviour = { delayMs: (_i: number) => 500, hang: -1 };
let inFlight = 0;
let mostInFlight = 0;
let server: ReturnType<typeof Bun.serve>;
let origin: string;
let gate: EgressGate;
let engine: Engine;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const { pathname: p, origin: o } = new URL(req.url);
      if (p === "/robots.txt") return new Response(`User-agent: *\nSitemap: ${o}/index.xml\n`);
      if (p === "/index.xml") return new Response(`<sitemapindex>${Array.from({ length: CHILDREN }, (_, i) => `<sitemap><loc>${o}/child-${i}.xml</loc></sitemap>`).join("")}</sitemapindex>`);
      const m = /^\/child-(\d+)\.xml$/.exec(p);
      if (!m) return new Response("<html><body></body></html>", { headers: { "content-type": "text/html" } });
      const i = Number(m[1]);
      if (i === behaviour.hang) return new Promise<Response>(() => {});
      mostInFlight = Math.max(mostInFlight, ++inFlight);
      await Bun.sleep(behaviour.delayMs(i));
      inFlight--;
      return new Response(urlset([`${o}/c${i}/a`, `${o}/c${i}/b`]), { headers: { "content-type": "application/xml" } });
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  gate = await createEgressGate({ allowPrivateNetwork: true });
  engine = createHttpEngine({ gate });
});
afterAll(async () => {
  await gate.close();
  server.stop(true);
});

const expectedUrls = (skip = -1) => Array.from({ length: CHILDREN }, (_, i) => i).filter((i) => i !== skip).flatMap((i) => [`${origin}/c${i}/a`, `${origin}/c${i}/b`]);

describe("sitemap children, a few at a time", () => {
  test("19 children of 500 ms: read in about 5 rounds, not 19, at most SITEMAP_CONCURRENCY at once, in the index's order", async () => {
    behaviour.delayMs = (i) => 500 - i * 20; // later children answer sooner: arrival order is not index order
    behaviour.hang = -1;
    mostInFlight = 0;
    const started = performance.now();
    const r = await readSitemaps([{ url: `${origin}/index.xml` }], { engine });
    expect(performance.now() - started).toBeLessThan(4000); // before: 6.1 s (the sum of the delays)
    expect(mostInFlight).toBe(SITEMAP_CONCURRENCY);
    expect(r.urls).toEqual(expectedUrls());
    expect(r.truncated).toBe(false);
  }, 30_000);

  test("a map with timeout 4000 of 19 children of 1 s answers 200 with their URLs (was 408 with nothing)", async () => {
    behaviour.delayMs = () => 1000;
    behaviour.hang = -1;
    const r = await mapSite({ url: `${origin}/`, timeout: 4000, sitemap: "only" }, { engine, robots: new RobotsCache({ engine }), gate });
    // The first child alone (the read learns what a file gives before fetching more beside it), then rounds of 4:
    // they do not all fit in 4 s; what arrived is kept, and the map says it stopped at its time limit.
    expect(r.links.length).toBeGreaterThanOrEqual(2 * (1 + 2 * SITEMAP_CONCURRENCY));
    expect(r.warning).toContain("time limit");
  }, 30_000);

  test("a child that hangs holds neither the others nor the map; the warning names it", async () => {
    behaviour.delayMs = () => 50;
    behaviour.hang = 2;
    const started = performance.now();
    const r = await mapSite({ url: `${origin}/`, timeout: 2000, sitemap: "only" }, { engine, robots: new RobotsCache({ engine }), gate });
    expect(performance.now() - started).toBeLessThan(2000);
    // 20 sitemaps at most: the map's guessed /sitemap.xml (a 404) and the index leave 18 children.
    expect(r.links.map((l) => l.url)).toEqual(expectedUrls(2).filter((u) => !u.includes("/c18/")));
    expect(r.warning).toContain(`${origin}/child-2.xml (not finished`);
  }, 30_000);
});
