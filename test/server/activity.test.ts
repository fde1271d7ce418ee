/**
 * `GET /v2/team/activity` (src/auth/activity.ts, src/server/activity-hook.ts): the calling key's jobs of the last 24
 * hours, newest first, each with the id its GET route takes, the endpoint, the API version it came through and its
 * target; filtered by endpoint, paged by cursor; nothing of a zero-data-retention request and nothing of another key;
 * older entries neither listed nor kept; a batch noted once, not again per appendToId, with its first valid URL; `limit`
 * and `endpoint` read as upstream reads them; a bad endpoint or cursor is a 400.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startFixtureSite, type FixtureSite } from "../fixtures/site.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: FixtureSite;
let h: Harness;

beforeAll(async () => {
  site = startFixtureSite();
  h = await createHarness({ browserEnabled: false });
});
afterAll(async () => {
  await h.close();
  site.stop();
});

const activity = async (query = "", auth?: string) => {
  const res = await h.request(`/v2/team/activity${query}`, auth ? { auth } : {});
  return { status: res.status, body: (await res.json()) as any };
};

describe("GET /v2/team/activity", () => {
  test("jobs are listed newest first with their ids, endpoints, API versions and targets; ZDR and other keys' are not", async () => {
    const scrape = (await (await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/article`, formats: ["markdown"] } })).json()) as any;
    const map = (await (await h.request("/v2/map", { method: "POST", json: { url: `${site.url}/article`, limit: 5 } })).json()) as any;
    const crawl = (await (await h.request("/v2/crawl", { method: "POST", json: { url: `${site.url}/article`, limit: 1 } })).json()) as any;
    // With an Idempotency-Key the job is noted once; its replay started nothing.
    const keyedRequest = { method: "POST", json: { url: `${site.url}/article`, formats: ["links"] }, headers: { "Idempotency-Key": "activity-1" } };
    const keyed = (await (await h.request("/v2/scrape", keyedRequest)).json()) as any;
    expect((await h.request("/v2/scrape", keyedRequest)).headers.get("idempotent-replayed")).toBe("true");
    await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/article`, formats: ["markdown"], zeroDataRetention: true } });
    await h.request("/v2/scrape", { method: "POST", json: { url: "not a url" } });
    const v1 = (await (await h.request("/v1/scrape", { method: "POST", json: { url: `${site.url}/article` } })).json()) as any;
    const { status, body } = await activity();
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, cursor: null, has_more: false });
    expect(body.data.map((e: any) => [e.endpoint, e.id, e.api_version, e.target])).toEqual([
      ["scrape", v1.data.metadata.scrapeId, "v1", `${site.url}/article`],
      ["scrape", keyed.data.metadata.scrapeId, "v2", `${site.url}/article`],
      ["crawl", crawl.id, "v2", `${site.url}/article`],
      ["map", map.id, "v2", `${site.url}/article`],
      ["scrape", scrape.data.metadata.scrapeId, "v2", `${site.url}/article`],
    ]);
    expect(Date.parse(body.data[0].created_at)).toBeGreaterThan(Date.now() - 60_000);
    // The id is the one its GET route takes.
    expect((await h.request(`/v2/scrape/${body.data[4].id}`)).status).toBe(200);
    expect((await h.request(`/v2/crawl/${crawl.id}`)).status).toBe(200);
    // Another key has none of it.
    expect((await activity("", h.services.keys.create("other").key)).body.data).toEqual([]);
  });

  test("filtered by endpoint, paged by cursor; a bad endpoint or cursor is a 400; entries older than a day are neither listed nor kept", async () => {
    expect((await activity("?endpoint=map")).body.data.map((e: any) => e.endpoint)).toEqual(["map"]);
    const first = await activity("?limit=3");
    const cursor = first.body.cursor;
    expect([first.body.has_more, typeof cursor]).toEqual([true, "string"]);
    expect(first.body.data).toHaveLength(3);
    const second = await activity(`?limit=3&cursor=${cursor}`);
    expect(second.body.data).toHaveLength(2);
    expect(second.body.data[0].id).not.toBe(first.body.data[2].id);
    expect(second.body).toMatchObject({ has_more: false, cursor: null });
    for (const q of ["?endpoint=nope", "?cursor=abc"]) {
      const r = await activity(q);
      expect([q, r.status, r.body.success]).toEqual([q, 400, false]);
    }
    h.services.db.query("UPDATE activity SET created_at = created_at - 25 * 3600 * 1000").run();
    expect((await activity()).body.data).toEqual([]);
    h.services.activity.prune();
    expect((h.services.db.query("SELECT COUNT(*) AS n FROM activity").get() as { n: number }).n).toBe(0);
  });

  test("a batch is noted once, with its first valid URL as the target; appendToId requests add no entry", async () => {
    const key = h.services.keys.create("activity-batch").key;
    const created = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: ["not a url", `${site.url}/article`, `${site.url}/other`] }, auth: key })).json()) as any;
    expect(created.invalidURLs).toEqual(["not a url"]);
    for (let i = 0; i < 2; i++) {
      const more = await h.request("/v2/batch/scrape", { method: "POST", json: { urls: ["also not a url", `${site.url}/article?n=${i}`], appendToId: created.id }, auth: key });
      expect(more.status).toBe(200);
    }
    expect((await activity("", key)).body.data.map((e: any) => [e.endpoint, e.id, e.target])).toEqual([["batch_scrape", created.id, `${site.url}/article`]]);
  });

  test("limit is read as upstream reads it: 50 when absent, not a number or below 1, at most 100; every upstream endpoint filters", async () => {
    const key = h.services.keys.create("activity-limit").key;
    const { keyId } = h.services.keys.verify(key)!;
    for (let i = 0; i < 120; i++) h.services.activity.record(keyId, { id: `job-${i}`, endpoint: "scrape", apiVersion: "v2", target: null });
    const sizes: [string, number, number][] = [];
    for (const q of ["", "?limit=200", "?limit=101", "?limit=100", "?limit=0", "?limit=-3", "?limit=abc", "?limit=7", "?limit=7.9"]) {
      const r = await activity(q, key);
      sizes.push([q, r.status, r.body.data?.length ?? -1]);
    }
    expect(sizes).toEqual([
      ["", 200, 50],
      ["?limit=200", 200, 100],
      ["?limit=101", 200, 100],
      ["?limit=100", 200, 100],
      ["?limit=0", 200, 50],
      ["?limit=-3", 200, 50],
      ["?limit=abc", 200, 50],
      ["?limit=7", 200, 7],
      ["?limit=7.9", 200, 7],
    ]);
    for (const endpoint of ["alexandria", "llmstxt", "deep_research"]) {
      const r = await activity(`?endpoint=${endpoint}`, key);
      expect([endpoint, r.status, r.body.success, r.body.data]).toEqual([endpoint, 200, true, []]);
    }
  });
});
