/**
 * Crawl jobs through the HTTP API and the official JS SDK: waiters, paging with `next`, the WebSocket watcher,
 * cancel, errors, active crawls and idempotency.
 * The site is a small generated one on loopback (jobs-site.ts); the crawl options themselves are covered in test/crawl.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import type { Harness } from "../helpers/harness.ts";
import { useJobsApi, waitFor } from "./jobs-site.ts";

const api = useJobsApi();
let h: Harness;
let apiUrl: string;
let base: string;
beforeAll(() => ({ h, apiUrl, base } = api));
const sdk = () => api.sdk();
const raw = (path: string) => api.raw(path);

describe("crawl", () => {
  test("SDK crawl waiter follows links to the limit; documents carry markdown and metadata", async () => {
    const job = await sdk().crawl(`${base}/p/0`, { limit: 12, crawlEntireDomain: true, pollInterval: 1, scrapeOptions: { formats: ["markdown", "links"] } });
    expect(job.status).toBe("completed");
    expect(job.total).toBe(12);
    expect(job.completed).toBe(12);
    expect(job.creditsUsed).toBe(12);
    expect(job.data.length).toBe(12);
    const urls = new Set(job.data.map((d) => d.metadata?.sourceURL));
    expect(urls.size).toBe(12);
    expect(urls.has(`${base}/p/0`)).toBe(true);
    for (const d of job.data) {
      expect(d.markdown).toMatch(/# Page \d+/);
      expect(d.links?.length).toBe(3);
      expect(d.metadata?.statusCode).toBe(200);
    }
  });

  test("status pages: limit, skip and an absolute next; the SDK's auto-pagination collects everything", async () => {
    const app = sdk();
    const started = await app.startCrawl(`${base}/p/0`, { limit: 9, crawlEntireDomain: true });
    expect(started.url).toBe(`${apiUrl}/v2/crawl/${started.id}`);
    await waitFor(async () => (await raw(`/v2/crawl/${started.id}`)).status === "completed");
    const first = await raw(`/v2/crawl/${started.id}?limit=4`);
    expect(first.data.length).toBe(4);
    expect(first.next).toBe(`${apiUrl}/v2/crawl/${started.id}?skip=4&limit=4`);
    const second = await raw(`/v2/crawl/${started.id}?skip=4&limit=4`);
    expect(second.data.length).toBe(4);
    const last = await raw(`/v2/crawl/${started.id}?skip=8&limit=4`);
    expect(last.data.length).toBe(1);
    expect(last.next).toBeUndefined();
    const all = await app.getCrawlStatus(started.id, { autoPaginate: true });
    expect(all.data.length).toBe(9);
    expect(typeof all.expiresAt).toBe("string");
    const bad = await h.request(`/v2/crawl/${started.id}?limit=0`);
    expect(bad.status).toBe(400);
  });

  /** Runs the SDK's watcher on a job to its end: the documents it emitted and its `done` event. */
  async function watch(id: string, kind: "crawl" | "batch") {
    const watcher = sdk().watcher(id, { kind, pollInterval: 1 });
    const docs: any[] = [];
    let done: any;
    watcher.on("document", (d: any) => docs.push(d));
    watcher.on("done", (d: any) => (done = d));
    await watcher.start();
    return { docs, done };
  }

  test("the watcher streams documents over the WebSocket and ends with done", async () => {
    const started = await sdk().startCrawl(`${base}/slow/0`, { limit: 4, crawlEntireDomain: true });
    const { docs, done } = await watch(started.id, "crawl");
    expect(done?.status).toBe("completed");
    expect(docs.length).toBe(4);
  }, 20_000);

  test("the SDK's watcher of a batch with its default kind (crawl) streams the batch's pages and ends", async () => {
    const created = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/slow/21`, `${base}/slow/22`] } })).json()) as any;
    const watcher = sdk().watcher(created.id, { pollInterval: 1, timeout: 15 });
    const docs: any[] = [];
    let done: any;
    let failed: any;
    watcher.on("document", (d: any) => docs.push(d));
    watcher.on("done", (d: any) => (done = d));
    watcher.on("error", (e: any) => (failed = e));
    await watcher.start();
    for (let i = 0; i < 300 && !done && !failed; i++) await Bun.sleep(25);
    expect(failed).toBeUndefined();
    expect(done?.status).toBe("completed");
    expect(docs.length).toBe(2);
  }, 20_000);

  test("the watcher of a cancelled crawl ends with status cancelled and the pages it got (no 'done' message says completed)", async () => {
    const app = sdk();
    const started = await app.startCrawl(`${base}/slow/500`, { limit: 50, crawlEntireDomain: true });
    const watcher = app.watcher(started.id, { kind: "crawl", pollInterval: 1 });
    let done: any;
    let cancelled: Promise<boolean> | undefined;
    watcher.on("document", () => (cancelled ??= app.cancelCrawl(started.id)));
    watcher.on("done", (d: any) => (done = d));
    await watcher.start();
    expect(await cancelled).toBe(true);
    expect(done?.status).toBe("cancelled");
    const final = await raw(`/v2/crawl/${started.id}`);
    expect(done.data.length).toBe(final.data.length);
    expect(done.data.length).toBeGreaterThan(0);
  }, 30_000);

  test("the watcher of a finished job with more than one page of documents gets all of them", async () => {
    const urls = Array.from({ length: 105 }, (_, i) => `${base}/p/${1000 + i}`);
    const created = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls } })).json()) as any;
    await waitFor(async () => (await raw(`/v2/batch/scrape/${created.id}`)).status === "completed", 20_000);
    const { docs, done } = await watch(created.id, "batch");
    expect(done?.status).toBe("completed");
    expect(done.data.length).toBe(105);
    expect(new Set(docs.map((d) => d.metadata.sourceURL)).size).toBe(105);
  }, 30_000);

  test("WebSocket protocol: catchup, document messages, then close 1000 {type:done}; bad key closes 3000", async () => {
    const started = await sdk().startCrawl(`${base}/slow/100`, { limit: 3, crawlEntireDomain: true });
    const ws = new WebSocket(`${apiUrl.replace("http", "ws")}/v2/crawl/${started.id}`, h.key);
    const messages: any[] = [];
    const closed = new Promise<{ code: number; reason: string }>((resolve) => {
      ws.onmessage = (m) => messages.push(JSON.parse(String(m.data)));
      ws.onclose = (e) => resolve({ code: e.code, reason: e.reason });
    });
    const c = await closed;
    expect(c.code).toBe(1000);
    expect(JSON.parse(c.reason)).toEqual({ type: "done" });
    expect(messages[0].type).toBe("catchup");
    expect(messages.slice(1).every((m) => m.type === "document")).toBe(true);
    const docs = messages[0].data.data.length + messages.filter((m) => m.type === "document").length;
    expect(docs).toBe(3);
    const bad = new WebSocket(`${apiUrl.replace("http", "ws")}/v2/crawl/${started.id}`, "fc-wrong");
    const badClose = await new Promise<number>((resolve) => (bad.onclose = (e) => resolve(e.code)));
    expect(badClose).toBe(3000);
  }, 20_000);

  test("links on an error page are followed, as upstream pulls links from every crawled page", async () => {
    const job = await sdk().crawl(`${base}/gone-nav`, { limit: 3, crawlEntireDomain: true, pollInterval: 1 });
    const urls = job.data.map((d: any) => d.metadata.sourceURL);
    expect(urls).toContain(`${base}/gone-nav`);
    expect(urls).toContain(`${base}/p/777`);
  }, 20_000);

  test("a finished crawl that found one page below the root says how to find more, as upstream; not with crawlEntireDomain", async () => {
    const lone = await sdk().crawl(`${base}/gone`, { limit: 5, pollInterval: 1 });
    expect(lone.data.length).toBe(1);
    const status = await raw(`/v2/crawl/${lone.id}`);
    expect(status.warning).toBe(`Only 1 result(s) found. For broader coverage, try crawling with crawlEntireDomain=true or start from a higher-level path like ${base}/`);
    // Failed pages are no results: one document and two failures still get the hint (completed counted them).
    const failing = await sdk().crawl(`${base}/lone/start`, { limit: 5, pollInterval: 1 });
    expect([failing.data.length, failing.completed]).toEqual([1, 3]);
    expect((await raw(`/v2/crawl/${failing.id}`)).warning).toStartWith("Only 1 result(s) found.");
    const entire = await sdk().crawl(`${base}/gone`, { limit: 5, crawlEntireDomain: true, pollInterval: 1 });
    expect((await raw(`/v2/crawl/${entire.id}`)).warning).toBeUndefined();
  }, 20_000);

  test("cancel, active crawls and errors", async () => {
    const app = sdk();
    const started = await app.startCrawl(`${base}/slow/200`, { limit: 50, crawlEntireDomain: true });
    const active = await app.getActiveCrawls();
    expect(active.crawls.map((c) => c.id)).toContain(started.id);
    const entry = active.crawls.find((c) => c.id === started.id)!;
    expect(entry.url).toBe(`${base}/slow/200`);
    expect(await app.cancelCrawl(started.id)).toBe(true);
    const status = await raw(`/v2/crawl/${started.id}`);
    expect(status.status).toBe("cancelled");
    expect((await app.getActiveCrawls()).crawls.map((c) => c.id)).not.toContain(started.id);
    const del = await h.request(`/v2/crawl/${started.id}`, { method: "DELETE" });
    expect(await del.json()).toEqual({ status: "cancelled" });
    const errors = await app.getCrawlErrors(started.id);
    expect(Array.isArray(errors.errors)).toBe(true);
    expect(Array.isArray(errors.robotsBlocked)).toBe(true);
    expect((await h.request(`/v2/crawl/00000000-0000-0000-0000-000000000000`)).status).toBe(404);
  });

  test("cancelling a finished crawl or batch is a 409 and leaves it completed", async () => {
    const app = sdk();
    const crawl = await app.startCrawl(`${base}/p/30`, { limit: 1 });
    await waitFor(async () => (await raw(`/v2/crawl/${crawl.id}`)).status === "completed");
    const del = await h.request(`/v2/crawl/${crawl.id}`, { method: "DELETE" });
    expect(del.status).toBe(409);
    expect(await del.json()).toMatchObject({ success: false, code: "JOB_ALREADY_FINISHED", error: "Crawl is already completed" });
    expect((await raw(`/v2/crawl/${crawl.id}`)).status).toBe("completed");
    await expect(app.cancelCrawl(crawl.id)).rejects.toThrow("Crawl is already completed");
    const batch = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/31`] } })).json()) as any;
    await waitFor(async () => (await raw(`/v2/batch/scrape/${batch.id}`)).status === "completed");
    const batchDel = await h.request(`/v2/batch/scrape/${batch.id}`, { method: "DELETE" });
    expect(batchDel.status).toBe(409);
    // In a batch's words (upstream's shared controller says "Crawl" for both); the same through /v2/crawl/{id},
    // which serves batches too, as upstream's.
    expect(await batchDel.json()).toMatchObject({ success: false, code: "JOB_ALREADY_FINISHED", error: "Batch scrape is already completed" });
    const viaCrawl = await h.request(`/v2/crawl/${batch.id}`, { method: "DELETE" });
    expect([viaCrawl.status, ((await viaCrawl.json()) as any).error]).toEqual([409, "Batch scrape is already completed"]);
    expect((await raw(`/v2/batch/scrape/${batch.id}`)).status).toBe("completed");
  });

  test("a reused x-idempotency-key is a 409", async () => {
    const body = { url: `${base}/p/5`, limit: 1 };
    const headers = { "x-idempotency-key": "idem-abc" };
    expect((await h.request("/v2/crawl", { method: "POST", json: body, headers })).status).toBe(200);
    const again = await h.request("/v2/crawl", { method: "POST", json: body, headers });
    expect(again.status).toBe(409);
    expect(((await again.json()) as any).error).toBe("Idempotency key already used");
  });

  test("invalid crawl regexes and unknown keys are 400 and create no job", async () => {
    const before = h.services.db.query("SELECT COUNT(*) AS n FROM jobs").get() as { n: number };
    expect((await h.request("/v2/crawl", { method: "POST", json: { url: `${base}/p/0`, includePaths: ["("] } })).status).toBe(400);
    expect((await h.request("/v2/crawl", { method: "POST", json: { url: `${base}/p/0`, bogus: 1 } })).status).toBe(400);
    expect((await h.request("/v2/crawl", { method: "POST", json: { url: `${base}/p/0`, prompt: "blog posts" } })).status).toBe(400);
    const after = h.services.db.query("SELECT COUNT(*) AS n FROM jobs").get() as { n: number };
    expect(after.n).toBe(before.n);
  });
});

