/**
 * Claim benchmark: how long leasing the next task takes as the queue grows, when its head is all one busy host (a
 * large batch of one site, the per-host limit reached) and the runnable task is at the end, and when it is not
 * busy. Compares, on the same SQLite file in one run, the claim as it was made before (one query over the whole
 * queue, then the lease written, in one transaction: reproduced here) with the store's claim (jobs/task-leases.ts:
 * the queue's head, then one seek per (job, host) group), alternating; both lease the same task every time.
 *
 *   bun scripts/bench/claim.ts [--sizes 1000,20000,100000] [--rounds 50]
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteJobStore } from "../../src/jobs/sqlite-store.ts";
import type { NewTask } from "../../src/jobs/types.ts";
import { openDatabase } from "../../src/storage/database.ts";

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : def;
};
const SIZES = arg("sizes", "1000,20000,100000").split(",").map(Number);
const ROUNDS = Number(arg("rounds", "50"));

const REFERENCE = `SELECT * FROM tasks WHERE status = 'queued' AND not_before <= ?
    AND host NOT IN (SELECT value FROM json_each(?)) AND job_id NOT IN (SELECT value FROM json_each(?))
    AND (job_id || ' ' || host) NOT IN (SELECT value FROM json_each(?))
  ORDER BY created_at, seq LIMIT 1`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** The claim before groups: the whole-queue query and the lease, in one BEGIN IMMEDIATE transaction. */
function wholeQueueClaim(db: Database, t: number, busyHosts: string[]): string | undefined {
  db.exec("BEGIN IMMEDIATE");
  try {
    const row = db.query(REFERENCE).get(t, JSON.stringify(busyHosts), "[]", "[]") as { id: string } | null;
    if (row) db.query("UPDATE tasks SET status = 'active', lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1 WHERE id = ?").run("w", t + 60_000, row.id);
    db.exec("COMMIT");
    return row?.id;
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
}

/** Puts a leased task back in the queue, as it was. */
const unlease = (db: Database, id: string) =>
  db.query("UPDATE tasks SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, attempts = attempts - 1 WHERE id = ?").run(id);

console.log(`# Claim benchmark (${new Date().toISOString().slice(0, 10)}, bun ${Bun.version}, ${ROUNDS} claims per size)\n`);
console.log("| queued tasks of the busy host | before, ms | claim, ms | before / claim | the same queue, host not busy: before, ms | claim, ms |");
console.log("|---:|---:|---:|---:|---:|---:|");
for (const n of SIZES) {
  const dir = mkdtempSync(join(tmpdir(), "crawlbox-claim-"));
  const db: Database = openDatabase(dir);
  let clock = 1_000_000;
  const store = new SqliteJobStore(db, () => {}, () => clock);
  const job = store.createJob({ id: "big", kind: "batch", keyId: "k", status: "scraping", url: null, options: { scrapeOptions: {} }, publicBaseUrl: "http://x", createdAt: clock, expiresAt: clock + 1e12 }, []);
  const tasks: NewTask[] = Array.from({ length: n }, (_, i) => ({ kind: "page", url: `http://busy.test/${i}`, dedupKey: String(i), depth: 0 }));
  for (let i = 0; i < tasks.length; i += 5_000) store.reopenAndEnqueue(job.id, tasks.slice(i, i + 5_000));
  const other = store.createJob({ id: "small", kind: "batch", keyId: "k", status: "scraping", url: null, options: { scrapeOptions: {} }, publicBaseUrl: "http://x", createdAt: clock, expiresAt: clock + 1e12 }, []);
  const limits = { busyHosts: ["busy.test"], busyJobs: [], busyJobHosts: [] };
  const none = { busyHosts: [], busyJobs: [], busyJobHosts: [] };
  const before = { busy: [] as number[], free: [] as number[] };
  const now = { busy: [] as number[], free: [] as number[] };
  /** Leases the next task both ways in turn (the same one, checked), timing each; the task is then settled. */
  const timeBoth = (which: "busy" | "free", claimLimits: typeof limits) => {
    let t = performance.now();
    const expected = wholeQueueClaim(db, clock, claimLimits.busyHosts);
    before[which].push(performance.now() - t);
    unlease(db, expected!);
    t = performance.now();
    const leased = store.claim("w", 60_000, claimLimits);
    now[which].push(performance.now() - t);
    if (leased?.id !== expected) throw new Error(`claim leased ${leased?.id}, the whole-queue claim ${expected}`);
    db.query("UPDATE tasks SET status = 'done' WHERE id = ?").run(leased!.id);
  };
  for (let r = 0; r < ROUNDS; r++) {
    // One runnable task at the end of the queue (queued later than the busy host's).
    clock += 1;
    store.reopenAndEnqueue(other.id, [{ kind: "page", url: `http://free.test/${r}`, dedupKey: `free${r}`, depth: 0 }]);
    timeBoth("busy", limits);
    // The common case: the queue's first task is runnable (no host busy).
    timeBoth("free", none);
  }
  const a = median(before.busy);
  const b = median(now.busy);
  console.log(`| ${n.toLocaleString("en")} | ${a.toFixed(3)} | ${b.toFixed(3)} | ${(a / b).toFixed(1)}× | ${median(before.free).toFixed(3)} | ${median(now.free).toFixed(3)} |`);
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
