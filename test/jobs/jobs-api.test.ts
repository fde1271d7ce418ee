/**
 * Crawl and batch jobs through the HTTP API and the official JS SDK: waiters, paging with `next`, the
 * WebSocket watcher, cancel, errors, active crawls, idempotency, retries of 5xx/429 pages, and webhook events.
 * The site is a small generated one on loopback; the crawl options themselves are covered in test/crawl.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { createHmac } from "node:crypto";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
let apiUrl: string;
let site: ReturnType<typeof Bun.serve>;
let base: string;
const flaky = new Map<string, number>();
const hookBodies: any[] = [];
let hooks: ReturnType<typeof Bun.serve>;
const SECRET = "whsec_" + Buffer.from("a-test-secret-of-32-bytes-length!").toString("base64");

/** A ring of 40 pages: /p/i links to /p/(i+1..i+3); /slow/i takes 300 ms; /flaky answers 500 twice; /busy 429 once; /err500/i always 500. */
function startSite() {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const p = url.pathname;
      const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
        new Response(`<html><head><title>${p}</title></head><body><main>${body}</main></body></html>`, { status, headers: { "content-type": "text/html", ...headers } });
      let m = /^\/p\/(\d+)$/.exec(p);
      if (m) {
        const i = Number(m[1]);
        const links = [1, 2, 3].map((k) => `<a href="/p/${(i + k) % 40}">page ${(i + k) % 40}</a>`).join(" ");
        return html(`<h1>Page ${i}</h1><p>This is page number ${i} of the ring, with a paragraph of text.</p>${links}`);
      }
      m = /^\/slow\/(\d+)$/.exec(p);
      if (m) {
        await Bun.sleep(300);
        const i = Number(m[1]);
        return html(`<h1>Slow ${i}</h1><p>slow page</p><a href="/slow/${i + 1}">next</a>`);
      }
      if (p === "/flaky" || p === "/busy") {
        const n = (flaky.get(p) ?? 0) + 1;
        flaky.set(p, n);
        if (p === "/flaky" && n <= 2) return html("<p>temporarily broken</p>", 500);
        if (p === "/busy" && n <= 1) return html("<p>slow down</p>", 429, { "retry-after": "1" });
        return html(`<h1>${p} ok after ${n}</h1><p>Finally a real page.</p>`);
      }
      if (/^\/err500\/\d+$/.test(p)) return html("<p>always broken</p>", 500);
      if (p === "/gone") return html("<p>not here</p>", 404);
      if (p === "/gone-nav") return html(`<p>not here, but the site's navigation is</p><a href="/p/777">home</a>`, 404);
      // Not a page: fails at once (422, not retried), so it finishes before the pages of its batch.
      // A page below the root whose two links are binaries: one result and two failed pages.
      if (p === "/lone/start") return html(`<h1>Lone start</h1><p>Only binaries below.</p><a href="/lone/start/bin1">one</a> <a href="/lone/start/bin2">two</a>`);
      if (p === "/bin" || /^\/lone\/start\/bin\d$/.test(p)) return new Response(new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), { headers: { "content-type": "application/octet-stream" } });
      return new Response("not found", { status: 404 });
    },
  });
}

beforeAll(async () => {
  site = startSite();
  base = `http://127.0.0.1:${site.port}`;
  hooks = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const raw = await req.text();
      hookBodies.push({ raw, body: JSON.parse(raw), headers: Object.fromEntries(req.headers) });
      return new Response("ok");
    },
  });
  h = await createHarness({ retryBaseDelayMs: 50, allowPrivateWebhooks: true, webhookSecret: SECRET, jobConcurrency: 4 });
  apiUrl = h.listen();
});
afterAll(async () => {
  await h.close();
  site.stop(true);
  hooks.stop(true);
});

const sdk = () => new Firecrawl({ apiKey: h.key, apiUrl });

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
    expect((await h.request(`/v2/batch/scrape/${batch.id}`, { method: "DELETE" })).status).toBe(409);
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

describe("batch scrape", () => {
  test("SDK batchScrape: flattened options, invalidURLs, sourceURL kept unnormalised", async () => {
    const res = await h.request("/v2/batch/scrape", {
      method: "POST",
      json: { urls: [`${base}/p/1`, `${base}/p/2?x=1#frag`, "not a url", `${base}/gone`], formats: ["markdown"], ignoreInvalidURLs: true },
    });
    const created = (await res.json()) as any;
    expect(created.success).toBe(true);
    expect(created.invalidURLs).toEqual(["not a url"]);
    await waitFor(async () => (await raw(`/v2/batch/scrape/${created.id}`)).status === "completed");
    const status = await raw(`/v2/batch/scrape/${created.id}`);
    expect(status.total).toBe(3);
    expect(status.data.map((d: any) => d.metadata.sourceURL).sort()).toEqual([`${base}/gone`, `${base}/p/1`, `${base}/p/2?x=1#frag`].sort());
    expect(status.data.find((d: any) => d.metadata.sourceURL.endsWith("/gone")).metadata.statusCode).toBe(404);

    const job = await sdk().batchScrape([`${base}/p/3`, `${base}/p/4`], { options: { formats: ["markdown", "links"] }, pollInterval: 1 });
    expect(job.status).toBe("completed");
    expect(job.data.length).toBe(2);
    expect(job.data[0]!.links?.length).toBe(3);
  });

  test("a batch's id works on the crawl routes, as upstream's group lookup (the SDK's getCrawlStatus and errors); not the other way round", async () => {
    const created = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/11`, `${base}/gone`] } })).json()) as any;
    await waitFor(async () => (await raw(`/v2/batch/scrape/${created.id}`)).status === "completed");
    const viaCrawl = await sdk().getCrawlStatus(created.id);
    expect([viaCrawl.status, viaCrawl.data.length]).toEqual(["completed", 2]);
    expect((await h.request(`/v2/crawl/${created.id}/errors`)).status).toBe(200);
    expect((await h.request(`/v2/crawl/${created.id}`, { method: "DELETE" })).status).toBe(409); // finished, as a crawl would be
    const crawl = (await (await h.request("/v2/crawl", { method: "POST", json: { url: `${base}/p/0`, limit: 1 } })).json()) as any;
    expect((await h.request(`/v2/batch/scrape/${crawl.id}`)).status).toBe(404);
  });

  test("a batch page's metadata.scrapeId opens it with GET /v2/scrape/{id}, for the job's key only", async () => {
    const created = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/9`] } })).json()) as any;
    await waitFor(async () => (await raw(`/v2/batch/scrape/${created.id}`)).status === "completed");
    const page = (await raw(`/v2/batch/scrape/${created.id}`)).data[0];
    const res = await h.request(`/v2/scrape/${page.metadata.scrapeId}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data).toEqual(page);
    const other = h.services.keys.create("someone else").key;
    expect((await h.request(`/v2/scrape/${page.metadata.scrapeId}`, { auth: other })).status).toBe(404);
  });

  test("a zeroDataRetention batch's pages are in its status only, not behind GET /v2/scrape/{id}", async () => {
    const created = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/19`], zeroDataRetention: true } })).json()) as any;
    await waitFor(async () => (await raw(`/v2/batch/scrape/${created.id}`)).status === "completed");
    const page = (await raw(`/v2/batch/scrape/${created.id}`)).data[0];
    expect(page.markdown).toContain("Page 19");
    expect((await h.request(`/v2/scrape/${page.metadata.scrapeId}`)).status).toBe(404);
  });

  test("appendToId adds pages to an existing batch", async () => {
    const first = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/6`] } })).json()) as any;
    await waitFor(async () => (await raw(`/v2/batch/scrape/${first.id}`)).status === "completed");
    const more = await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/7`, `${base}/p/8`], appendToId: first.id } });
    expect(((await more.json()) as any).id).toBe(first.id);
    await waitFor(async () => (await raw(`/v2/batch/scrape/${first.id}`)).status === "completed");
    expect((await raw(`/v2/batch/scrape/${first.id}`)).total).toBe(3);
  });

  test("appendToId: the added URLs are scraped with the adding request's formats, and their pages go to its webhook", async () => {
    hookBodies.length = 0;
    const hookUrl = `http://127.0.0.1:${hooks.port}/hook`;
    const first = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/16`], formats: ["markdown"], webhook: { url: hookUrl, metadata: { batch: "first" } } } })).json()) as any;
    await waitFor(async () => (await raw(`/v2/batch/scrape/${first.id}`)).status === "completed");
    const more = { urls: [`${base}/p/17`], formats: ["html"], appendToId: first.id, webhook: { url: hookUrl, metadata: { batch: "appended" }, events: ["page"] } };
    expect(((await (await h.request("/v2/batch/scrape", { method: "POST", json: more })).json()) as any).id).toBe(first.id);
    // Appending again without options of its own: the defaults (markdown), not the previous append's html.
    await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/18`], appendToId: first.id } });
    await waitFor(async () => (await raw(`/v2/batch/scrape/${first.id}`)).status === "completed");
    const pages = (await raw(`/v2/batch/scrape/${first.id}`)).data;
    const page = (n: number) => pages.find((d: any) => d.metadata.sourceURL.endsWith(`/p/${n}`));
    expect(Object.keys(page(16)).filter((k) => k !== "metadata")).toEqual(["markdown"]);
    expect(Object.keys(page(17)).filter((k) => k !== "metadata")).toEqual(["html"]);
    expect(page(17).html).toContain("Page 17");
    expect(Object.keys(page(18)).filter((k) => k !== "metadata")).toEqual(["markdown"]);
    await waitFor(async () => hookBodies.filter((b) => b.body.type === "batch_scrape.page").length >= 3);
    const pageHook = (n: number) => hookBodies.find((b) => b.body.type === "batch_scrape.page" && b.body.data[0].metadata.sourceURL.endsWith(`/p/${n}`))!.body;
    expect(pageHook(16).metadata).toEqual({ batch: "first" });
    expect(pageHook(17).metadata).toEqual({ batch: "appended" });
    expect(pageHook(18).metadata).toEqual({ batch: "first" });
    // The plain append reused the batch's own options: only the html append's were kept.
    expect(h.services.jobStore.get(first.id)!.options.appended).toHaveLength(1);
  });

  test("appendToId: zeroDataRetention must match the batch's; at most 20 different option sets per batch", async () => {
    const first = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/20`] } })).json()) as any;
    const zdr = await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/21`], appendToId: first.id, zeroDataRetention: true } });
    expect(zdr.status).toBe(400);
    expect(((await zdr.json()) as any).error).toContain("zeroDataRetention must match");
    for (let i = 0; i < 20; i++) {
      const r = await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/${22 + i}`], appendToId: first.id, timeout: 10_000 + i } });
      expect(r.status).toBe(200);
    }
    // The same options again reuse their set; a 21st different set is refused.
    expect((await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/5`], appendToId: first.id, timeout: 10_000 } })).status).toBe(200);
    const over = await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/6`], appendToId: first.id, timeout: 20_000 } });
    expect(over.status).toBe(400);
    expect(((await over.json()) as any).error).toContain("20 different sets of options");
    expect(h.services.jobStore.get(first.id)!.options.appended).toHaveLength(20);
  });

  test("5xx pages are retried with backoff, 429 honours Retry-After; 4xx pages are not retried", async () => {
    flaky.clear();
    const created = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/flaky`, `${base}/busy`, `${base}/gone`] } })).json()) as any;
    const t0 = Date.now();
    await waitFor(async () => (await raw(`/v2/batch/scrape/${created.id}`)).status === "completed", 15_000);
    const status = await raw(`/v2/batch/scrape/${created.id}`);
    const by = (suffix: string) => status.data.find((d: any) => d.metadata.sourceURL.endsWith(suffix));
    expect(by("/flaky").metadata.statusCode).toBe(200);
    expect(by("/busy").metadata.statusCode).toBe(200);
    expect(flaky.get("/flaky")).toBe(3);
    expect(flaky.get("/busy")).toBe(2);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900); // Retry-After: 1
    expect(by("/gone").metadata.statusCode).toBe(404);
  }, 20_000);

  test("pages that always answer 5xx are kept with their statusCode after their own retries: a host that answers is not given up", async () => {
    const urls = Array.from({ length: 15 }, (_, i) => `${base}/err500/${i + 1}`);
    const created = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls } })).json()) as any;
    await waitFor(async () => (await raw(`/v2/batch/scrape/${created.id}`)).status === "completed", 20_000);
    const status = await raw(`/v2/batch/scrape/${created.id}`);
    expect([status.completed, status.total, status.data.length]).toEqual([15, 15, 15]);
    expect(status.data.map((d: any) => d.metadata.statusCode)).toEqual(Array(15).fill(500));
    expect((await raw(`/v2/batch/scrape/${created.id}/errors`)).errors).toEqual([]);

    // A host that does not answer (connection refused) is still given up after 10 such attempts in a row.
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const dead = `http://127.0.0.1:${closed.port}`;
    closed.stop(true);
    const down = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: urls.map((u) => u.replace(base, dead)) } })).json()) as any;
    await waitFor(async () => (await raw(`/v2/batch/scrape/${down.id}`)).status === "completed", 20_000);
    const codes = (await raw(`/v2/batch/scrape/${down.id}/errors`)).errors.map((e: any) => e.code);
    expect(codes).toHaveLength(15);
    expect(codes).toContain("SCRAPE_HOST_GAVE_UP");
  }, 30_000);

  test("a batch needs a credit left for each valid URL, appendToId too: 402 before anything is queued or fetched", async () => {
    const { key } = h.services.keys.create("batch-quota", 3);
    const who = h.services.keys.verify(key)!;
    const tasksOf = (path: string) => (h.services.db.query("SELECT COUNT(*) AS n FROM tasks WHERE url LIKE ?").get(`%${path}%`) as { n: number }).n;
    const jobsBefore = (h.services.db.query("SELECT COUNT(*) AS n FROM jobs").get() as { n: number }).n;
    const six = Array.from({ length: 6 }, (_, i) => `${base}/p/${3101 + i}`);
    const refused = await h.request("/v2/batch/scrape", { method: "POST", json: { urls: six }, auth: key });
    expect(refused.status).toBe(402);
    expect((h.services.db.query("SELECT COUNT(*) AS n FROM jobs").get() as { n: number }).n).toBe(jobsBefore);
    expect(tasksOf("/p/310")).toBe(0);
    // Invalid URLs cost nothing: 2 valid ones fit in 3 credits.
    const ok = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/3201`, "not a url", `${base}/p/3202`] }, auth: key })).json()) as any;
    expect(ok.success).toBe(true);
    let status: any;
    await waitFor(async () => (status = (await (await h.request(`/v2/batch/scrape/${ok.id}`, { auth: key })).json())).status === "completed");
    expect(h.services.ledger.usage(who).creditsUsed).toBe(2);
    // 1 credit left: appending 2 URLs is refused and adds nothing; appending 1 is accepted.
    const append = (urls: string[]) => h.request("/v2/batch/scrape", { method: "POST", json: { urls, appendToId: ok.id }, auth: key });
    expect((await append([`${base}/p/3301`, `${base}/p/3302`])).status).toBe(402);
    expect(tasksOf("/p/330")).toBe(0);
    expect((await append([`${base}/p/3303`])).status).toBe(200);
    await waitFor(async () => (status = (await (await h.request(`/v2/batch/scrape/${ok.id}`, { auth: key })).json())).status === "completed");
    expect([status.total, status.creditsUsed, h.services.ledger.usage(who).creditsUsed]).toEqual([3, 3, 3]);
  });

  test("appendToId honours x-idempotency-key: a retried append is a 409 and adds nothing; the key is recorded", async () => {
    const first = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/3401`] } })).json()) as any;
    const headers = { "x-idempotency-key": "append-idem-1" };
    const body = { urls: [`${base}/p/3402`, `${base}/p/3403`], appendToId: first.id };
    expect((await h.request("/v2/batch/scrape", { method: "POST", json: body, headers })).status).toBe(200);
    const again = await h.request("/v2/batch/scrape", { method: "POST", json: body, headers });
    expect(again.status).toBe(409);
    expect(((await again.json()) as any).error).toBe("Idempotency key already used");
    await waitFor(async () => (await raw(`/v2/batch/scrape/${first.id}`)).status === "completed");
    expect((await raw(`/v2/batch/scrape/${first.id}`)).total).toBe(3);
    expect(h.services.db.query("SELECT idempotency_key AS k, job_id AS j FROM batch_append_keys").all()).toContainEqual({ k: "append-idem-1", j: first.id });
    // Recorded like a job's own key: a new batch or crawl with it is refused too, and the key that created a batch
    // cannot be used to append.
    expect((await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/3404`] }, headers })).status).toBe(409);
    expect((await h.request("/v2/crawl", { method: "POST", json: { url: `${base}/p/3404`, limit: 1 }, headers })).status).toBe(409);
    const keyed = { "x-idempotency-key": "batch-idem-2" };
    const second = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/3405`] }, headers: keyed })).json()) as any;
    expect((await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/3406`], appendToId: second.id }, headers: keyed })).status).toBe(409);
    // Another key's use of the same value is its own.
    const other = h.services.keys.create("append-idem-other").key;
    const theirs = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/3407`] }, auth: other })).json()) as any;
    expect((await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/p/3408`], appendToId: theirs.id }, headers, auth: other })).status).toBe(200);
  });

  test("a batch's pages are charged to the key once each, as the job counts them", async () => {
    const { key } = h.services.keys.create("batch-credits");
    const who = h.services.keys.verify(key)!;
    const urls = [`${base}/p/2001`, `${base}/p/2002`, `${base}/p/2003`];
    const created = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls }, auth: key })).json()) as any;
    let status: any;
    await waitFor(async () => (status = (await (await h.request(`/v2/batch/scrape/${created.id}`, { auth: key })).json())).status === "completed");
    expect(status.creditsUsed).toBe(3);
    expect(h.services.ledger.usage(who).creditsUsed).toBe(3);
  });

  test("WebSocket after a page failed: every document exactly once (failed pages advance the cursor)", async () => {
    const created = (await (await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`${base}/bin`, `${base}/slow/900`, `${base}/slow/901`] } })).json()) as any;
    await waitFor(async () => (await raw(`/v2/batch/scrape/${created.id}`)).status === "completed");
    const errors = (await (await h.request(`/v2/batch/scrape/${created.id}/errors`)).json()) as any;
    expect(errors.errors.map((e: any) => e.code)).toEqual(["SCRAPE_UNSUPPORTED_FILE_ERROR"]);
    const ws = new WebSocket(`${apiUrl.replace("http", "ws")}/v2/batch/scrape/${created.id}`, h.key);
    const messages: any[] = [];
    await new Promise<void>((resolve) => {
      ws.onmessage = (m) => messages.push(JSON.parse(String(m.data)));
      ws.onclose = () => resolve();
    });
    const docs = [...messages[0].data.data, ...messages.filter((m) => m.type === "document").map((m) => m.data)];
    expect(docs.map((d: any) => d.metadata.sourceURL).sort()).toEqual([`${base}/slow/900`, `${base}/slow/901`]);
  });
});

describe("webhooks from jobs", () => {
  test("crawl events arrive in order, signed, with metadata; the events filter applies", async () => {
    hookBodies.length = 0;
    const hookUrl = `http://127.0.0.1:${hooks.port}/hook`;
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
    const hookUrl = `http://127.0.0.1:${hooks.port}/hook`;
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

/** GET over the real socket, so absolute links carry the server's own origin. */
async function raw(path: string): Promise<any> {
  return (await fetch(`${apiUrl}${path}`, { headers: { authorization: `Bearer ${h.key}` } })).json();
}

async function waitFor(cond: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await cond()) return;
    await Bun.sleep(50);
  }
  throw new Error("condition not met in time");
}
