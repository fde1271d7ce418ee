/**
 * The job store under the worker pool: charging a page with its result, answers after a stop's abort, store
 * errors and a full disk, and a page that is running every time the process dies.
 */
import { describe, expect, test } from "bun:test";
import { WorkerPool } from "../../src/jobs/worker-pool.ts";
import { silentLogger } from "../../src/log.ts";
import { free, newJob, page, setup } from "./store-setup.ts";

describe("SqliteJobStore", () => {
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
    // The timer is cleared once the race is settled: left pending, it stalled later tests' `expect(...).rejects`
    // waits in this process for its 2 s (test/helpers/settled.ts).
    let timer: ReturnType<typeof setTimeout> | undefined;
    const hung = new Promise<string>((resolve) => (timer = setTimeout(() => resolve("hung"), 2_000)));
    const stopped = await Promise.race([pool.stop().then(() => "stopped"), hung]).finally(() => clearTimeout(timer));
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
});
