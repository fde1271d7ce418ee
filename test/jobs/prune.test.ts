/**
 * Expired crawl and batch jobs are deleted with everything they hold, running and unexpired ones kept; a large
 * job's tasks go in chunks with the event loop free between them (one statement held it ~0.8 s at 100,000 pages).
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { JobResults, PRUNE_CHUNK_TASKS } from "../../src/jobs/results.ts";
import { SqliteJobStore } from "../../src/jobs/sqlite-store.ts";
import type { NewTask } from "../../src/jobs/types.ts";
import { migrate } from "../../src/storage/database.ts";

function setup() {
  const db = new Database(":memory:", { strict: true });
  db.exec("PRAGMA foreign_keys = ON");
  migrate(db);
  let clock = 1_000_000;
  const store = new SqliteJobStore(db, () => {}, () => clock);
  const results = new JobResults(db, () => clock);
  return { db, store, results, now: () => clock, tick: (ms: number) => (clock += ms) };
}

const tasks = (n: number, prefix: string): NewTask[] =>
  Array.from({ length: n }, (_, i) => ({ kind: "page", url: `http://a.test/${prefix}/${i}`, dedupKey: `${prefix}#${i}`, depth: 0 }));

function job(s: ReturnType<typeof setup>, n: number, prefix: string, status: "completed" | "scraping", expiresAt: number): string {
  const id = crypto.randomUUID();
  s.store.createJob({ id, kind: "batch", keyId: "k", status: "scraping", url: null, options: { scrapeOptions: {} }, publicBaseUrl: "http://x", createdAt: s.now(), expiresAt }, tasks(n, prefix));
  // A batch this large is queued in chunks (jobs/pending-tasks.ts): all of them, then every page done with a
  // document, as a finished batch holds them.
  while (s.store.loadPending(n));
  s.db.query("UPDATE tasks SET status = 'done', result = ?, result_bytes = 20 WHERE job_id = ?").run('{"markdown":"page"}', id);
  s.db.query("UPDATE jobs SET status = ?, expires_at = ? WHERE id = ?").run(status, expiresAt, id);
  s.db.query("INSERT INTO job_robots_blocked (job_id, url) VALUES (?, ?)").run(id, `http://a.test/${prefix}/blocked`);
  return id;
}

const count = (db: Database, table: string, jobId: string) => db.query<{ n: number }, [string]>(`SELECT COUNT(*) AS n FROM ${table} WHERE job_id = ?`).get(jobId)!.n;

describe("JobResults.prune", () => {
  test("deletes expired finished jobs with their tasks and what else they hold; keeps running and unexpired jobs", async () => {
    const s = setup();
    const expired = job(s, 2 * PRUNE_CHUNK_TASKS + 3, "old", "completed", s.now() - 1);
    const running = job(s, 5, "run", "scraping", s.now() - 1);
    const fresh = job(s, 5, "new", "completed", s.now() + 60_000);
    expect(count(s.db, "tasks", expired)).toBe(2 * PRUNE_CHUNK_TASKS + 3);
    expect(await s.results.prune()).toBe(1);
    expect(s.store.get(expired)).toBeUndefined();
    expect([count(s.db, "tasks", expired), count(s.db, "job_robots_blocked", expired)]).toEqual([0, 0]);
    for (const kept of [running, fresh]) expect([s.store.get(kept)?.id, count(s.db, "tasks", kept), count(s.db, "job_robots_blocked", kept)]).toEqual([kept, 5, 1]);
  });

  test("a large job is deleted in chunks, with the event loop free between them", async () => {
    const s = setup();
    const expired = job(s, 3 * PRUNE_CHUNK_TASKS, "big", "completed", s.now() - 1);
    // Queued before prune starts: it runs only once prune gives the event loop back, which one statement never did.
    let seen: number | undefined;
    setImmediate(() => (seen = count(s.db, "tasks", expired)));
    await s.results.prune();
    expect(seen).toBe(2 * PRUNE_CHUNK_TASKS);
    expect(count(s.db, "tasks", expired)).toBe(0);
  });
});
