/**
 * A page with a flood of links must not hold the server, nor make a map keep more than it can list
 * (crawl/map-discovery.ts, crawl/map-listing.ts). A hub linking four 8 MB pages of ~306k links each held `/health`
 * 6 s and took 1.7 GB: every link was judged in one synchronous loop, and kept (listed and queued) long after
 * `limit` was reached. Here judging is made slow on purpose (an include pattern RE2 steps through in ~60 ms a link),
 * so that the loop, not the parse, is what the timer sees. Local `Bun.serve({ port: 0 })` site.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mapSite, type MapDeps, type MapSiteOptions } from "../../src/crawl/map.ts";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";

const LINKS = 24;
/**
 * Accepted (fewer than 4,000 instructions), and ~60 ms a 610-character path that it matches (re2js leaves its DFA
 * for the NFA at this size): 24 links are ~1.4 s of judging.
 */
const SLOW_PATTERN = "(?:a|aa|[^Z]){600}Z";
const linkPath = (i: number) => `/p/${"a".repeat(610)}Z${i}`;

let server: ReturnType<typeof Bun.serve>;
let origin: string;
let gate: EgressGate;
let deps: MapDeps;

beforeAll(async () => {
  const hub = `<html><head><title>Hub</title></head><body>${Array.from({ length: LINKS }, (_, i) => `<a href="${linkPath(i)}">x</a>`).join("")}</body></html>`;
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      if (new URL(req.url).pathname === "/") return new Response(hub, { headers: { "content-type": "text/html" } });
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

/** A map of the hub's links, with the longest the event loop was held (a 2 ms timer's longest gap) and the time. */
async function timedMap(o: Partial<MapSiteOptions> = {}) {
  let last = performance.now();
  let longestGapMs = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longestGapMs = Math.max(longestGapMs, now - last);
    last = now;
  }, 2);
  const started = performance.now();
  try {
    const r = await mapSite({ url: `${origin}/`, sitemap: "skip", maxDiscoveryDepth: 1, includePaths: [SLOW_PATTERN], ...o }, deps);
    // A loop that held the event loop up to the map's end left the timer no turn to see it: the last gap counts.
    longestGapMs = Math.max(longestGapMs, performance.now() - last);
    return { links: r.links, ms: performance.now() - started, longestGapMs };
  } finally {
    clearInterval(timer);
  }
}

describe("map: a page with a flood of links", () => {
  let all: Awaited<ReturnType<typeof timedMap>>;

  test("its links are judged with the event loop given back", async () => {
    all = await timedMap();
    expect(all.links).toHaveLength(LINKS);
    expect(all.ms).toBeGreaterThan(LINKS * 20); // the judging is slow, as meant
    // Before: one loop held the event loop for the whole map (longest gap ≈ the map's time).
    expect(all.longestGapMs).toBeLessThan(all.ms / 5);
  });

  test("once limit URLs are known, the rest of the page's links are not judged (nor kept)", async () => {
    const few = await timedMap({ limit: 3 });
    expect(few.links.map((l) => l.url)).toEqual(Array.from({ length: 3 }, (_, i) => `${origin}${linkPath(i)}`));
    // Before: every link was judged and kept whatever the limit (as long as the map above).
    expect(few.ms).toBeLessThan(all.ms / 4);
  });
});
