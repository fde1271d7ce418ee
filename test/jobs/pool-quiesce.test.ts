/**
 * A graceful stop's first step for crawl and batch pages (WorkerPool.quiesce, called by `serve` at SIGTERM): nothing
 * is claimed from then on, and the pages running finish and are recorded, so that the restart does not fetch them
 * again. Then `stop()` at the grace's end aborts what still runs and hands it back, its attempt given back, as before.
 * A real store on a migrated database; the runner is a page that takes a while.
 */
import { describe, expect, test } from "bun:test";
import { WorkerPool } from "../../src/jobs/worker-pool.ts";
import { silentLogger } from "../../src/log.ts";
import { newJob, page, setup } from "./store-setup.ts";

/** A runner whose pages end when `release(url)` is called, or abort with their signal; records what it ran. */
function slowPages() {
  const started: string[] = [];
  const waiting = new Map<string, () => void>();
  const run = async (task: { url: string }, _job: unknown, signal: AbortSignal) => {
    started.push(task.url);
    await new Promise<void>((resolve) => {
      waiting.set(task.url, resolve);
      signal.addEventListener("abort", () => resolve());
    });
    return { kind: "done", completion: { document: { markdown: task.url, metadata: {} }, credits: 1 } };
  };
  return { run: run as never, started, release: (url: string) => waiting.get(url)?.() };
}

async function until(what: () => boolean, limitMs = 2_000): Promise<void> {
  const end = performance.now() + limitMs;
  while (!what()) {
    if (performance.now() > end) throw new Error("timed out");
    await Bun.sleep(5);
  }
}

describe("WorkerPool.quiesce", () => {
  test("claims nothing more; the page running finishes and is stored, then stop() has nothing to abort", async () => {
    const s = setup();
    const job = newJob(s, [page("http://a.test/1"), page("http://a.test/2"), page("http://a.test/3")]);
    const pages = slowPages();
    const pool = new WorkerPool({ store: s.store, run: pages.run, log: silentLogger, concurrency: 1, perHostConcurrency: 1, pollMs: 5, now: s.now });
    pool.start();
    await until(() => pages.started.length === 1);
    let quiesced = false;
    const quiescing = pool.quiesce().then(() => (quiesced = true));
    pool.kick(); // new tasks are not claimed either
    await Bun.sleep(30);
    expect(quiesced).toBe(false); // it waits for the page running
    pages.release("http://a.test/1");
    await quiescing;
    expect(pool.active).toBe(0);
    await Bun.sleep(30);
    expect(pages.started).toEqual(["http://a.test/1"]);
    await pool.stop();
    const rows = s.db.query("SELECT url, status, attempts FROM tasks ORDER BY url").all();
    expect(rows).toEqual([
      { url: "http://a.test/1", status: "done", attempts: 1 },
      { url: "http://a.test/2", status: "queued", attempts: 0 },
      { url: "http://a.test/3", status: "queued", attempts: 0 },
    ]);
    expect(s.store.get(job.id)).toMatchObject({ status: "scraping", completed: 1, creditsUsed: 1 });
  });

  test("a page still running when stop() comes (the grace's end) is aborted and handed back with its attempt", async () => {
    const s = setup();
    newJob(s, [page("http://a.test/slow")]);
    const pages = slowPages();
    const pool = new WorkerPool({ store: s.store, run: pages.run, log: silentLogger, concurrency: 2, perHostConcurrency: 2, pollMs: 5, now: s.now });
    pool.start();
    await until(() => pages.started.length === 1);
    const quiescing = pool.quiesce();
    await Bun.sleep(20);
    await pool.stop();
    await quiescing;
    expect(s.db.query("SELECT status, attempts, stalls FROM tasks").get()).toEqual({ status: "queued", attempts: 0, stalls: 0 });
  });

  test("an idle pool quiesces at once", async () => {
    const s = setup();
    const pool = new WorkerPool({ store: s.store, run: slowPages().run, log: silentLogger, concurrency: 4, perHostConcurrency: 1, pollMs: 1_000, now: s.now });
    pool.start();
    const t0 = performance.now();
    await pool.quiesce();
    expect(performance.now() - t0).toBeLessThan(200);
    await pool.stop();
    await new WorkerPool({ store: s.store, run: slowPages().run, log: silentLogger, concurrency: 1, perHostConcurrency: 1 }).quiesce(); // never started
  });
});
