/**
 * A server killed (SIGKILL) while it stores a large batch a row per transaction (jobs/task-intake.ts) leaves a
 * half-written batch that never runs: the next start drops it, and nothing of it is ever queued, counted or listed.
 * A real `bun src/main.ts serve` on one data directory, restarted.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { restartableServer } from "./restart-helpers.ts";

const server = restartableServer();
afterAll(() => server.cleanup());

/** About what a 10 MiB body holds: its rows take the server ~0.1 s to write, long enough to be caught midway. */
const URLS = 264_000;

const open = () => new Database(join(server.dataDir, "crawlbox.sqlite"), { readonly: true });
const count = (db: Database, sql: string) => (db.query(sql).get() as { n: number }).n;

test("SIGKILL while a batch's rows are written: after the restart the half-written batch is gone, and none of its pages ever queued", async () => {
  await server.start();
  const body = JSON.stringify({ urls: Array.from({ length: URLS }, (_, i) => `http://127.0.0.1:9/p/${i}`) });
  let caught = false;
  // The server may finish a round before it is seen midway (a slow poll): a few tries.
  for (let attempt = 0; attempt < 4 && !caught; attempt++) {
    if (attempt > 0) await server.start();
    const db = open();
    const posted = fetch(`${server.api}/v2/batch/scrape`, { method: "POST", headers: { "content-type": "application/json" }, body }).catch(() => undefined);
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const rows = count(db, "SELECT COUNT(*) AS n FROM job_pending_tasks p JOIN job_intakes i ON i.intake = p.intake WHERE i.open = 1");
      if (rows > 0 && rows < Math.ceil(URLS / 2000)) {
        await server.kill();
        caught = true;
        break;
      }
      if (count(db, "SELECT COUNT(*) AS n FROM jobs WHERE status = 'scraping'") > 0) break; // accepted before it was caught
      await Bun.sleep(1);
    }
    if (!caught) await server.kill();
    await posted;
    db.close();
  }
  expect(caught).toBe(true);
  const before = open();
  expect(count(before, "SELECT COUNT(*) AS n FROM jobs WHERE status = 'creating'")).toBeGreaterThan(0);
  before.close();

  await server.start();
  const after = open();
  try {
    for (let i = 0; i < 200 && count(after, "SELECT COUNT(*) AS n FROM job_intakes WHERE open = 1") > 0; i++) await Bun.sleep(25);
    expect(count(after, "SELECT COUNT(*) AS n FROM jobs WHERE status = 'creating'")).toBe(0);
    expect(count(after, "SELECT COUNT(*) AS n FROM job_intakes WHERE open = 1")).toBe(0);
    // Batches accepted in earlier tries (if any) are whole; the half-written one left nothing.
    const kept = after.query<{ id: string; total: number }, []>("SELECT id, total FROM jobs").all();
    for (const job of kept) expect(job.total).toBe(URLS);
    const pendingOfGone = count(after, "SELECT COUNT(*) AS n FROM job_pending_tasks WHERE job_id NOT IN (SELECT id FROM jobs)");
    const tasksOfGone = count(after, "SELECT COUNT(*) AS n FROM tasks WHERE job_id NOT IN (SELECT id FROM jobs)");
    expect([pendingOfGone, tasksOfGone]).toEqual([0, 0]);
    const queue = await server.call("GET", "/v2/team/queue-status");
    expect(queue.jobsInQueue).toBeLessThanOrEqual(kept.length * URLS);
  } finally {
    after.close();
    await server.stop();
  }
}, 120_000);
