/**
 * Webhook events of crawl jobs (order, signature, metadata, the events filter, failed pages) and the account routes
 * that report a key's running pages (queue-status, concurrency-check).
 * The site is a small generated one on loopback (jobs-site.ts); the crawl options themselves are covered in test/crawl.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { createHmac } from "node:crypto";
import type { Harness } from "../helpers/harness.ts";
import { useJobsApi, waitFor, SECRET } from "./jobs-site.ts";

const api = useJobsApi();
let h: Harness;
let apiUrl: string;
let base: string;
beforeAll(() => ({ h, apiUrl, base } = api));
const sdk = () => api.sdk();
const raw = (path: string) => api.raw(path);
const hookBodies = api.hookBodies;
describe("webhooks from jobs", () => {
  test("crawl events arrive in order, signed, with metadata; the events filter applies", async () => {
    hookBodies.length = 0;
    const hookUrl = `${api.hooksUrl}/hook`;
    const started = await sdk().startCrawl(`${base}/p/20`, {
      limit: 3,
      crawlEntireDomain: true,
      webhook: { url: hookUrl, metadata: { run: "42" }, headers: { "x-extra": "yes" }, events: ["started", "page", "completed"] },
    });
    await waitFor(async () => hookBodies.filter((b) => b.body.id === started.id && b.body.type === "crawl.completed").length === 1, 10_000);
    const mine = hookBodies.filter((b) => b.body.id === started.id);
    expect(mine.map((b) => b.body.type)).toEqual(["crawl.started", "crawl.page", "crawl.page", "crawl.page", "crawl.completed"]);
    for (const b of mine) {
      expect(b.body.metadata).toEqual({ run: "42" });
      expect(b.headers["x-extra"]).toBe("yes");
      const expected = createHmac("sha256", SECRET).update(b.raw).digest("hex");
      expect(b.headers["x-firecrawl-signature"]).toBe(`sha256=${expected}`);
      expect(b.headers["webhook-id"]).toBe(b.body.webhookId);
    }
    expect(mine[1]!.body.data[0].markdown).toContain("# Page");

    hookBodies.length = 0;
    const filtered = await sdk().startCrawl(`${base}/p/30`, { limit: 2, crawlEntireDomain: true, webhook: { url: hookUrl, events: ["completed"] } });
    await waitFor(async () => hookBodies.some((b) => b.body.id === filtered.id), 10_000);
    await Bun.sleep(300);
    expect(hookBodies.filter((b) => b.body.id === filtered.id).map((b) => b.body.type)).toEqual(["crawl.completed"]);
  }, 30_000);

  test("a failed page's event names the URL that failed (data[0].metadata.sourceURL, as upstream)", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("x") });
    const deadUrl = `http://127.0.0.1:${closed.port}/gone`;
    closed.stop(true); // refuses connections from now on
    hookBodies.length = 0;
    const hookUrl = `${api.hooksUrl}/hook`;
    const started = await sdk().startBatchScrape([`${base}/p/5`, deadUrl], { webhook: { url: hookUrl, events: ["page"] } });
    await waitFor(async () => hookBodies.filter((b) => b.body.id === started.id).length === 2, 20_000);
    const failed = hookBodies.find((b) => b.body.id === started.id && b.body.success === false)!;
    expect(failed.body.type).toBe("batch_scrape.page");
    expect(failed.body.data).toEqual([{ metadata: { sourceURL: deadUrl } }]);
    expect(failed.body.error).toBeString();
  }, 30_000);

  test("queue-status and concurrency-check report the calling key's running pages, and its own last success", async () => {
    const other = new Firecrawl({ apiKey: h.services.keys.create("queue-other").key, apiUrl });
    const started = await sdk().startCrawl(`${base}/slow/300`, { limit: 20, crawlEntireDomain: true });
    await Bun.sleep(100);
    const q = await sdk().getQueueStatus();
    expect(q.jobsInQueue).toBeGreaterThan(0);
    const conc = await sdk().getConcurrency();
    expect(conc.concurrency).toBeGreaterThan(0);
    expect(conc.maxConcurrency).toBe(q.maxConcurrency);
    // Another key sees none of it, and no success of its own.
    expect(await other.getQueueStatus()).toMatchObject({ jobsInQueue: 0, activeJobsInQueue: 0, mostRecentSuccess: null });
    expect((await other.getConcurrency()).concurrency).toBe(0);
    await waitFor(async () => (await sdk().getQueueStatus()).mostRecentSuccess != null);
    await sdk().cancelCrawl(started.id);
    await other.scrape(`${base}/p/3`);
    expect(Date.now() - Date.parse((await other.getQueueStatus()).mostRecentSuccess!)).toBeLessThan(60_000);
  });
});

