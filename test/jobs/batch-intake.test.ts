/**
 * A batch near the 10 MiB body limit (~264,000 URLs) is accepted and cancelled without holding the event loop
 * (jobs/task-intake.ts, api/batch.ts parseBatchScrapeBodyYielding, jobs/service.ts cancelAndSettle): the longest gap
 * of a 5 ms interval timer stays far below what one synchronous pass took (~0.35–0.5 s to create, ~0.65 s to cancel
 * 150,000 queued pages; ~1 s for 264,000). And it is still the same batch: every URL once, in order, counted from the
 * answer; after a cancel answers, nothing of the batch is queued, pending or handed out.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { INLINE_TASKS } from "../../src/jobs/pending-tasks.ts";
import type { NewTask } from "../../src/jobs/types.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { free, newJob, setup } from "./store-setup.ts";
import { withLagProbe } from "../helpers/lag-probe.ts";

/** About what a 10 MiB body holds with these URLs (9.2 MiB). */
const NEAR_LIMIT_URLS = 264_000;
/** The queued pages the cancel test sets aside. */
const CANCEL_URLS = 150_000;
/**
 * Longest event-loop gap allowed while a request runs. One synchronous pass took 0.35–0.5 s to create (0.8–0.9 s on
 * a busy machine) and ~0.65 s to cancel; now the longest is the body's JSON parse (~30–60 ms), plus the machine's
 * noise (another process scheduled, a GC): the best of a few rounds is taken.
 */
const MAX_GAP_MS = 200;

let h: Harness;
let site: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  // Pages that answer slowly: the batch's workers wait on them instead of competing with what is measured.
  site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async () => (await Bun.sleep(30_000), new Response("x")) });
  h = await createHarness({ allowPrivateNetwork: true, jobConcurrency: 2 });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
});

/** A request to the in-process app, built before any measurement (encoding a 9 MiB body is the client's work). */
const apiRequest = (method: string, path: string, body?: string) =>
  new Request(`http://localhost${path}`, { method, body, headers: { authorization: `Bearer ${h.key}`, "content-type": "application/json" } });

const urlsOf = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `http://127.0.0.1:${site.port}/${tag}/h${i % 7}/p-${i}`);
const count = (sql: string, ...args: string[]) => (h.services.db.query(sql).get(...args) as { n: number }).n;

describe("a batch near the body limit", () => {
  test("POST /v2/batch/scrape of ~264,000 URLs holds the event loop less than 200 ms at a time, and answers with every URL stored and counted", async () => {
    const gaps: number[] = [];
    // The best of three: a gap of the machine's (another process scheduled) is not the server's.
    for (const round of ["a", "b", "c"]) {
      const urls = urlsOf(NEAR_LIMIT_URLS, round);
      const req = apiRequest("POST", "/v2/batch/scrape", JSON.stringify({ urls }));
      Bun.gc(true); // the test's own garbage (the list, its JSON) is not collected while measuring
      await Bun.sleep(20);
      const { value: res, maxGapMs } = await withLagProbe(() => h.app.handle(req));
      gaps.push(maxGapMs);
      expect(res.status).toBe(200);
      const { id } = (await res.json()) as { id: string };
      // Durably accepted when answered: the whole list is the job's (pending rows or queue), counted in total and
      // in the queue status (which does not count a request's rows before it accepts them).
      expect(h.services.jobStore.get(id)).toMatchObject({ status: "scraping", total: NEAR_LIMIT_URLS });
      const stored = count("SELECT COALESCE(SUM(task_count), 0) AS n FROM job_pending_tasks WHERE job_id = ?", id) + count("SELECT COUNT(*) AS n FROM tasks WHERE job_id = ?", id);
      expect(stored).toBe(NEAR_LIMIT_URLS);
      const queue = (await (await h.app.handle(apiRequest("GET", "/v2/team/queue-status"))).json()) as { jobsInQueue: number };
      expect(queue.jobsInQueue).toBeGreaterThanOrEqual(NEAR_LIMIT_URLS);
      // Cancelled so that its queueing stops competing with the next round.
      await h.app.handle(apiRequest("DELETE", `/v2/batch/scrape/${id}`));
    }
    expect(Math.min(...gaps)).toBeLessThan(MAX_GAP_MS);
  }, 60_000);

  test("DELETE of a batch with 150,000 queued pages holds the event loop less than 200 ms at a time; once answered none is queued, pending or handed out", async () => {
    const store = h.services.jobStore;
    const started = await h.app.handle(apiRequest("POST", "/v2/batch/scrape", JSON.stringify({ urls: urlsOf(1, "c0") })));
    const job = { id: ((await started.json()) as { id: string }).id };
    // Its pages queued at once, in one transaction (the set-up, not measured).
    const tasks: NewTask[] = urlsOf(CANCEL_URLS, "c").map((url, i) => ({ kind: "page", url, dedupKey: `c#${i}`, depth: 0 }));
    expect(store.enqueue(job.id, tasks, Number.MAX_SAFE_INTEGER)).toBe(CANCEL_URLS);
    const req = apiRequest("DELETE", `/v2/batch/scrape/${job.id}`);
    Bun.gc(true);
    await Bun.sleep(20);
    const { value: res, maxGapMs } = await withLagProbe(() => h.app.handle(req));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "cancelled" });
    expect(count("SELECT COUNT(*) AS n FROM tasks WHERE job_id = ? AND status IN ('queued', 'active')", job.id)).toBe(0);
    expect(count("SELECT COUNT(*) AS n FROM job_pending_tasks WHERE job_id = ?", job.id)).toBe(0);
    expect(store.claim("test", 60_000, { busyHosts: [], busyJobs: [], busyJobHosts: [] })?.jobId).not.toBe(job.id);
    expect(maxGapMs).toBeLessThan(MAX_GAP_MS);
  }, 60_000);
});

describe("the same batch as before", () => {
  test("a batch of 5 rows and a bit through the API: every valid URL queued once, in order; invalid ones returned; counted from the answer", async () => {
    const n = INLINE_TASKS * 5 + 123;
    // Some without a scheme (http:// is prepended), and two invalid ones in the middle.
    const urls = urlsOf(n, "s").map((u, i) => (i % 1000 === 7 ? u.replace("http://", "") : u));
    urls.splice(4321, 0, "notaurl", "ftp://x.test/y");
    const res = await h.app.handle(apiRequest("POST", "/v2/batch/scrape", JSON.stringify({ urls })));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: string; invalidURLs: string[] };
    expect(body.invalidURLs).toEqual(["notaurl", "ftp://x.test/y"]);
    expect(h.services.jobStore.get(body.id)!.total).toBe(n);
    const queue = (await (await h.app.handle(apiRequest("GET", "/v2/team/queue-status"))).json()) as { jobsInQueue: number };
    expect(queue.jobsInQueue).toBeGreaterThanOrEqual(n);
    const queued = () => h.services.db.query<{ url: string }, [string]>("SELECT url FROM tasks WHERE job_id = ? ORDER BY seq").all(body.id).map((r) => r.url);
    for (let i = 0; i < 500 && queued().length < n; i++) await Bun.sleep(20);
    const valid = urls.filter((u) => u !== "notaurl" && u !== "ftp://x.test/y");
    expect(queued()).toEqual(valid.map((u) => (u.startsWith("http://") ? u : `http://${u}`)));
    await h.app.handle(apiRequest("DELETE", `/v2/batch/scrape/${body.id}`));
  }, 60_000);

  test("a large appendToId is stored the same way: its options for each of its pages, the batch's total, and its x-idempotency-key refused the second time", async () => {
    const first = (await (await h.app.handle(apiRequest("POST", "/v2/batch/scrape", JSON.stringify({ urls: urlsOf(1, "own") })))).json()) as { id: string };
    const more = urlsOf(INLINE_TASKS * 2 + 5, "more");
    const append = () => {
      const r = apiRequest("POST", "/v2/batch/scrape", JSON.stringify({ urls: more, appendToId: first.id, formats: ["html"] }));
      r.headers.set("x-idempotency-key", "append-once");
      return h.app.handle(r);
    };
    expect((await append()).status).toBe(200);
    expect(h.services.jobStore.get(first.id)!.total).toBe(more.length + 1);
    expect(h.services.jobStore.get(first.id)!.options.appended).toHaveLength(1);
    expect((await append()).status).toBe(409);
    const appended = () => h.services.db.query<{ options_index: number | null }, [string]>("SELECT options_index FROM tasks WHERE job_id = ? ORDER BY seq").all(first.id);
    for (let i = 0; i < 500 && appended().length < more.length + 1; i++) await Bun.sleep(20);
    expect(appended().map((r) => r.options_index)).toEqual([null, ...more.map(() => 0)]);
    await h.app.handle(apiRequest("DELETE", `/v2/batch/scrape/${first.id}`));
  }, 60_000);

  test("after a restart, a claim never hands out a page of a job cancelled before it (its pages still queued): they are set aside in the background", async () => {
    const s = setup();
    const page = (host: string, i: number): NewTask => ({ kind: "page", url: `http://${host}.test/${i}`, dedupKey: `${host}#${i}`, depth: 0 });
    const ended = newJob(s, [page("ended", 0)]);
    s.store.enqueue(ended.id, Array.from({ length: 2500 }, (_, i) => page("ended", i + 1)), Number.MAX_SAFE_INTEGER);
    s.tick(1000);
    const running = newJob(s, [page("running", 0)]);
    // What a process that died between a cancel and the end of its setting aside leaves.
    s.db.query("UPDATE jobs SET status = 'cancelled' WHERE id = ?").run(ended.id);
    const claimed: string[] = [];
    for (let i = 0; i < 10; i++) {
      const t = s.store.claim("w", 60_000, free);
      if (t) claimed.push(t.jobId);
      if (t?.jobId === running.id) break;
    }
    expect(claimed).toEqual([running.id]);
    const queued = () => (s.db.query("SELECT COUNT(*) AS n FROM tasks WHERE job_id = ? AND status = 'queued'").get(ended.id) as { n: number }).n;
    for (let i = 0; i < 500 && queued() > 0; i++) await Bun.sleep(10);
    expect(queued()).toBe(0);
  });
});
