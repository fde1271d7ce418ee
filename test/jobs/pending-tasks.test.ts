/**
 * Large batches are accepted with their tasks stored as one pending row and queued a chunk per transaction
 * (jobs/pending-tasks.ts, jobs/task-loader.ts): in order, with the time they were accepted, never completed early,
 * resumed after a restart without losing or doubling a task, dropped on cancel; and through the API, answered
 * before every task is queued.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { INLINE_TASKS } from "../../src/jobs/pending-tasks.ts";
import { JobResults } from "../../src/jobs/results.ts";
import { SqliteJobStore } from "../../src/jobs/sqlite-store.ts";
import { TaskLoader } from "../../src/jobs/task-loader.ts";
import type { JobEvent, NewTask } from "../../src/jobs/types.ts";
import { silentLogger } from "../../src/log.ts";
import { migrate, openDatabase } from "../../src/storage/database.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const N = INLINE_TASKS * 2 + 7;
const free = { busyHosts: [], busyJobs: [], busyJobHosts: [] };

/** `count` batch tasks; every third keeps a sourceUrl as the client wrote it, every fifth an append's options. */
function batchTasks(count: number, prefix = "p"): NewTask[] {
  return Array.from({ length: count }, (_, i) => {
    const t: NewTask = { kind: "page", url: `http://h${i % 3}.test/${prefix}/${i}`, dedupKey: `stamp-${prefix}#${i}`, depth: 0 };
    if (i % 3 === 0) t.sourceUrl = `h${i % 3}.test/${prefix}/${i}`;
    if (i % 5 === 0) t.optionsIndex = 0;
    return t;
  });
}

function setup(db = memoryDb()) {
  let clock = 5_000_000;
  const events: JobEvent[] = [];
  const store = new SqliteJobStore(db, (e) => events.push(e), () => clock);
  return { db, store, events, tick: (ms: number) => (clock += ms), now: () => clock };
}

function memoryDb(): Database {
  const db = new Database(":memory:", { strict: true });
  db.exec("PRAGMA foreign_keys = ON");
  migrate(db);
  return db;
}

function newBatch(s: ReturnType<typeof setup>, tasks: NewTask[]) {
  return s.store.createJob(
    { id: crypto.randomUUID(), kind: "batch", keyId: "k", status: "scraping", url: null, options: { scrapeOptions: {} }, publicBaseUrl: "http://x", createdAt: s.now(), expiresAt: s.now() + 1000 },
    tasks,
  );
}

type Row = { seq: number; url: string; source_url: string | null; dedup_key: string; options_index: number | null; created_at: number };
const rows = (db: Database, jobId: string) => db.query<Row, [string]>("SELECT seq, url, source_url, dedup_key, options_index, created_at FROM tasks WHERE job_id = ? ORDER BY seq").all(jobId);

/** What the queue should hold for `tasks`, in order. */
const expected = (tasks: NewTask[], createdAt: number) =>
  tasks.map((t, i) => ({ seq: i + 1, url: t.url, source_url: t.sourceUrl ?? null, dedup_key: t.dedupKey, options_index: t.optionsIndex ?? null, created_at: createdAt }));

describe("pending tasks in the store", () => {
  test("a batch over INLINE_TASKS is accepted with nothing queued but counted in total, queued by chunks in order with its acceptance time, and completes only after its last task", () => {
    const s = setup();
    const tasks = batchTasks(N);
    const acceptedAt = s.now();
    const job = newBatch(s, tasks);
    // With nothing queued yet, a job that forgot its pending tasks would be complete at once. Its total is the
    // batch's URL count from the start, as upstream's.
    expect(job).toMatchObject({ status: "scraping", total: N });
    expect(s.db.query("SELECT COUNT(*) AS n FROM tasks").get()).toEqual({ n: 0 });
    const sizes: number[] = [];
    for (;;) {
      s.tick(1000);
      const chunk = s.store.loadPending(INLINE_TASKS);
      if (!chunk) break;
      expect(chunk.jobId).toBe(job.id);
      sizes.push(chunk.added);
      // Run every queued page before the next chunk: the job must not complete between chunks.
      for (let t = s.store.claim("w", 60_000, free); t; t = s.store.claim("w", 60_000, free)) {
        expect(s.store.complete(t.id, "w", { document: { markdown: t.url, metadata: {} }, credits: 1 })).toBe(true);
      }
      expect(s.store.get(job.id)!.status).toBe(sizes.reduce((a, b) => a + b, 0) === N ? "completed" : "scraping");
    }
    expect(sizes).toEqual([INLINE_TASKS, INLINE_TASKS, 7]);
    expect(rows(s.db, job.id)).toEqual(expected(tasks, acceptedAt));
    expect(s.store.get(job.id)).toMatchObject({ status: "completed", total: N, completed: N });
    expect(s.events.filter((e) => e.event === "completed")).toHaveLength(1);
    expect(s.db.query("SELECT COUNT(*) AS n FROM job_pending_tasks").get()).toEqual({ n: 0 });
  });

  test("the queue status counts a batch's URLs as queued whether they are in the queue yet or still pending", () => {
    const s = setup();
    const results = new JobResults(s.db, s.now);
    newBatch(s, batchTasks(N));
    expect(results.queueCounts("k")).toEqual({ queued: N, active: 0 });
    s.store.loadPending(INLINE_TASKS);
    s.store.claim("w", 60_000, free);
    expect(results.queueCounts("k")).toEqual({ queued: N - 1, active: 1 });
  });

  test("at or under INLINE_TASKS the tasks are queued with the job, as before", () => {
    const s = setup();
    const job = newBatch(s, batchTasks(INLINE_TASKS));
    expect(job.total).toBe(INLINE_TASKS);
    expect(s.store.loadPending(INLINE_TASKS)).toBeUndefined();
  });

  test("after a restart a new store on the same file goes on from the last chunk: every task queued once", () => {
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-pending-"));
    try {
      const first = setup(openDatabase(dir));
      migrate(first.db);
      const tasks = batchTasks(N);
      const acceptedAt = first.now();
      const job = newBatch(first, tasks);
      expect(first.store.loadPending(INLINE_TASKS)!.added).toBe(INLINE_TASKS);
      first.db.close();

      const second = setup(openDatabase(dir));
      let chunks = 0;
      while (second.store.loadPending(INLINE_TASKS)) chunks++;
      expect(chunks).toBe(2);
      expect(rows(second.db, job.id)).toEqual(expected(tasks, acceptedAt));
      expect(second.store.get(job.id)!.total).toBe(N);
      expect(second.db.query("SELECT COUNT(*) AS n FROM job_pending_tasks").get()).toEqual({ n: 0 });
      second.db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("cancelling drops what is still pending", () => {
    const s = setup();
    const job = newBatch(s, batchTasks(N));
    s.store.loadPending(INLINE_TASKS);
    expect(s.store.cancel(job.id)).toBe(true);
    expect(s.store.loadPending(INLINE_TASKS)).toBeUndefined();
    expect(s.store.get(job.id)!.status).toBe("cancelled");
    expect(s.db.query("SELECT COUNT(*) AS n FROM tasks").get()).toEqual({ n: INLINE_TASKS });
  });

  test("a large append reopens a completed batch, keeps its options index, and queues after the batch's own tasks", () => {
    const s = setup();
    const job = newBatch(s, batchTasks(1, "own"));
    const t = s.store.claim("w", 60_000, free)!;
    s.store.complete(t.id, "w", { document: { metadata: {} }, credits: 1 });
    expect(s.store.get(job.id)!.status).toBe("completed");
    const more = batchTasks(INLINE_TASKS + 1, "more").map(({ optionsIndex: _, ...rest }) => rest);
    expect(s.store.reopenAndEnqueue(job.id, more, { scrapeOptions: { formats: ["html"] } })).toBe(0);
    expect(s.store.get(job.id)).toMatchObject({ status: "scraping", total: INLINE_TASKS + 2 });
    while (s.store.loadPending(INLINE_TASKS));
    expect(s.store.get(job.id)!.total).toBe(INLINE_TASKS + 2);
    const queued = rows(s.db, job.id);
    expect(queued).toHaveLength(INLINE_TASKS + 2);
    expect(queued.slice(1).map((r) => [r.dedup_key, r.options_index])).toEqual(more.map((m) => [m.dedupKey, 0]));
  });
});

describe("TaskLoader", () => {
  test("started, it queues what is pending chunk by chunk, telling the pool after each; kicked again, it queues a later batch", async () => {
    const s = setup();
    newBatch(s, batchTasks(N));
    let told = 0;
    const loader = new TaskLoader({ store: s.store, onLoaded: () => told++, log: silentLogger });
    loader.start();
    for (let i = 0; i < 200 && s.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM tasks").get()!.n < N; i++) await Bun.sleep(10);
    expect(told).toBe(3);
    const later = newBatch(s, batchTasks(INLINE_TASKS + 1, "later"));
    loader.kick();
    const queued = () => s.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM tasks WHERE job_id = ?").get(later.id)!.n;
    for (let i = 0; i < 200 && queued() < INLINE_TASKS + 1; i++) await Bun.sleep(10);
    expect(queued()).toBe(INLINE_TASKS + 1);
    await loader.stop();
  });

  test("stopped, it leaves the rest pending for the next start", async () => {
    const s = setup();
    const job = newBatch(s, batchTasks(N));
    const loader = new TaskLoader({ store: s.store, onLoaded: () => {}, log: silentLogger, chunkSize: 10 });
    loader.start();
    await Bun.sleep(5);
    await loader.stop();
    const queued = s.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM tasks WHERE job_id = ?").get(job.id)!.n;
    expect(queued).toBeLessThan(N);
    // What is not queued is still pending (rows of INLINE_TASKS, the first partly loaded), none lost or doubled.
    expect(s.db.query("SELECT SUM(task_count - next_index) AS n FROM job_pending_tasks").get()).toEqual({ n: N - queued });
  });
});

describe("through the API", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ allowPrivateNetwork: true });
  });
  afterAll(async () => {
    await h.close();
  });

  test("POST /v2/batch/scrape with more than INLINE_TASKS URLs answers with them counted, queues every URL once in order, and ends with all of them", async () => {
    // Nothing listens on port 9 of loopback: pages fail fast, none of them matters here.
    const urls = Array.from({ length: INLINE_TASKS + 50 }, (_, i) => `http://127.0.0.1:9/u/${i}`);
    const res = await h.request("/v2/batch/scrape", { method: "POST", json: { urls } });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    // Counted from the start, queued or not: the status's total and the queue status (which counts pending URLs).
    const first = (await (await h.request(`/v2/batch/scrape/${id}?limit=1`)).json()) as { total: number };
    expect(first.total).toBe(urls.length);
    const queue = (await (await h.request("/v2/team/queue-status")).json()) as { jobsInQueue: number };
    expect(queue.jobsInQueue).toBeGreaterThan(0);
    const queuedUrls = () => h.services.db.query<{ url: string }, [string]>("SELECT url FROM tasks WHERE job_id = ? ORDER BY seq").all(id).map((r) => r.url);
    for (let i = 0; i < 500 && queuedUrls().length < urls.length; i++) await Bun.sleep(20);
    expect(queuedUrls()).toEqual(urls);
    // The host never answers: the batch gives it up and ends, with every URL counted, not only the first chunk's.
    let status = { status: "scraping", completed: 0, total: 0 };
    for (let i = 0; i < 500 && status.status === "scraping"; i++) {
      status = (await (await h.request(`/v2/batch/scrape/${id}?limit=1`)).json()) as typeof status;
      if (status.status === "scraping") await Bun.sleep(20);
    }
    expect(status).toMatchObject({ status: "completed", completed: urls.length, total: urls.length });
  });
});
