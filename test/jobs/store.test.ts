import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { IdempotencyConflictError, SqliteJobStore } from "../../src/jobs/sqlite-store.ts";
import { JobResults, LAST_PAGE_SQL, RESULT_PAGE_SQL } from "../../src/jobs/results.ts";
import type { JobEvent, NewTask } from "../../src/jobs/types.ts";
import { migrate } from "../../src/storage/database.ts";
import { attemptSaysHostDown, WorkerPool } from "../../src/jobs/worker-pool.ts";
import { type CrawlboxError, ScrapeTimeoutError, SiteError, UnsupportedFileError } from "../../src/errors.ts";
import { silentLogger } from "../../src/log.ts";

function setup() {
  const db = new Database(":memory:", { strict: true });
  db.exec("PRAGMA foreign_keys = ON");
  migrate(db);
  let clock = 1_000_000;
  const events: JobEvent[] = [];
  const store = new SqliteJobStore(db, (e) => events.push(e), () => clock);
  const results = new JobResults(db, () => clock);
  return { db, store, results, events, tick: (ms: number) => (clock += ms), now: () => clock };
}

const page = (url: string, key = url): NewTask => ({ kind: "page", url, dedupKey: key, depth: 0 });
const free = { busyHosts: [], busyJobs: [], busyJobHosts: [] };

function newJob(s: ReturnType<typeof setup>, tasks: NewTask[], kind: "crawl" | "batch" = "batch", idem?: string) {
  return s.store.createJob(
    { id: crypto.randomUUID(), kind, keyId: "k", status: "scraping", url: null, options: { scrapeOptions: {} }, publicBaseUrl: "http://x", createdAt: s.now(), expiresAt: s.now() + 1000 },
    tasks,
    idem,
  );
}

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

  test("a page is charged to the job's key in the transaction that stores it: once, and only if it is stored", () => {
    const s = setup();
    const charges: [string, number][] = [];
    s.store.setChargeHook((keyId, credits) => charges.push([keyId, credits]));
    const job = newJob(s, [page("http://a.test/1"), page("http://a.test/2")]);
    const t1 = s.store.claim("w", 1000, free)!;
    expect(s.store.complete(t1.id, "w", { document: { metadata: {} }, credits: 2 })).toBe(true);
    expect(charges).toEqual([["k", 2]]);
    // Stored already (a second process, a lost lease): not charged again.
    expect(s.store.complete(t1.id, "w", { document: { metadata: {} }, credits: 2 })).toBe(false);
    // A charge that cannot be written undoes the page: it is not stored uncharged.
    s.store.setChargeHook(() => {
      throw new Error("database or disk is full");
    });
    const t2 = s.store.claim("w", 1000, free)!;
    expect(() => s.store.complete(t2.id, "w", { document: { metadata: {} }, credits: 1 })).toThrow("full");
    expect(s.db.query("SELECT status FROM tasks WHERE id = ?").get(t2.id)).toEqual({ status: "active" });
    expect(s.store.get(job.id)).toMatchObject({ completed: 1, creditsUsed: 2 });
  });

  test("a task that answers 'done' after the stop's abort goes back to the queue, uncharged (its answer may be partial)", async () => {
    const s = setup();
    const charges: number[] = [];
    s.store.setChargeHook((_k, c) => charges.push(c));
    const job = newJob(s, [page("http://a.test/finishing")]);
    // Like an aborted kickoff or link check: it answers "done" with what it could read before the abort.
    const run = async (_t: unknown, _j: unknown, signal: AbortSignal) => {
      await new Promise((resolve) => signal.addEventListener("abort", resolve));
      return { kind: "done", completion: { document: { markdown: "partial", metadata: {} }, credits: 1 } };
    };
    const pool = new WorkerPool({ store: s.store, run: run as never, log: silentLogger, concurrency: 1, perHostConcurrency: 1, pollMs: 5, now: s.now });
    pool.start();
    await Bun.sleep(30);
    await pool.stop();
    expect(s.db.query("SELECT status, stalls FROM tasks").get()).toEqual({ status: "queued", stalls: 0 });
    expect(s.store.get(job.id)).toMatchObject({ status: "scraping", completed: 0, creditsUsed: 0 });
    expect(charges).toEqual([]); // charged when stored, after the restart: once
  });

  test("a job that cannot be read (a store error) hands its task back instead of leaving it leased", async () => {
    const s = setup();
    newJob(s, [page("http://a.test/1")]);
    let failing = true;
    const store = Object.create(s.store) as typeof s.store;
    store.get = (id: string) => {
      if (failing) throw new Error("database is locked");
      return s.store.get(id);
    };
    let runs = 0;
    const run = async () => {
      runs++;
      return { kind: "done", completion: { document: { markdown: "ok", metadata: {} }, credits: 1 } };
    };
    const pool = new WorkerPool({ store, run: run as never, log: silentLogger, concurrency: 1, perHostConcurrency: 1, pollMs: 5, now: s.now });
    pool.start();
    await Bun.sleep(40);
    expect(runs).toBe(0);
    expect(s.db.query("SELECT status, stalls FROM tasks").get()).toEqual({ status: "queued", stalls: 0 });
    failing = false;
    s.tick(1_000);
    pool.kick();
    for (let i = 0; i < 40 && runs === 0; i++) await Bun.sleep(10);
    await pool.stop();
    expect(runs).toBe(1);
  });

  test("a full disk does not end the workers: pages finish once there is room, and the pool still stops", async () => {
    const s = setup();
    const job = newJob(s, [page("http://a.test/big")]);
    // The real store, with every write after the claim failing as a full disk fails them (WAL included), until
    // `full` is lifted.
    let full = false;
    const diskFull = () => Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    const store = Object.create(s.store) as typeof s.store;
    for (const method of ["complete", "retry", "fail", "renew", "recordHostOutcome"] as const) {
      (store as any)[method] = (...args: unknown[]) => {
        if (full) throw diskFull();
        return (s.store as any)[method](...args);
      };
    }
    let runs = 0;
    const run = async () => {
      runs++;
      full = runs === 1 || full; // the disk fills while the first page runs
      await Bun.sleep(20);
      return { kind: "done", completion: { document: { markdown: "page", metadata: {} }, credits: 1 } };
    };
    const pool = new WorkerPool({ store, run: run as never, log: silentLogger, concurrency: 2, perHostConcurrency: 2, pollMs: 5, leaseMs: 30, now: s.now });
    pool.start();
    await Bun.sleep(150);
    expect(runs).toBe(1); // it ran, and could neither store its result nor requeue itself
    full = false;
    // The page is still leased to this process; when the lease ends the reaper hands it out again.
    s.tick(5_000);
    const second = newJob(s, [page("http://b.test/small")]);
    pool.kick();
    for (let i = 0; i < 60 && (s.store.get(job.id)!.status !== "completed" || s.store.get(second.id)!.status !== "completed"); i++) await Bun.sleep(50);
    expect(s.store.get(job.id)!.status).toBe("completed");
    expect(s.store.get(second.id)!.status).toBe("completed");
    const stopped = await Promise.race([pool.stop().then(() => "stopped"), Bun.sleep(2_000).then(() => "hung")]);
    expect(stopped).toBe("stopped");
  }, 10_000);

  test("a page that is running every time the process dies is failed after maxStalls restarts (poison page)", () => {
    const s = setup();
    const job = newJob(s, [page("http://a.test/poison")]);
    for (let boot = 1; boot <= 3; boot++) {
      expect(s.store.claim("dying", 60_000, free)?.url).toBe("http://a.test/poison");
      expect(s.store.recoverAll(3)).toBe(1); // requeued, stalls = boot
    }
    s.store.claim("dying", 60_000, free);
    s.store.recoverAll(3); // the fourth death: given up
    expect(s.store.claim("w", 60_000, free)).toBeUndefined();
    expect(s.store.get(job.id)!.status).toBe("completed");
    expect(s.results.errors(job.id).errors[0]).toMatchObject({ url: "http://a.test/poison", code: "SCRAPE_RETRY_LIMIT" });
  });

  test("limit and dedup keys bound what a crawl enqueues", () => {
    const s = setup();
    const job = newJob(s, [page("http://a.test/", "a.test/")], "crawl");
    const t = s.store.claim("w", 1000, free)!;
    const discovered = [page("http://a.test/x", "a.test/x"), page("http://www.a.test/x", "a.test/x"), page("http://a.test/y", "a.test/y"), page("http://a.test/z", "a.test/z")];
    s.store.complete(t.id, "w", { document: { metadata: {} }, credits: 1, discovered, limit: 3 });
    expect(s.store.get(job.id)!.total).toBe(3);
    expect(s.store.enqueue(job.id, [page("http://a.test/w", "a.test/w")], 3)).toBe(0);
  });

  test("claim skips busy hosts, busy jobs and paced job-hosts", () => {
    const s = setup();
    const job = newJob(s, [page("http://a.test/1"), page("http://b.test/1")]);
    expect(s.store.claim("w", 1000, { busyHosts: ["a.test"], busyJobs: [], busyJobHosts: [] })!.host).toBe("b.test");
    expect(s.store.claim("w", 1000, { busyHosts: [], busyJobs: [job.id], busyJobHosts: [] })).toBeUndefined();
    expect(s.store.claim("w", 1000, { busyHosts: [], busyJobs: [], busyJobHosts: [`${job.id} a.test`] })).toBeUndefined();
    expect(s.store.claim("w", 1000, free)!.host).toBe("a.test");
  });

  test("retry puts a task back until its not-before time", () => {
    const s = setup();
    newJob(s, [page("http://a.test/1")]);
    const t = s.store.claim("w", 1000, free)!;
    s.store.retry(t.id, "w", s.now() + 5000);
    expect(s.store.claim("w", 1000, free)).toBeUndefined();
    s.tick(5000);
    expect(s.store.claim("w", 1000, free)!.attempts).toBe(2);
  });

  test("cancel drops queued tasks, discards running results and announces it", () => {
    const s = setup();
    const job = newJob(s, [page("http://a.test/1"), page("http://a.test/2")]);
    const t = s.store.claim("w", 1000, free)!;
    expect(s.store.cancel(job.id)).toBe(true);
    expect(s.store.complete(t.id, "w", { document: {}, credits: 1 })).toBe(false);
    expect(s.store.get(job.id)!.status).toBe("cancelled");
    expect(s.store.claim("w", 1000, free)).toBeUndefined();
    expect(s.events.at(-1)!.event).toBe("cancelled");
    expect(s.store.cancel(job.id)).toBe(false);
  });

  test("an idempotency key can be used once per key", () => {
    const s = setup();
    newJob(s, [page("http://a.test/1")], "crawl", "idem-1");
    expect(() => newJob(s, [page("http://a.test/1")], "crawl", "idem-1")).toThrow(IdempotencyConflictError);
  });

  test("an empty batch completes at once; appending reopens a completed batch", () => {
    const s = setup();
    const job = newJob(s, []);
    expect(s.store.get(job.id)!.status).toBe("completed");
    s.store.reopenAndEnqueue(job.id, [page("http://a.test/1")]);
    expect(s.store.get(job.id)!).toMatchObject({ status: "scraping", total: 1 });
  });

  test("result pages respect skip/limit and the 10 MiB budget; failed pages are consumed without data", () => {
    const s = setup();
    const job = newJob(s, Array.from({ length: 5 }, (_, i) => page(`http://a.test/${i}`)));
    const big = "x".repeat(4 * 1024 * 1024);
    for (let i = 0; i < 5; i++) {
      const t = s.store.claim("w", 1000, free)!;
      if (i === 1) s.store.fail(t.id, "w", { code: "SCRAPE_TIMEOUT", status: 408, message: "slow" });
      else s.store.complete(t.id, "w", { document: { markdown: big, n: i }, credits: 1 });
    }
    const p1 = s.results.page(job.id, 0);
    expect(p1.data.map((d) => d.n)).toEqual([0, 2]);
    expect(p1.consumed).toBe(3);
    const p2 = s.results.page(job.id, p1.consumed);
    expect(p2.data.map((d) => d.n)).toEqual([3, 4]);
    expect(s.results.page(job.id, 0, 1).data.length).toBe(1);
    expect(s.results.errors(job.id).errors).toEqual([
      expect.objectContaining({ url: "http://a.test/1", code: "SCRAPE_TIMEOUT", error: "slow" }),
    ]);
  });
});

describe("per-host give-up", () => {
  test("after N failed attempts in a row the host's queued pages fail; a success resets the count", () => {
    const s = setup();
    const job = newJob(s, [page("http://dead.test/1"), page("http://dead.test/2"), page("http://dead.test/3"), page("http://ok.test/1")]);
    expect(s.store.recordHostOutcome(job.id, "dead.test", false, 3)).toBe(0);
    expect(s.store.recordHostOutcome(job.id, "dead.test", true, 3)).toBe(0);
    expect(s.store.recordHostOutcome(job.id, "dead.test", false, 3)).toBe(0);
    expect(s.store.recordHostOutcome(job.id, "dead.test", false, 3)).toBe(0);
    expect(s.store.recordHostOutcome(job.id, "dead.test", false, 3)).toBe(3);
    const errors = s.results.errors(job.id).errors;
    expect(errors.map((e) => e.code)).toEqual(["SCRAPE_HOST_GAVE_UP", "SCRAPE_HOST_GAVE_UP", "SCRAPE_HOST_GAVE_UP"]);
    expect(s.store.claim("w", 1000, free)!.host).toBe("ok.test");
  });

  test("only attempts the host did not answer count: network errors and timeouts, not an HTTP answer (5xx, 429) nor an LLM's failure", () => {
    // As the task runner reports them: an HTTP answer carries its status.
    const retry = (reason: string) => ({ kind: "retry" as const, notBefore: 0, reason, ...(/^HTTP (\d{3})$/.test(reason) ? { httpStatus: Number(reason.slice(5)) } : {}) });
    const failed = (error: CrawlboxError) => ({ kind: "failed" as const, error });
    const cases: [string, boolean][] = [
      ["HTTP 500", attemptSaysHostDown(retry("HTTP 500"))],
      ["HTTP 503", attemptSaysHostDown(retry("HTTP 503"))],
      ["HTTP 429", attemptSaysHostDown(retry("HTTP 429"))],
      ["retried SCRAPE_SITE_ERROR", attemptSaysHostDown(retry("SCRAPE_SITE_ERROR"))],
      ["retried SCRAPE_TIMEOUT", attemptSaysHostDown(retry("SCRAPE_TIMEOUT"))],
      ["retried LLM_UNAVAILABLE", attemptSaysHostDown(retry("LLM_UNAVAILABLE"))],
      ["final connection refused", attemptSaysHostDown(failed(new SiteError("SCRAPE_SITE_ERROR", "Could not connect (ECONNREFUSED).")))],
      ["final DNS failure", attemptSaysHostDown(failed(new SiteError("SCRAPE_DNS_RESOLUTION_ERROR", "DNS resolution failed.")))],
      ["final timeout", attemptSaysHostDown(failed(new ScrapeTimeoutError(1000)))],
      ["unsupported file", attemptSaysHostDown(failed(new UnsupportedFileError("application/x-elf")))],
    ];
    expect(cases).toEqual([
      ["HTTP 500", false],
      ["HTTP 503", false],
      ["HTTP 429", false],
      ["retried SCRAPE_SITE_ERROR", true],
      ["retried SCRAPE_TIMEOUT", true],
      ["retried LLM_UNAVAILABLE", false],
      ["final connection refused", true],
      ["final DNS failure", true],
      ["final timeout", true],
      ["unsupported file", false],
    ]);
  });
});

describe("JobResults query plans", () => {
  test("a status poll walks the completion index, not the whole task table (no scan, no sort)", () => {
    const s = setup();
    const plan = s.db
      .query<{ detail: string }, [string, number, number]>(`EXPLAIN QUERY PLAN ${RESULT_PAGE_SQL}`)
      .all("job", 1, 0)
      .map((r) => r.detail)
      .join(" | ");
    expect(plan).toContain("USING INDEX tasks_job_done (job_id=? AND done_seq>?)");
    expect(plan).not.toContain("SCAN tasks");
    expect(plan).not.toContain("TEMP B-TREE");
  });

  test("queue-status's last success reads the key's jobs, then their done tasks (not every done task of the server)", () => {
    const s = setup();
    // Statistics as a busy server's would be after ANALYZE: many done tasks, few jobs per key.
    s.db.exec("ANALYZE; INSERT OR REPLACE INTO sqlite_stat1 VALUES ('tasks', 'tasks_claim', '300000 100000 1 1')");
    const plan = s.db
      .query<{ detail: string }, [string, number]>(`EXPLAIN QUERY PLAN ${LAST_PAGE_SQL}`)
      .all("k", 0)
      .map((r) => r.detail)
      .join(" | ");
    expect(plan).toMatch(/^SEARCH j USING (COVERING )?INDEX jobs_key_status \(key_id=\?\) \| SEARCH t USING INDEX tasks_job_status/);
  });
});

describe("changeTracking's hidden re-checks and the crawl's page identity", () => {
  test("with ignoreQueryParameters, /a?sid=111 then /a?sid=222 is one page seen again, not a hidden re-check", async () => {
    const { createCrawlPlanner } = await import("../../src/jobs/crawl-planner.ts");
    const { ChangeHistory } = await import("../../src/change-tracking/history.ts");
    const { createHiddenRecheckHook } = await import("../../src/change-tracking/crawl-recheck.ts");
    const s = setup();
    s.store.setDrainHook(createHiddenRecheckHook(s.db, new ChangeHistory(s.db), s.now));
    const planner = createCrawlPlanner({ engine: { fetch: async () => { throw new Error("offline"); } }, robots: {} as never, log: silentLogger });
    const options = { crawlerOptions: { ignoreQueryParameters: true, ignoreRobotsTxt: true, sitemap: "skip" }, scrapeOptions: { formats: [{ type: "markdown" }, { type: "changeTracking" }] } } as never;
    const crawl = async (id: string, sid: string) => {
      s.tick(1000);
      const tasks = planner.initialTasks("https://x.test/", { ignoreQueryParameters: true, ignoreRobotsTxt: true, sitemap: "skip" });
      s.store.createJob({ id, kind: "crawl", keyId: "k", status: "scraping", url: "https://x.test/", options, publicBaseUrl: "http://x", createdAt: s.now(), expiresAt: s.now() + 1e9 }, tasks);
      const fetched: string[] = [];
      for (let t = s.store.claim("w", 1000, free); t; t = s.store.claim("w", 1000, free)) {
        fetched.push(t.url);
        const links = t.depth === 0 ? [`https://x.test/a?sid=${sid}`] : [];
        const d = await planner.discover(s.store.get(id)!, t, links, new AbortController().signal);
        s.store.complete(t.id, "w", { document: { metadata: {} }, credits: 1, discovered: d.discovered });
      }
      return fetched;
    };
    expect(await crawl("c1", "111")).toEqual(["https://x.test/", "https://x.test/a?sid=111"]);
    expect(await crawl("c2", "222")).toEqual(["https://x.test/", "https://x.test/a?sid=222"]);
  });
});
