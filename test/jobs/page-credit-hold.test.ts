/**
 * A crawl page's credit is held from its scrape until the job store charges it with the stored result. In between
 * the runner still awaits the network (robots.txt of a host the start page moved the crawl to, the robots.txt of
 * its links' hosts): before, the credit was neither held nor charged there, and scrapes of the same key sent
 * meanwhile spent it too (a key with a quota of 3 ended at 4).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: ReturnType<typeof Bun.serve>;
let h: Harness;
let landed = 0;
const ROBOTS_MS = 1500;

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const host = req.headers.get("host") ?? "";
      const page = (body: string) => new Response(`<html><body><main>${body}</main></body></html>`, { headers: { "content-type": "text/html" } });
      if (url.pathname === "/robots.txt") {
        // The host the crawl moves to answers its robots.txt slowly.
        if (host.startsWith("moved.test")) await Bun.sleep(ROBOTS_MS);
        return new Response("", { status: 404 });
      }
      if (url.pathname === "/start") return new Response(null, { status: 302, headers: { location: `http://moved.test:${site.port}/landed` } });
      if (url.pathname === "/landed") {
        landed++;
        return page("<h1>Landed</h1><p>The site lives here now.</p>");
      }
      return page(`<h1>Page ${url.pathname}</h1><p>A page of text.</p>`);
    },
  });
  h = await createHarness({}, { resolver: async (host) => (host === "moved.test" ? ["127.0.0.1"] : []) });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
});

test("a key cannot spend a crawl page's credit while the page waits for a robots.txt before it is stored", async () => {
  const { key } = h.services.keys.create("three credits", 3);
  const crawl = (await (await h.request("/v2/crawl", { method: "POST", auth: key, json: { url: `http://127.0.0.1:${site.port}/start`, limit: 1, scrapeOptions: { maxAge: 0 } } })).json()) as any;
  expect(crawl.success).toBe(true);
  // The start page is scraped (it landed on moved.test); the crawl now reads moved.test's robots.txt.
  for (let i = 0; i < 200 && landed === 0; i++) await Bun.sleep(10);
  expect(landed).toBe(1);
  const statuses = await Promise.all(
    [0, 1, 2].map(async (i) => (await h.request("/v2/scrape", { method: "POST", auth: key, json: { url: `http://127.0.0.1:${site.port}/s/${i}`, maxAge: 0 } })).status),
  );
  expect(statuses.sort()).toEqual([200, 200, 402]);
  let status: any;
  for (let i = 0; i < 100; i++) {
    status = await (await h.request(`/v2/crawl/${crawl.id}`, { auth: key })).json();
    if (status.status !== "scraping") break;
    await Bun.sleep(50);
  }
  expect([status.status, status.completed, status.creditsUsed]).toEqual(["completed", 1, 1]);
  const usage = (await (await h.request("/v2/team/credit-usage", { auth: key })).json()) as any;
  expect(usage.data.remainingCredits).toBe(0);
  expect(h.services.ledger.usage(h.services.keys.verify(key)!).creditsUsed).toBe(3);
});
