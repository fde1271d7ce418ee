/**
 * `GET /v2/scrape/{id}` of a crawl or batch page (its `metadata.scrapeId`, which is also what a search's
 * `asyncScraping` hands out): the document once done; while it waits, a 404 that says so; once it failed for good,
 * its own failure (status and code as a scrape of it would answer), so a client polling the id can stop; cancelled
 * pages say they were cancelled. Other keys see none of it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
let site: ReturnType<typeof Bun.serve>;
let release: () => void = () => {};
const held = new Promise<void>((resolve) => (release = resolve));

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const p = new URL(req.url).pathname;
      if (p === "/bin") return new Response(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), { headers: { "content-type": "application/octet-stream" } });
      if (p === "/held") await held;
      return new Response(`<html><body><main><h1>Page ${p}</h1><p>Some text of ${p}.</p></main></body></html>`, { headers: { "content-type": "text/html" } });
    },
  });
  // One page of a host at a time: the held page keeps the next one queued.
  h = await createHarness({ perHostConcurrency: 1 });
});
afterAll(async () => {
  release();
  await h.close();
  site.stop(true);
});

const base = () => `http://127.0.0.1:${site.port}`;

async function batch(urls: string[]): Promise<string> {
  const res = await h.request("/v2/batch/scrape", { method: "POST", json: { urls, maxAge: 0 } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: string }).id;
}

/** The page task ids of a job, by URL (what asyncScraping hands out), read from the store. */
const idsOf = (jobId: string) => h.services.jobResults.taskIdsByUrl(jobId);

async function get(id: string, auth?: string) {
  const res = await h.request(`/v2/scrape/${id}`, auth ? { auth } : {});
  return { status: res.status, body: (await res.json()) as any };
}

async function until(check: () => Promise<boolean>) {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await Bun.sleep(25);
  }
  throw new Error("condition not met in 10 s");
}

describe("GET /v2/scrape/{id} of a job's page", () => {
  test("done: the document; failed for good: the page's own failure; other keys: 404", async () => {
    const jobId = await batch([`${base()}/ok`, `${base()}/bin`]);
    const ids = idsOf(jobId);
    const okId = ids.get(`${base()}/ok`)!;
    const binId = ids.get(`${base()}/bin`)!;
    await until(async () => (await get(binId)).status !== 404 && (await get(okId)).status === 200);
    const ok = await get(okId);
    expect(ok.body.data.markdown).toContain("Page /ok");
    const failed = await get(binId);
    expect([failed.status, failed.body.success, failed.body.code]).toEqual([422, false, "SCRAPE_UNSUPPORTED_FILE_ERROR"]);
    expect(failed.body.error).toContain("application/octet-stream");
    const other = h.services.keys.create("other").key;
    expect((await get(binId, other)).status).toBe(404);
    expect((await get(binId, other)).body.error).toBe("Job not found.");
  });

  test("queued, being scraped, then cancelled: a 404 that says which", async () => {
    const jobId = await batch([`${base()}/held`, `${base()}/after`]);
    const ids = idsOf(jobId);
    const heldId = ids.get(`${base()}/held`)!;
    const afterId = ids.get(`${base()}/after`)!;
    await until(async () => (await get(heldId)).body.error?.includes("being scraped") === true);
    const waiting = await get(afterId);
    expect([waiting.status, waiting.body.success]).toEqual([404, false]);
    expect(waiting.body.error).toContain("queued");
    expect((await h.request(`/v2/batch/scrape/${jobId}`, { method: "DELETE" })).status).toBe(200);
    const cancelled = await get(afterId);
    expect(cancelled.status).toBe(404);
    expect(cancelled.body.error).toContain("cancelled");
  });
});
