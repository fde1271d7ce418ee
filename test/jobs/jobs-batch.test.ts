/**
 * Batch scrape jobs through the HTTP API and the official JS SDK: flattened options, appendToId, retries of 5xx/429
 * pages, credits per page and the WebSocket watcher after a failed page.
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
const flaky = api.flaky;
const hookBodies = api.hookBodies;
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
    const hookUrl = `${api.hooksUrl}/hook`;
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

