/**
 * The 100-pages-per-monitor limit (docs/monitor.md "Limits and cost") counts scrape targets' URLs and crawl targets'
 * limits together, a crawl target without a `limit` at its default (100); search targets are not counted.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
const base = "http://127.0.0.1:9"; // never fetched: nothing here runs a check

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
});

async function create(targets: unknown[]): Promise<{ status: number; body: any }> {
  const res = await h.request("/v2/monitor", { method: "POST", json: { name: "limit", schedule: { text: "daily" }, targets } });
  return { status: res.status, body: await res.json() };
}

describe("pages per monitor", () => {
  test("three crawl targets of limit 100 are 300 pages: a 400 naming the total", async () => {
    const crawl = (i: number) => ({ type: "crawl", url: `${base}/site${i}/`, crawlOptions: { limit: 100 } });
    const r = await create([crawl(1), crawl(2), crawl(3)]);
    expect(r.status).toBe(400);
    expect(r.body.details).toContainEqual(expect.objectContaining({ path: ["targets"], message: expect.stringContaining("these targets have 300") }));
  });

  test("100 scrape URLs plus a crawl target without a limit (counted at its default, 100) are a 400", async () => {
    const urls = Array.from({ length: 100 }, (_, i) => `${base}/p${i}`);
    const r = await create([{ type: "scrape", urls }, { type: "crawl", url: `${base}/` }]);
    expect(r.status).toBe(400);
    expect(r.body.details).toContainEqual(expect.objectContaining({ path: ["targets"], message: expect.stringContaining("these targets have 200") }));
  });

  test("a PATCH is held to the same total; 50 URLs plus a crawl of 50 fit exactly", async () => {
    const urls = Array.from({ length: 50 }, (_, i) => `${base}/p${i}`);
    const ok = await create([{ type: "scrape", urls }, { type: "crawl", url: `${base}/`, crawlOptions: { limit: 50 } }]);
    expect(ok.status).toBe(200);
    expect(ok.body.data.estimatedCreditsPerMonth).toBe(100 * 30);
    const patch = await h.request(`/v2/monitor/${ok.body.data.id}`, { method: "PATCH", json: { targets: [{ type: "scrape", urls }, { type: "crawl", url: `${base}/`, crawlOptions: { limit: 51 } }] } });
    expect(patch.status).toBe(400);
  });
});
