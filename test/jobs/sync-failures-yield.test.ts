/**
 * Pages that fail without any I/O (a key whose credits are all taken, a port the egress gate refuses) end in
 * microtasks: the worker pool claimed and failed the next one at once, and a batch's queued pages held the event
 * loop until the last had failed (20,000 pages: 4–7 s with not even a timer run; 100,000: 34 s). The pool now gives
 * the event loop back every 10 ms (jobs/worker-pool.ts pauseAll): between two ticks of a 5 ms interval timer at most
 * 40-55 pages end, in at most 14-22 ms of this thread's CPU time, and every page still ends failed with its own
 * error, counted. Both are measured in work, not wall time (test/helpers/tick-probe.ts): on a loaded 2-core machine the
 * wall time between two ticks reached 200 ms and more while the pool still gave the loop back every 10 ms.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { NewTask } from "../../src/jobs/types.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { withTickProbe } from "../helpers/tick-probe.ts";

/** Queued pages in each test: one synchronous pass over them took seconds. */
const QUEUED_PAGES = 20_000;
/**
 * Most pages that may end between two ticks. Before, all of them did (one turn); now at most 40-55 do (a slice is
 * 10 ms of wall time: a loaded machine ends fewer in it, never more).
 */
const MAX_PAGES_PER_TURN = 1_000;
/**
 * Most CPU time this thread may spend between two ticks. Before, the whole run was one turn (5.8-6.1 s here); now a
 * slice is ~10 ms plus a page's claim and failure, at most 14-22 ms measured, with room for a collection.
 */
const MAX_CPU_PER_TURN_MS = 500;
/**
 * The held page's scrape timeout: it must outlast the queued pages' failing (10 s on an idle machine, 20 s and more
 * on a loaded one; the default 30 s, or the site's 10 s idle timeout, ended it first and failed the test).
 */
const HELD_PAGE_TIMEOUT_MS = 120_000;

let h: Harness;
let site: ReturnType<typeof Bun.serve>;
/** Lets the site's held page answer. */
let release: () => void = () => {};
/** Called when a held page's request reaches the site (its credit is held by then: it is taken before the fetch). */
let arrived: () => void = () => {};

beforeAll(async () => {
  // /held/* answers once released: the batch it starts stays running while the test queues its pages.
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0, // the held page answers when released, however long the queued pages took
    fetch: async (req) => {
      if (new URL(req.url).pathname.startsWith("/held/")) {
        const held = new Promise<void>((resolve) => (release = resolve));
        arrived();
        await held;
      }
      return new Response("<html><body><main><p>a page</p></main></body></html>", { headers: { "content-type": "text/html" } });
    },
  });
  h = await createHarness({ allowPrivateNetwork: true });
});
afterAll(async () => {
  release();
  await h.close();
  site.stop(true);
});

const count = (sql: string, ...args: string[]) => (h.services.db.query(sql).get(...args) as { n: number }).n;

/**
 * Starts a batch of `key` whose one page is held by the site (so the job runs on), waits until that page's request
 * reached the site (not only until its task is active: its credit is held just before the fetch, and a page queued
 * before that could take the key's one credit first), then queues `urls` into it in one transaction (the set-up, not
 * measured; the pool runs only once the caller awaits).
 */
async function batchWithQueued(key: string, urls: string[]): Promise<string> {
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  const res = await h.request("/v2/batch/scrape", { method: "POST", auth: key, json: { urls: [`http://127.0.0.1:${site.port}/held/${crypto.randomUUID()}`], timeout: HELD_PAGE_TIMEOUT_MS } });
  expect(res.status).toBe(200);
  const { id } = (await res.json()) as { id: string };
  const running = () => count("SELECT COUNT(*) AS n FROM tasks WHERE job_id = ? AND status = 'active'", id);
  await reached;
  expect(running()).toBe(1);
  const tasks: NewTask[] = urls.map((url, i) => ({ kind: "page", url, dedupKey: `q#${i}`, depth: 0 }));
  expect(h.services.jobStore.enqueue(id, tasks, Number.MAX_SAFE_INTEGER)).toBe(urls.length);
  return id;
}

/**
 * Waits for every page of `id` but the held one to end (the pool's work measured), with the pages ended (the job's
 * `completed`, one primary-key read) counted at each tick.
 */
async function failedPages(id: string) {
  const ended = () => count("SELECT completed AS n FROM jobs WHERE id = ?", id);
  return withTickProbe(async () => {
    while (count("SELECT COUNT(*) AS n FROM tasks WHERE job_id = ? AND status = 'queued'", id) > 0) await Bun.sleep(20);
  }, ended);
}

/** The batch's end once the held page answered: its status and errors through the API. */
async function finish(id: string, key = h.key): Promise<{ status: any; errors: any[] }> {
  release();
  for (let i = 0; i < 3_000 && h.services.jobStore.get(id)!.status === "scraping"; i++) await Bun.sleep(10);
  const status = (await (await h.request(`/v2/batch/scrape/${id}`, { auth: key })).json()) as any;
  const errors = ((await (await h.request(`/v2/batch/scrape/${id}/errors`, { auth: key })).json()) as { errors: any[] }).errors;
  return { status, errors };
}

describe("pages that fail without I/O do not hold the event loop", () => {
  test("a key whose credits are all taken: 20,000 queued pages fail with INSUFFICIENT_CREDITS, the event loop free every few ms", async () => {
    // One credit, held by the batch's first page while it runs: every other page is refused before it is fetched.
    const { key } = h.services.keys.create("one-credit", 1);
    const urls = Array.from({ length: QUEUED_PAGES }, (_, i) => `http://127.0.0.1:${site.port}/q/${i}`);
    const id = await batchWithQueued(key, urls);
    Bun.gc(true);
    const turns = await failedPages(id);
    const { status, errors } = await finish(id, key);
    // The held page is the one result, charged its credit.
    expect(status).toMatchObject({ status: "completed", total: QUEUED_PAGES + 1, completed: QUEUED_PAGES + 1, creditsUsed: 1 });
    expect(errors).toHaveLength(QUEUED_PAGES);
    expect(new Set(errors.map((e) => e.code))).toEqual(new Set(["INSUFFICIENT_CREDITS"]));
    expect(new Set(errors.map((e) => e.url))).toEqual(new Set(urls));
    expect(turns.maxCountPerGap).toBeLessThanOrEqual(MAX_PAGES_PER_TURN);
    expect(turns.maxCpuPerGapMs).toBeLessThan(MAX_CPU_PER_TURN_MS);
  }, 120_000);

  test("URLs on a port the egress gate refuses (:22): 20,000 queued pages fail with EGRESS_DENIED, the event loop free every few ms", async () => {
    const urls = Array.from({ length: QUEUED_PAGES }, (_, i) => `http://127.0.0.1:22/q/${i}`);
    const id = await batchWithQueued(h.key, urls);
    Bun.gc(true);
    const turns = await failedPages(id);
    const { status, errors } = await finish(id);
    expect(status).toMatchObject({ status: "completed", total: QUEUED_PAGES + 1, completed: QUEUED_PAGES + 1, creditsUsed: 1 });
    expect(errors).toHaveLength(QUEUED_PAGES);
    expect(new Set(errors.map((e) => e.code))).toEqual(new Set(["EGRESS_DENIED"]));
    expect(new Set(errors.map((e) => e.url))).toEqual(new Set(urls));
    expect(turns.maxCountPerGap).toBeLessThanOrEqual(MAX_PAGES_PER_TURN);
    expect(turns.maxCpuPerGapMs).toBeLessThan(MAX_CPU_PER_TURN_MS);
  }, 120_000);
});
