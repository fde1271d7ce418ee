/**
 * The shared set-up of the job store tests (store-leases, store-workers, store-queue): a migrated in-memory
 * database with a store, its results reader and a manual clock, and helpers that create jobs.
 */
import { Database } from "bun:sqlite";
import { SqliteJobStore } from "../../src/jobs/sqlite-store.ts";
import { JobResults } from "../../src/jobs/results.ts";
import type { JobEvent, NewTask } from "../../src/jobs/types.ts";
import { migrate } from "../../src/storage/database.ts";

/** A store on a fresh in-memory database; `events` records what it announces, `tick` moves its clock. */
export function setup() {
  const db = new Database(":memory:", { strict: true });
  db.exec("PRAGMA foreign_keys = ON");
  migrate(db);
  let clock = 1_000_000;
  const events: JobEvent[] = [];
  const store = new SqliteJobStore(db, (e) => events.push(e), () => clock);
  const results = new JobResults(db, () => clock);
  return { db, store, results, events, tick: (ms: number) => (clock += ms), now: () => clock };
}

/** A page task whose dedup key is its URL unless given. */
export const page = (url: string, key = url): NewTask => ({ kind: "page", url, dedupKey: key, depth: 0 });
/** Nothing busy: every queued task may be claimed. */
export const free = { busyHosts: [], busyJobs: [], busyJobHosts: [] };

/** Creates a running job of `kind` with `tasks` on key "k". */
export function newJob(s: ReturnType<typeof setup>, tasks: NewTask[], kind: "crawl" | "batch" = "batch", idem?: string) {
  return s.store.createJob(
    { id: crypto.randomUUID(), kind, keyId: "k", status: "scraping", url: null, options: { scrapeOptions: {} }, publicBaseUrl: "http://x", createdAt: s.now(), expiresAt: s.now() + 1000 },
    tasks,
    idem,
  );
}
