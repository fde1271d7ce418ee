/**
 * A large batch or append stored a row per transaction (jobs/task-intake.ts) is still all or nothing: while its rows
 * are written the job is hidden and nothing of it is loaded, counted or run; a write that fails midway leaves no job,
 * no row and no used key behind. And the body is read a slice at a time with the answers of the one-pass parse
 * (api/batch.ts parseBatchScrapeBodyYielding).
 */
import { describe, expect, test } from "bun:test";
import { parseBatchScrapeBody, parseBatchScrapeBodyYielding } from "../../src/api/batch.ts";
import { INLINE_TASKS } from "../../src/jobs/pending-tasks.ts";
import { rejectionOf } from "../helpers/settled.ts";
import type { NewTask } from "../../src/jobs/types.ts";
import { free, setup } from "./store-setup.ts";

const tasksOf = (n: number, tag = "t"): NewTask[] => Array.from({ length: n }, (_, i) => ({ kind: "page", url: `http://h${i % 3}.test/${tag}/${i}`, dedupKey: `${tag}#${i}`, depth: 0 }));

function newBatch(s: ReturnType<typeof setup>) {
  return { id: crypto.randomUUID(), kind: "batch" as const, keyId: "k", status: "scraping" as const, url: null, options: { scrapeOptions: {} }, publicBaseUrl: "http://x", createdAt: s.now(), expiresAt: s.now() + 3_600_000 };
}

const count = (s: ReturnType<typeof setup>, table: string) => (s.db.query(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

/** Makes the `after`th pending row written from now on fail, as a full disk would. */
function failPendingRowsAfter(s: ReturnType<typeof setup>, after: number) {
  const start = count(s, "job_pending_tasks");
  s.db.exec(`CREATE TEMP TRIGGER fail_pending BEFORE INSERT ON job_pending_tasks WHEN (SELECT COUNT(*) FROM job_pending_tasks) >= ${start + after}
             BEGIN SELECT RAISE(ABORT, 'database or disk is full (test)'); END`);
  return () => s.db.exec("DROP TRIGGER fail_pending");
}

describe("a large list stored a row per transaction", () => {
  test("while its rows are written the batch is hidden, and none of them is loaded or counted; then it is all there at once", async () => {
    const s = setup();
    const job = newBatch(s);
    const n = 264_000;
    const creating = s.store.createJobYielding(job, tasksOf(n), "idem-1");
    let seen = false;
    for (let i = 0; i < 1000 && !seen; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      const rows = count(s, "job_pending_tasks");
      if (rows === 0 || rows === Math.ceil(n / INLINE_TASKS)) continue;
      seen = true;
      expect(s.store.get(job.id)).toBeUndefined();
      expect(s.store.list("k")).toEqual([]);
      expect(s.store.loadPending(INLINE_TASKS)).toBeUndefined();
      expect(s.store.claim("w", 60_000, free)).toBeUndefined();
      expect(s.results.queueCounts("k")).toEqual({ queued: 0, active: 0 });
      expect(s.events).toEqual([]);
    }
    expect(seen).toBe(true);
    const created = await creating;
    expect(created).toMatchObject({ id: job.id, status: "scraping", total: n });
    expect(s.events.map((e) => e.event)).toEqual(["started"]);
    expect(s.results.queueCounts("k")).toEqual({ queued: n, active: 0 });
    expect(s.store.loadPending(INLINE_TASKS)).toEqual({ jobId: job.id, added: INLINE_TASKS, rowDone: true });
  });

  test("a create whose write fails midway leaves no job, no row and its idempotency key unused", async () => {
    const s = setup();
    const restore = failPendingRowsAfter(s, 3);
    const job = newBatch(s);
    expect((await rejectionOf(s.store.createJobYielding(job, tasksOf(INLINE_TASKS * 6), "idem-2"))).message).toContain("disk is full");
    expect([count(s, "jobs"), count(s, "job_pending_tasks"), count(s, "job_intakes"), count(s, "tasks")]).toEqual([0, 0, 0, 0]);
    expect(s.events).toEqual([]);
    restore();
    const again = await s.store.createJobYielding({ ...job, id: crypto.randomUUID() }, tasksOf(INLINE_TASKS * 6), "idem-2");
    expect(again.total).toBe(INLINE_TASKS * 6);
  });

  test("an append whose write fails midway leaves the batch as it was: total, options, no key recorded, no row", async () => {
    const s = setup();
    const job = s.store.createJob(newBatch(s), tasksOf(1, "own"));
    const restore = failPendingRowsAfter(s, 2);
    const append = () => s.store.reopenAndEnqueueYielding(job.id, tasksOf(INLINE_TASKS * 4, "more"), { scrapeOptions: { formats: ["html"] } }, "idem-3");
    expect((await rejectionOf(append())).message).toContain("disk is full");
    expect(s.store.get(job.id)).toMatchObject({ total: 1, options: { scrapeOptions: {} } });
    expect(s.store.get(job.id)!.options.appended).toBeUndefined();
    expect([count(s, "job_pending_tasks"), count(s, "job_intakes"), count(s, "batch_append_keys")]).toEqual([0, 0, 0]);
    restore();
    expect(await append()).toBe(0);
    expect(s.store.get(job.id)!.total).toBe(1 + INLINE_TASKS * 4);
  });

  test("an append to a batch cancelled while its rows were written is refused (400), and its rows dropped", async () => {
    const s = setup();
    const job = s.store.createJob(newBatch(s), tasksOf(1, "own"));
    const appending = s.store.reopenAndEnqueueYielding(job.id, tasksOf(200_000, "more"), { scrapeOptions: {} });
    await new Promise((resolve) => setImmediate(resolve));
    expect(s.store.cancel(job.id)).toBe(true);
    expect((await rejectionOf(appending)).message).toContain(`Batch ${job.id} is cancelled`);
    while (s.store.sweepEnded(job.id) > 0);
    expect([count(s, "job_pending_tasks"), count(s, "job_intakes")]).toEqual([0, 0]);
  });
});

describe("the body read a slice at a time", () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => (i % 97 === 5 ? `example${i}.com/p` : `https://example.com/p/${i}`));
  /** What a parse answers: the request, or the 400's code, message and issues. */
  const outcome = async (parse: () => unknown) => {
    try {
      return { ok: await parse() };
    } catch (err) {
      const e = err as { code?: string; message: string; details?: unknown };
      return { error: { code: e.code, message: e.message, details: e.details } };
    }
  };
  const bodies: Record<string, unknown> = {
    "valid and invalid URLs": { urls: [...many(5000), "nope", "ftp://x.test/"], formats: ["markdown"] },
    "invalid URLs refused": { urls: [...many(5000), "nope", "mailto:a@b.test"], ignoreInvalidURLs: false },
    "no valid URL": { urls: Array.from({ length: 3000 }, (_, i) => `bad${i}`) },
    "a URL that is not a string": { urls: [...many(4000), 42] },
    "an unknown key": { urls: many(4000), nope: true },
    "a bad webhook": { urls: many(2500), webhook: "ftp://x" },
  };
  for (const [name, body] of Object.entries(bodies)) {
    test(`${name}: the same answer as the one-pass parse`, async () => {
      const sync = await outcome(() => parseBatchScrapeBody(body));
      expect(await outcome(() => parseBatchScrapeBodyYielding(body))).toEqual(sync);
    });
  }
});
