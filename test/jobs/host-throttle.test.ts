/**
 * A 429 (or 503) from a host pauses all the job's pages on that host until its Retry-After, not only the page that
 * got it (jobs/running-work.ts throttleHost; reliability.md B5).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { runCrawl } from "../helpers/crawl-run.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: ReturnType<typeof Bun.serve>;
let h: Harness;
/** Each request for a page under /p/: when, what, and the status answered. */
const hits: { at: number; path: string; status: number }[] = [];
let refused = false;

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const { pathname } = new URL(req.url);
      const html = (body: string) => new Response(`<html><body><main>${body}</main></body></html>`, { headers: { "content-type": "text/html" } });
      if (pathname === "/") return html(`<h1>Home</h1>${[0, 1, 2, 3].map((i) => `<a href="/p/${i}">${i}</a>`).join(" ")}`);
      if (!pathname.startsWith("/p/")) return new Response("no", { status: 404 });
      // The first page asked for is told to wait a second; every other answer is a page.
      const status = refused ? 200 : 429;
      refused = true;
      hits.push({ at: Date.now(), path: pathname, status });
      return status === 429 ? new Response("slow down", { status, headers: { "retry-after": "1" } }) : html(`<h1>${pathname}</h1><p>Text.</p>`);
    },
  });
  h = await createHarness({ retryBaseDelayMs: 20, jobConcurrency: 4, perHostConcurrency: 4 });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
});

test("after a 429 with Retry-After: 1, none of the job's pages on that host is fetched for a second", async () => {
  const status = await runCrawl(h, { url: `http://127.0.0.1:${site.port}/`, sitemap: "skip", maxConcurrency: 1 });
  expect(status.status).toBe("completed");
  expect(status.data).toHaveLength(5);
  const [first, next] = hits;
  expect(first!.status).toBe(429);
  // One page at a time (maxConcurrency 1): before, the next page went out at once and only the refused one waited.
  expect(next!.at - first!.at).toBeGreaterThanOrEqual(900);
  expect(hits.filter((x) => x.status === 200).map((x) => x.path).sort()).toEqual(["/p/0", "/p/1", "/p/2", "/p/3"]);
});
