/**
 * `delay` makes a crawl sequential, as upstream's `maxCrawlConcurrency = delay ? 1 : maxConcurrency`: one page in
 * flight at a time, whatever the pages' hosts and however slow they are, and the pause runs from the end of one page
 * to the start of the next. The same for a robots.txt `Crawl-delay`, which becomes the crawl's delay. Assertions are
 * on overlap and lower bounds of gaps, never on exact times (the machine may be busy).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";

/** How long each page takes to answer: longer than the delays below, so paced starts alone would overlap. */
const PAGE_MS = 300;

/** Page fetches seen by both fixture servers (two ports: two hosts for the job pool). */
interface Visit {
  path: string;
  startAt: number;
  endAt: number;
}
let visits: Visit[] = [];
let inFlight = 0;
let maxInFlight = 0;
let robotsTxt = "";

function serve(links: (other: string) => string[]) {
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/robots.txt") return new Response(robotsTxt);
      if (path.endsWith(".xml")) return new Response("", { status: 404 });
      const visit: Visit = { path: `${server.port}${path}`, startAt: Date.now(), endAt: 0 };
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await Bun.sleep(PAGE_MS);
      inFlight--;
      visit.endAt = Date.now();
      visits.push(visit);
      const body = path === "/" ? links(otherOrigin()).map((l) => `<a href="${l}">${l}</a>`).join("") : "<p>page</p>";
      return new Response(`<!doctype html><html><head><title>${path}</title></head><body>${body}</body></html>`, { headers: { "content-type": "text/html" } });
    },
  });
  return server;
}

let a: ReturnType<typeof Bun.serve>;
let b: ReturnType<typeof Bun.serve>;
const otherOrigin = () => `http://127.0.0.1:${b.port}`;

beforeAll(() => {
  // The start page links to two pages of its own host and two of another (same hostname, another port).
  a = serve((other) => ["/a1", "/a2", `${other}/b1`, `${other}/b2`]);
  b = serve(() => []);
});
afterAll(() => {
  a.stop(true);
  b.stop(true);
});

/**
 * Crawls the fixture with `robots` as its robots.txt, in a crawlbox of its own (robots.txt and pages are cached per
 * crawlbox), with room for 8 pages at once overall and per host.
 */
async function crawl(robots: string, body: Record<string, unknown>): Promise<{ status: string; completed: number }> {
  visits = [];
  inFlight = maxInFlight = 0;
  robotsTxt = robots;
  const h: Harness = await createHarness({ jobConcurrency: 8, perHostConcurrency: 8 });
  try {
    const created = (await (await h.request("/v2/crawl", { method: "POST", json: { url: `http://127.0.0.1:${a.port}/`, sitemap: "skip", crawlEntireDomain: true, ...body } })).json()) as { id: string };
    let status: { status: string; completed: number } | undefined;
    for (let i = 0; i < 600; i++) {
      status = (await (await h.request(`/v2/crawl/${created.id}`)).json()) as typeof status;
      if (status!.status !== "scraping") break;
      await Bun.sleep(50);
    }
    return status!;
  } finally {
    await h.close();
  }
}

const ALLOW_ALL = "User-agent: *\nAllow: /\n";

/** Gaps between the end of each page and the start of the next, as the sites saw them. */
function gapsMs(): number[] {
  const sorted = [...visits].sort((x, y) => x.startAt - y.startAt);
  return sorted.slice(1).map((v, i) => v.startAt - sorted[i]!.endAt);
}

test("delay: one page at a time across the crawl's hosts, each pause after the previous page ended", async () => {
  const status = await crawl(ALLOW_ALL, { limit: 5, delay: 0.2 });
  expect(status.status).toBe("completed");
  expect(status.completed).toBe(5);
  expect(visits.length).toBe(5);
  expect(visits.filter((v) => v.path.startsWith(`${b.port}/`)).length).toBe(2);
  expect(maxInFlight).toBe(1);
  // 200 ms asked; ms clocks on both sides, a little slack for rounding.
  for (const gap of gapsMs()) expect(gap).toBeGreaterThanOrEqual(190);
});

test("a sub-millisecond delay still makes the crawl sequential (it is not rounded to no delay)", async () => {
  const status = await crawl(ALLOW_ALL, { limit: 5, delay: 0.0004 });
  expect(status.status).toBe("completed");
  expect(visits.length).toBe(5);
  expect(maxInFlight).toBe(1);
});

test("without delay the same crawl runs its pages in parallel (the fixture can tell)", async () => {
  const status = await crawl(ALLOW_ALL, { limit: 5 });
  expect(status.status).toBe("completed");
  expect(visits.length).toBe(5);
  expect(maxInFlight).toBeGreaterThan(1);
});

test("robots.txt Crawl-delay becomes the crawl's delay: sequential too", async () => {
  const status = await crawl(`${ALLOW_ALL}Crawl-delay: 0.2\n`, { limit: 5 });
  expect(status.status).toBe("completed");
  expect(visits.length).toBe(5);
  expect(maxInFlight).toBe(1);
  for (const gap of gapsMs()) expect(gap).toBeGreaterThanOrEqual(190);
});

test("a sub-millisecond robots.txt Crawl-delay is still a delay: sequential", async () => {
  const status = await crawl(`${ALLOW_ALL}Crawl-delay: 0.0004\n`, { limit: 5 });
  expect(status.status).toBe("completed");
  expect(visits.length).toBe(5);
  expect(maxInFlight).toBe(1);
});
