/**
 * JobStore.release: a page that did not run to an outcome goes back to the queue with its claim's attempt given
 * back, so that it does not use up the retries a 5xx needs (retry-policy's MAX_PAGE_ATTEMPTS). A process that dies
 * with the page running still spends it. Real SQLite files; the full disk is a real one (`PRAGMA max_page_count`).
 * The graceful-restart case with real processes is in graceful-restart-attempts.test.ts.
 */
import type { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteJobStore } from "../../src/jobs/sqlite-store.ts";
import type { NewTask } from "../../src/jobs/types.ts";
import { WorkerPool } from "../../src/jobs/worker-pool.ts";
import { silentLogger } from "../../src/log.ts";
import { openDatabase } from "../../src/storage/database.ts";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "crawlbox-release-"));
  const db = openDatabase(dir);
  cleanups.push(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let clock = 1_000_000;
  const store = new SqliteJobStore(db, () => {}, () => clock);
  const page: NewTask = { kind: "page", url: "http://a.test/1", dedupKey: "http://a.test/1", depth: 0 };
  const job = store.createJob(
    { id: crypto.randomUUID(), kind: "batch", keyId: "k", status: "scraping", url: null, options: { scrapeOptions: {} }, publicBaseUrl: "http://x", createdAt: clock, expiresAt: clock + 60_000 },
    [page],
  );
  const row = () => db.query<{ status: string; attempts: number; stalls: number; lease_owner: string | null }, []>("SELECT status, attempts, stalls, lease_owner FROM tasks WHERE kind = 'page'").get()!;
  return { db, store, job, row, now: () => clock, tick: (ms: number) => (clock += ms) };
}

const free = { busyHosts: [], busyJobs: [], busyJobHosts: [] };

test("release requeues the task with its attempt given back, only for the lease's owner; a crash still spends it", () => {
  const s = setup();
  const first = s.store.claim("w1", 60_000, free)!;
  expect(first.attempts).toBe(1);
  expect(s.store.release(first.id, "someone-else", s.now())).toBe(false); // fenced by the owner
  expect(s.row()).toMatchObject({ status: "active", attempts: 1, lease_owner: "w1" });
  expect(s.store.release(first.id, "w1", s.now())).toBe(true);
  expect(s.row()).toEqual({ status: "queued", attempts: 0, stalls: 0, lease_owner: null });
  expect(s.store.release(first.id, "w1", s.now())).toBe(false); // not active any more

  // Three releases in a row (three graceful restarts) leave the page on its first attempt.
  for (let i = 0; i < 3; i++) {
    const t = s.store.claim("w1", 60_000, free)!;
    expect(t.attempts).toBe(1);
    s.store.release(t.id, "w1", s.now());
  }
  // A process that died with the page running: its claim stays counted, and a stall is added.
  s.store.claim("dead", 60_000, free);
  expect(s.store.recoverAll(3)).toBe(1);
  expect(s.row()).toMatchObject({ status: "queued", attempts: 1, stalls: 1 });
  expect(s.store.claim("w2", 60_000, free)!.attempts).toBe(2);
});

test("a page whose result the store could not record (a full disk) goes back with its attempt given back, and completes once there is room", async () => {
  const s = setup();
  const fill = (db: Database) => {
    const pages = db.query<{ page_count: number }, []>("PRAGMA page_count").get()!.page_count;
    db.exec(`PRAGMA max_page_count = ${pages}`);
  };
  let runs = 0;
  const run = async () => {
    runs++;
    if (runs === 1) fill(s.db); // the disk fills while the first attempt runs: its ~300 KB result does not fit
    return { kind: "done", completion: { document: { markdown: "x".repeat(300_000), metadata: {} }, credits: 1 } };
  };
  const pool = new WorkerPool({ store: s.store, run: run as never, log: silentLogger, concurrency: 1, perHostConcurrency: 1, pollMs: 5, now: s.now });
  cleanups.push(() => pool.stop());
  pool.start();
  for (let i = 0; i < 200 && !(runs === 1 && s.row().status === "queued"); i++) await Bun.sleep(10);
  expect(runs).toBe(1);
  // The page ran, but what it answered was lost to the store: that attempt is not the page's.
  expect(s.row()).toMatchObject({ status: "queued", attempts: 0, lease_owner: null });

  s.db.exec("PRAGMA max_page_count = 1073741823");
  s.tick(1_000);
  pool.kick();
  for (let i = 0; i < 200 && s.store.get(s.job.id)!.status !== "completed"; i++) await Bun.sleep(10);
  expect(s.store.get(s.job.id)!.status).toBe("completed");
  expect(s.row()).toMatchObject({ status: "done", attempts: 1 });
});
