/**
 * Claiming reads the queue's head, then (when the head is all busy and the queue is longer) the head of each
 * (job, host) group (jobs/task-leases.ts). For random queues, busy sets and clocks, it must lease exactly the task the
 * one query over the whole queue leased: the oldest queued task due now whose host, job and job-host are free.
 * (Its speed on long queues is measured by scripts/bench/claim.ts.)
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { SqliteJobStore } from "../../src/jobs/sqlite-store.ts";
import type { NewTask } from "../../src/jobs/types.ts";
import { migrate } from "../../src/storage/database.ts";

/** The whole-queue query claims were made with before groups, as the reference. */
const REFERENCE = `SELECT id FROM tasks WHERE status = 'queued' AND not_before <= ?
    AND host NOT IN (SELECT value FROM json_each(?)) AND job_id NOT IN (SELECT value FROM json_each(?))
    AND (job_id || ' ' || host) NOT IN (SELECT value FROM json_each(?))
  ORDER BY created_at, seq LIMIT 1`;

const HOSTS = ["a.test", "b.test", "c.test", "d.test"];

describe("claim order", () => {
  test("the task leased is the oldest runnable one, for queues shorter and longer than the head that is read first", () => {
    let beyondHead = 0;
    fc.assert(
      fc.property(
        // Runs of one (job, host), some longer than the head a claim reads first, some in backoff (not due yet).
        fc
          .array(fc.record({ job: fc.nat(2), host: fc.nat(HOSTS.length - 1), count: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 200, max: 400 })), delayMs: fc.oneof(fc.constant(0), fc.constant(0), fc.nat(5_000)) }), { minLength: 1, maxLength: 5 })
          .map((runs) => runs.flatMap((r) => Array.from({ length: r.count }, () => r))),
        fc.subarray(HOSTS),
        fc.subarray([0, 1, 2]),
        fc.subarray(HOSTS.flatMap((h) => [0, 1, 2].map((j) => `${j} ${h}`))),
        fc.nat(6_000),
        (tasks, busyHosts, busyJobIdx, busyJobHostIdx, advanceMs) => {
          const db = new Database(":memory:", { strict: true });
          db.exec("PRAGMA foreign_keys = ON");
          migrate(db);
          let clock = 1_000_000;
          const store = new SqliteJobStore(db, () => {}, () => clock);
          const jobIds = [0, 1, 2].map((j) =>
            store.createJob({ id: `job${j}`, kind: "batch", keyId: "k", status: "scraping", url: null, options: { scrapeOptions: {} }, publicBaseUrl: "http://x", createdAt: clock, expiresAt: clock + 1e9 }, []).id,
          );
          // Queued in the generated order, each job's tasks appended as they come (the created_at of later ones grows).
          tasks.forEach((t, i) => {
            clock += i % 7 === 0 ? 1 : 0;
            const task: NewTask = { kind: "page", url: `http://${HOSTS[t.host]}/${i}`, dedupKey: String(i), depth: 0 };
            store.reopenAndEnqueue(jobIds[t.job]!, [task]);
            if (t.delayMs > 0) db.query("UPDATE tasks SET not_before = ? WHERE job_id = ? AND dedup_key = ?").run(clock + t.delayMs, jobIds[t.job]!, String(i));
          });
          clock += advanceMs;
          const limits = {
            busyHosts,
            busyJobs: busyJobIdx.map((j) => jobIds[j]!),
            busyJobHosts: busyJobHostIdx.map((k) => `${jobIds[Number(k.split(" ")[0])]} ${k.split(" ")[1]}`),
          };
          const expected = db
            .query<{ id: string }, [number, string, string, string]>(REFERENCE)
            .get(clock, JSON.stringify(limits.busyHosts), JSON.stringify(limits.busyJobs), JSON.stringify(limits.busyJobHosts))?.id;
          const leased = store.claim("w", 60_000, limits)?.id;
          if (expected !== undefined) {
            const position = db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM tasks WHERE status = 'queued' AND rowid < (SELECT rowid FROM tasks WHERE id = ?)").get(expected)!.n;
            if (position >= 256) beyondHead++;
          }
          db.close();
          expect(leased).toBe(expected);
        },
      ),
      { numRuns: 300, seed: 20261123 },
    );
    // The generated queues reached the group path: the oldest runnable task was past the head in many of them.
    expect(beyondHead).toBeGreaterThan(20);
    // 300 generated queues of up to 2,000 tasks, each enqueued on its own: 3.6-5.2 s alone on a 2-core machine, past
    // bun's 5 s default. The time is the amount of checking, not what the test is about.
  }, 60_000);
});
