/**
 * A cancel whose sweep a dead process did not finish (jobs/job-endings.ts): the cancelled job's tasks left queued are
 * swept from the next start on, in the background, and claims pass them over instead of sweeping 1,000 a claim and
 * then idling a poll (1 s) each: a one-page batch made after the restart waited ~7 s behind 60,000 such tasks.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { SqliteJobStore } from "../../src/jobs/sqlite-store.ts";
import { SWEEP_CHUNK_TASKS } from "../../src/jobs/store-steps.ts";
import type { NewTask } from "../../src/jobs/types.ts";
import { free, newJob, page, setup } from "./store-setup.ts";

const pages = (n: number, base: string): NewTask[] => Array.from({ length: n }, (_, i) => page(`${base}/h${i % 50}/p${i}`));

/** What a cancel's first transaction leaves when the process dies before its sweep ends: the job cancelled, its tasks queued. */
function leaveCancelledMidSweep(db: { query(sql: string): { run(...a: string[]): unknown } }, jobId: string): void {
  db.query("UPDATE jobs SET status = 'cancelled' WHERE id = ?").run(jobId);
  db.query("UPDATE tasks SET status = 'cancelled', lease_owner = NULL WHERE job_id = ? AND status = 'active'").run(jobId);
}

const count = (db: { query(sql: string): { get(...a: string[]): unknown } }, jobId: string, status: string) =>
  (db.query("SELECT COUNT(*) AS n FROM tasks WHERE job_id = ? AND status = ?").get(jobId, status) as { n: number }).n;

/** Waits, with the event loop free, until `done` or `ms` have passed. */
async function until(done: () => boolean, ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (!done() && performance.now() < end) await Bun.sleep(5);
}

describe("the store after a restart mid-cancel", () => {
  test("a claim passes the cancelled job's queued tasks over and hands out another job's", () => {
    const s = setup();
    const cancelled = newJob(s, [page("http://a.test/first")]);
    s.store.enqueue(cancelled.id, pages(3 * SWEEP_CHUNK_TASKS, "http://a.test"), Number.MAX_SAFE_INTEGER);
    s.tick(1);
    const other = newJob(s, [page("http://b.test/only")]);
    leaveCancelledMidSweep(s.db, cancelled.id);
    // A new process: nothing in memory says the job is being swept.
    const store = new SqliteJobStore(s.db, () => {}, s.now);
    const task = store.claim("w", 30_000, free);
    expect(task?.jobId).toBe(other.id);
    expect(count(s.db, cancelled.id, "active")).toBe(0);
  });

  test("recoverAll sweeps what the dead process left, a chunk per transaction in the background", async () => {
    const s = setup();
    const cancelled = newJob(s, [page("http://a.test/first")]);
    s.store.enqueue(cancelled.id, pages(3 * SWEEP_CHUNK_TASKS + 4, "http://a.test"), Number.MAX_SAFE_INTEGER);
    leaveCancelledMidSweep(s.db, cancelled.id);
    const store = new SqliteJobStore(s.db, () => {}, s.now);
    store.recoverAll(3);
    // Nothing in the start's own turn of the event loop: the sweep runs after it.
    expect(count(s.db, cancelled.id, "queued")).toBe(3 * SWEEP_CHUNK_TASKS + 5);
    expect(store.claim("w", 30_000, free)).toBeUndefined();
    await until(() => count(s.db, cancelled.id, "queued") === 0, 5_000);
    expect([count(s.db, cancelled.id, "queued"), count(s.db, cancelled.id, "cancelled")]).toEqual([0, 3 * SWEEP_CHUNK_TASKS + 5]);
  });
});

describe("a server restarted after a crash mid-cancel", () => {
  const QUEUED = 60_000;
  let slow: ReturnType<typeof Bun.serve>;
  let fast: ReturnType<typeof Bun.serve>;
  let h: Harness;
  let cancelledId: string;
  beforeAll(async () => {
    slow = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 0, fetch: async () => (await Bun.sleep(60_000), new Response("x")) });
    fast = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("<html><body><p>hello world</p></body></html>", { headers: { "content-type": "text/html" } }) });
    const first = await createHarness({ allowPrivateNetwork: true });
    const res = await first.request("/v2/batch/scrape", { method: "POST", json: { urls: [`http://127.0.0.1:${slow.port}/a0`] } });
    cancelledId = ((await res.json()) as { id: string }).id;
    // In one turn of the event loop: no worker claims in between.
    first.services.jobStore.enqueue(cancelledId, pages(QUEUED, `http://127.0.0.1:${slow.port}`), Number.MAX_SAFE_INTEGER);
    leaveCancelledMidSweep(first.services.db, cancelledId);
    const dataDir = first.services.config.dataDir;
    await first.services.close();
    h = await createHarness({ allowPrivateNetwork: true, dataDir });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    slow?.stop(true);
    fast?.stop(true);
  });

  test("a new batch completes at once, and the cancelled job's tasks all end cancelled", async () => {
    expect(count(h.services.db, cancelledId, "queued")).toBeGreaterThan(QUEUED / 2);
    const t0 = performance.now();
    const b = await h.request("/v2/batch/scrape", { method: "POST", json: { urls: [`http://127.0.0.1:${fast.port}/b`] } });
    const { id } = (await b.json()) as { id: string };
    let status = "";
    await until(() => (status = h.services.jobStore.get(id)?.status ?? "") === "completed", 20_000);
    const waitedMs = performance.now() - t0;
    expect(status).toBe("completed");
    expect(waitedMs).toBeLessThan(3_000);
    await until(() => count(h.services.db, cancelledId, "queued") === 0, 20_000);
    expect(count(h.services.db, cancelledId, "queued")).toBe(0);
    expect(count(h.services.db, cancelledId, "cancelled")).toBe(QUEUED + 1);
  }, 60_000);
});
