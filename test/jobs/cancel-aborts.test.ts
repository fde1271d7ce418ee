/**
 * Cancelling a crawl or batch stops its running pages at once. Before, the pages noticed only when their lease
 * heartbeat found the lease gone (a third of the 30 s lease): their fetches stayed open ~10 s, holding the host's
 * slots, so the next job on the same host waited for them.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
let site: ReturnType<typeof Bun.serve>;
let base: string;
let hanging = 0;

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path.startsWith("/hang/")) {
        hanging++;
        // Never answers: the page ends only when crawlbox drops the request.
        return new Promise<Response>((resolve) => req.signal.addEventListener("abort", () => resolve(new Response("gone"))));
      }
      return new Response(`<main><h1>${path}</h1><p>A quick page.</p></main>`, { headers: { "content-type": "text/html" } });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  h = await createHarness({ jobConcurrency: 4, perHostConcurrency: 4 });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
});

const post = async (path: string, json: unknown) => (await (await h.request(path, { method: "POST", json })).json()) as any;

test("a cancelled batch's running pages stop at once: the next batch on the same host is not held up", async () => {
  const hung = await post("/v2/batch/scrape", { urls: [0, 1, 2, 3, 4, 5].map((i) => `${base}/hang/${i}`), timeout: 60_000 });
  for (let i = 0; i < 200 && hanging < 4; i++) await Bun.sleep(10);
  expect(hanging).toBe(4); // the host's four slots are taken
  expect((await h.request(`/v2/batch/scrape/${hung.id}`, { method: "DELETE" })).status).toBe(200);

  const started = performance.now();
  const next = await post("/v2/batch/scrape", { urls: [0, 1, 2, 3].map((i) => `${base}/quick/${i}`) });
  let status: any;
  for (let i = 0; i < 300; i++) {
    status = await (await h.request(`/v2/batch/scrape/${next.id}`)).json();
    if (status.status !== "scraping") break;
    await Bun.sleep(20);
  }
  expect(status.status).toBe("completed");
  expect(status.data).toHaveLength(4);
  expect(performance.now() - started).toBeLessThan(3000);
  expect(h.services.workers.active).toBe(0);
  expect(hanging).toBe(4); // the two pages still queued were never fetched
});
