/**
 * The status of a crawl or batch that ended `failed` says why in `error` (crawlbox's field; upstream's body has
 * none, and its SDKs drop fields they do not know). Only the job's own key reads its status, and the one way a crawl
 * or batch fails is its key being revoked, so the key must be able to read again: an environment key taken out of
 * CRAWLBOX_API_KEYS at a restart (its jobs fail at their next page) and put back at the next. Before, such a status
 * read `failed` and nothing more.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHarness } from "../helpers/harness.ts";

const ENV_KEY = "env-key-out-and-back";
const REVOKED = "The API key of this job was revoked.";
let site: ReturnType<typeof Bun.serve>;
let base: string;
/** Page requests the site received. */
let hits = 0;

beforeAll(() => {
  // Every page links to five more: a crawl never runs out of pages.
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const url = new URL(req.url);
      if (url.pathname === "/robots.txt" || url.pathname.endsWith(".xml")) return new Response("", { status: 404 });
      hits++;
      const n = Number(url.pathname.split("/").pop()) || 0;
      const links = [1, 2, 3, 4, 5].map((i) => `<a href="/p/${n * 5 + i}">page ${n * 5 + i}</a>`).join(" ");
      return new Response(`<html><body><main><h1>Page ${n}</h1><p>Text of page ${n}.</p>${links}</main></body></html>`, { headers: { "content-type": "text/html" } });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
});
afterAll(() => site.stop(true));

async function until(what: () => boolean, ms = 15_000): Promise<void> {
  for (const end = performance.now() + ms; performance.now() < end; await Bun.sleep(20)) if (what()) return;
}

test("a crawl and a batch failed for a revoked key say why in their status (v2 and v1), a completed one has no error", async () => {
  // First life: the key runs a crawl and a batch, both far from done when the server stops.
  const first = await createHarness({ apiKeys: [ENV_KEY] });
  const dataDir = first.services.config.dataDir;
  const post = async (path: string, json: unknown) => (await (await first.request(path, { method: "POST", auth: ENV_KEY, json })).json()) as { success: boolean; id: string };
  const crawl = await post("/v2/crawl", { url: `${base}/p/0`, limit: 500, crawlEntireDomain: true, maxConcurrency: 1, sitemap: "skip", scrapeOptions: { maxAge: 0 } });
  const batch = await post("/v2/batch/scrape", { urls: Array.from({ length: 500 }, (_, i) => `${base}/b/${i}`), maxConcurrency: 1, maxAge: 0 });
  expect([crawl.success, batch.success]).toEqual([true, true]);
  await until(() => hits >= 2);
  await first.services.close(); // a graceful stop keeps the data folder; the jobs stay running, their pages queued
  const statusIn = (h: typeof first, id: string) => h.services.jobStore.get(id)!.status;

  // Second life: the key is gone from CRAWLBOX_API_KEYS, so both jobs fail at their next page.
  const second = await createHarness({ apiKeys: [], dataDir });
  await until(() => statusIn(second, crawl.id) !== "scraping" && statusIn(second, batch.id) !== "scraping");
  // Failed for the key (not completed before the stop): a job that ended cannot fail.
  expect([crawl.id, batch.id].map((id) => second.services.jobStore.get(id))).toMatchObject([
    { status: "failed", error: REVOKED },
    { status: "failed", error: REVOKED },
  ]);
  await second.services.close();

  // Third life: the key is back and reads its jobs' statuses.
  const third = await createHarness({ apiKeys: [ENV_KEY], dataDir });
  try {
    const read = async (path: string) => {
      const res = await third.request(path, { auth: ENV_KEY });
      expect(res.status).toBe(200);
      return (await res.json()) as Record<string, unknown>;
    };
    for (const path of [`/v2/crawl/${crawl.id}`, `/v2/batch/scrape/${batch.id}`, `/v2/crawl/${batch.id}`, `/v1/crawl/${crawl.id}`, `/v1/batch/scrape/${batch.id}`]) {
      expect({ path, ...(await read(path)) }).toMatchObject({ path, success: true, status: "failed", error: REVOKED });
    }
    // A job that did not fail has no `error`.
    const done = (await (await third.request("/v2/batch/scrape", { method: "POST", auth: ENV_KEY, json: { urls: [`${base}/done/1`], maxAge: 0 } })).json()) as { id: string };
    await until(() => statusIn(third, done.id) !== "scraping");
    const body = await read(`/v2/batch/scrape/${done.id}`);
    expect(body.status).toBe("completed");
    expect("error" in body).toBe(false);
  } finally {
    await third.close();
  }
}, 60_000);
