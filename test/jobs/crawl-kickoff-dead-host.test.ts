/**
 * A crawl's kickoff does not read the sitemaps of a start host that did not answer its robots.txt at all: robots.txt's
 * absence refuses every URL of that host (RFC 9309 "unreachable"), and the sitemaps live on the same host, so waiting
 * on them only held the crawl open (a host that never answers: the crawl's answer was known at 10 s and it ended at
 * 130 s, the sitemap budget). A robots.txt that answers 5xx is still followed by the sitemap read, as is any robots.txt
 * under `ignoreRobotsTxt`. Real HTTP engine, egress gate and robots cache against local servers.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine } from "../../src/engines/types.ts";
import { createCrawlPlanner } from "../../src/jobs/crawl-planner.ts";
import type { Job } from "../../src/jobs/types.ts";
import { silentLogger } from "../../src/log.ts";

let gate: EgressGate;
let engine: Engine;
/** Answers nothing to /robots.txt (holds it open), sitemaps at once. */
let silent: ReturnType<typeof Bun.serve>;
/** Answers 503 to /robots.txt, sitemaps at once. */
let failing: ReturnType<typeof Bun.serve>;
const hits: string[] = [];

function site(robots: (req: Request) => Response | Promise<Response>) {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const { pathname, host } = new URL(req.url);
      hits.push(`${host}${pathname}`);
      if (pathname === "/robots.txt") return robots(req);
      if (pathname === "/sitemap.xml") return new Response(`<urlset><url><loc>http://${host}/listed</loc></url></urlset>`, { headers: { "content-type": "application/xml" } });
      return new Response("", { status: 404 });
    },
  });
}

beforeAll(async () => {
  gate = await createEgressGate({ allowPrivateNetwork: true });
  engine = createHttpEngine({ gate });
  // Never answers: the request stays open until the client gives up (the robots cache's timeout).
  silent = site((req) => new Promise<Response>((resolve) => req.signal.addEventListener("abort", () => resolve(new Response("")))));
  failing = site(() => new Response("down", { status: 503 }));
});
afterAll(async () => {
  silent.stop(true);
  failing.stop(true);
  await gate.close();
});

function kickoff(base: string, crawlerOptions: Record<string, unknown> = {}) {
  const planner = createCrawlPlanner({ engine, robots: new RobotsCache({ engine, timeoutMs: 300 }), log: silentLogger });
  const job = { id: crypto.randomUUID(), url: `${base}/`, options: { crawlerOptions: { limit: 5, ...crawlerOptions } } } as unknown as Job;
  return planner.kickoff(job, new AbortController().signal);
}

test("a start host that never answers robots.txt: the sitemaps are not read", async () => {
  const host = `127.0.0.1:${silent.port}`;
  const out = await kickoff(`http://${host}`);
  expect(out.discovered).toEqual([]);
  expect(hits.filter((h) => h.startsWith(host))).toEqual([`${host}/robots.txt`]);
});

test("a robots.txt that answers 503: the sitemaps are still read (their URLs then refused by robots.txt)", async () => {
  const host = `127.0.0.1:${failing.port}`;
  const out = await kickoff(`http://${host}`);
  expect(hits).toContain(`${host}/sitemap.xml`);
  expect(out.discovered).toEqual([]);
  expect(out.robotsBlocked).toEqual([`http://${host}/listed`]);
});

test("ignoreRobotsTxt: the sitemaps of a host whose robots.txt never answered are read", async () => {
  const host = `127.0.0.1:${silent.port}`;
  const out = await kickoff(`http://${host}`, { ignoreRobotsTxt: true });
  expect(hits).toContain(`${host}/sitemap.xml`);
  expect(out.discovered.map((t) => t.url)).toEqual([`http://${host}/listed`]);
});
