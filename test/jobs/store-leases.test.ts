/**
 * The SQLite job store's lifecycle and leases: create, claim and complete; learnt Crawl-delays; completion fenced by
 * the lease owner; expired and renewed leases; recovery at boot; a redirect onto a known page; a graceful stop.
 */
import { describe, expect, test } from "bun:test";
import { WorkerPool } from "../../src/jobs/worker-pool.ts";
import { silentLogger } from "../../src/log.ts";
import { free, newJob, page, setup } from "./store-setup.ts";

describe("SqliteJobStore", () => {
  test("create → claim → complete runs a job to completed and announces started, page, completed", () => {
    const s = setup();
    const job = newJob(s, [page("http://a.test/1"), page("http://a.test/2")]);
    expect(job.total).toBe(2);
    const t1 = s.store.claim("w1", 1000, free)!;
    const t2 = s.store.claim("w1", 1000, free)!;
    expect(s.store.claim("w1", 1000, free)).toBeUndefined();
    expect(t1.url).toBe("http://a.test/1");
    expect(s.store.complete(t1.id, "w1", { document: { markdown: "one", metadata: {} }, credits: 1 })).toBe(true);
    expect(s.store.get(job.id)!.status).toBe("scraping");
    expect(s.store.complete(t2.id, "w1", { document: { markdown: "two", metadata: {} }, credits: 2 })).toBe(true);
    const done = s.store.get(job.id)!;
    expect(done).toMatchObject({ status: "completed", completed: 2, total: 2, creditsUsed: 3 });
    expect(s.events.map((e) => e.event)).toEqual(["started", "page", "page", "completed"]);
    expect(s.results.page(job.id, 0).data.map((d) => d.markdown)).toEqual(["one", "two"]);
  });

  test("two robots.txt Crawl-delays learnt in either order: the job keeps the longer (the start host's and a moved origin's)", () => {
    for (const order of [[0, 300], [300, 0], [120, 300], [300, 120]]) {
      const s = setup();
      const job = newJob(s, [page("http://a.test/1"), page("http://a.test/2")], "crawl");
      for (const delayMs of order) {
        const t = s.store.claim("w1", 1000, free)!;
        expect(s.store.complete(t.id, "w1", { document: null, credits: 0, optionsPatch: { delayMs } })).toBe(true);
      }
      expect([order, s.store.get(job.id)!.options.delayMs]).toEqual([order, 300]);
    }
  });

  test("completion is fenced by the lease owner", () => {
    const s = setup();
    newJob(s, [page("http://a.test/1")]);
    const t = s.store.claim("w1", 1000, free)!;
    expect(s.store.complete(t.id, "intruder", { document: {}, credits: 1 })).toBe(false);
    expect(s.store.fail(t.id, "intruder", { code: "X", status: 500, message: "x" })).toBe(false);
  });

  test("expired leases are requeued with a stall count, and poison tasks fail after maxStalls", () => {
    const s = setup();
    const job = newJob(s, [page("http://a.test/1")]);
    for (let i = 0; i < 3; i++) {
      const t = s.store.claim(`w${i}`, 1000, free)!;
      expect(t).toBeDefined();
      s.tick(1001);
      expect(s.store.reap(3)).toBe(1);
      // The old owner can no longer complete it.
      expect(s.store.complete(t.id, `w${i}`, { document: {}, credits: 1 })).toBe(false);
    }
    s.store.claim("w9", 1000, free);
    s.tick(1001);
    s.store.reap(3);
    const after = s.store.get(job.id)!;
    expect(after.status).toBe("completed");
    expect(s.results.errors(job.id).errors[0]!.code).toBe("SCRAPE_RETRY_LIMIT");
  });

  test("renewing a lease keeps it alive", () => {
    const s = setup();
    newJob(s, [page("http://a.test/1")]);
    const t = s.store.claim("w1", 1000, free)!;
    s.tick(900);
    expect(s.store.renew(t.id, "w1", 1000)).toBe(true);
    s.tick(900);
    expect(s.store.reap(3)).toBe(0);
  });

  test("recoverAll requeues every active task (boot after a crash)", () => {
    const s = setup();
    newJob(s, [page("http://a.test/1"), page("http://a.test/2")]);
    s.store.claim("dead", 60_000, free);
    s.store.claim("dead", 60_000, free);
    expect(s.store.recoverAll(3)).toBe(2);
    expect(s.store.claim("w2", 1000, free)).toBeDefined();
  });

  test("a redirect to a page the crawl already has: the copy fails hidden, but the links it found are kept", () => {
    const s = setup();
    const job = newJob(s, [page("http://a.test/go/docs", "a.test/go/docs"), page("http://a.test/docs/1", "a.test/docs/1")], "crawl");
    const first = s.store.claim("w", 60_000, free)!;
    expect(first.url).toBe("http://a.test/go/docs");
    s.store.complete(first.id, "w", {
      document: { metadata: {} },
      credits: 1,
      redirect: { key: "a.test/docs/1", url: "http://a.test/docs/1" },
      discovered: [{ kind: "page", url: "http://a.test/docs/secret", dedupKey: "a.test/docs/secret", depth: 1 }],
    });
    const tasks = s.db.query<{ url: string; status: string }, []>("SELECT url, status FROM tasks WHERE kind = 'page' ORDER BY seq").all();
    expect(tasks).toEqual([
      { url: "http://a.test/go/docs", status: "failed" },
      { url: "http://a.test/docs/1", status: "queued" },
      { url: "http://a.test/docs/secret", status: "queued" },
    ]);
    expect(s.results.errors(job.id).errors).toEqual([]); // SCRAPE_RACED_REDIRECT_ERROR is not shown
  });

  test("a graceful stop puts running pages back in the queue without counting a stall", async () => {
    const s = setup();
    newJob(s, [page("http://a.test/slow")]);
    const run = (_t: unknown, _j: unknown, signal: AbortSignal) =>
      new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(new Error("stopped"))));
    for (let boot = 1; boot <= 4; boot++) {
      const pool = new WorkerPool({ store: s.store, run: run as never, log: silentLogger, concurrency: 1, perHostConcurrency: 1, pollMs: 5, now: s.now });
      pool.start();
      await Bun.sleep(30);
      await pool.stop();
      expect(s.db.query("SELECT status, stalls FROM tasks").get()).toEqual({ status: "queued", stalls: 0 });
    }
  });
});
