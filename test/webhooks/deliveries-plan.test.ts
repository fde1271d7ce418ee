/**
 * The deliveries listing reads a page of a job's events in index order (webhook_events_job_key, migration 38), not by
 * sorting all of the job's events for every page: with 20,000 events a page took 7-25 ms, the later the slower. The
 * plan is checked on the statements the listing actually runs (recorded from the real database), not on a copy of
 * their text; a randomized check holds the pages to what the sorting plan returned (the index dropped).
 */
import type { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { immediate } from "../../src/storage/database.ts";
import { listWebhookDeliveries } from "../../src/webhooks/index.ts";
import { tempDb, type TempDb } from "./helpers.ts";

const T0 = 1_700_000_000_000;
const NOW = T0 + 100_000;

const dbs: TempDb[] = [];
afterEach(() => {
  for (const t of dbs.splice(0)) t.cleanup();
});

function freshDb(): Database {
  const t = tempDb();
  dbs.push(t);
  return t.db;
}

/** Lines of `EXPLAIN QUERY PLAN sql` with `params`. */
function plan(db: Database, sql: string, params: unknown[]): string[] {
  return (db.query(`EXPLAIN QUERY PLAN ${sql}`).all(...(params as [])) as { detail: string }[]).map((r) => r.detail);
}

/** The SQL texts `db.query` is given while `f` runs on the real database. */
function statementsOf(db: Database, f: () => unknown): string[] {
  const seen: string[] = [];
  const query = db.query.bind(db);
  db.query = ((sql: string) => {
    seen.push(sql);
    return query(sql);
  }) as Database["query"];
  try {
    f();
  } finally {
    db.query = query;
  }
  return seen;
}

/** A random outbox: jobs of two keys, every state, attempts finished and in flight, ends anywhere. */
function randomOutbox(db: Database, random: () => number, events: number): void {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const insert = db.query(
    `INSERT INTO webhook_events (id, job_id, key_id, type, url, headers, body, state, failures, created_at, next_attempt_at, settled_at, last_error)
     VALUES (?, ?, ?, ?, 'http://127.0.0.1:9/hook', '{}', ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
  );
  const attempt = db.query(
    `INSERT INTO webhook_attempts (event_seq, attempt, started_at, finished_at, status_code, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const types = ["crawl.started", "crawl.page", "crawl.page", "crawl.page", "crawl.completed", "crawl.failed", "batch_scrape.cancelled"];
  immediate(db, () => {
    for (let i = 0; i < events; i++) {
      const state = pick(["pending", "pending", "delivered", "failed"] as const);
      const failures = state === "pending" ? pick([0, 0, 1]) : state === "failed" ? 3 : 0;
      const next = state === "pending" ? NOW + pick([-1000, 0, 60_000]) : null;
      // job-9 belongs to key-2 only; job-1 has a few key-2 rows, which key-1's listing must not show.
      const job = pick(["job-1", "job-1", "job-1", "job-2", "job-9"]);
      const key = job === "job-9" || random() < 0.05 ? "key-2" : "key-1";
      const { seq } = insert.get(
        crypto.randomUUID(), job, key, pick(types), state === "pending" ? "{}" : null, state, failures, T0 + i, next,
        state === "pending" ? null : T0 + i + 10, failures > 0 ? "HTTP 500" : null,
      ) as { seq: number };
      const tries = failures + (state === "delivered" ? 1 : pick([0, 0, 1]));
      for (let k = 1; k <= tries; k++) {
        const inFlight = state === "pending" && k === tries && random() < 0.3;
        attempt.run(seq, k, T0 + i + k, inFlight ? null : T0 + i + k + 5, inFlight ? null : k === tries && state === "delivered" ? 200 : 500,
          inFlight || (k === tries && state === "delivered") ? null : "HTTP 500", inFlight ? null : 5);
      }
    }
  });
}

describe("the deliveries listing's plan", () => {
  test("a page reads the job's events in index order: no sort, the count from the index alone", () => {
    const db = freshDb();
    randomOutbox(db, () => 0.5, 50);
    const statements = statementsOf(db, () => listWebhookDeliveries(db, "job-1", "key-1", { skip: 10, limit: 20 }, NOW));
    const page = statements.find((s) => /FROM webhook_events e\b/.test(s) && /ORDER BY seq/.test(s));
    const count = statements.find((s) => /COUNT\(\*\)/.test(s));
    expect(page).toBeDefined();
    expect(count).toBeDefined();

    const pagePlan = plan(db, page!, ["job-1", "key-1", 20, 10]);
    // Before migration 38: "SEARCH e USING INDEX webhook_events_job (job_id=?)" and "USE TEMP B-TREE FOR ORDER BY".
    expect(pagePlan).toContain("SEARCH e USING INDEX webhook_events_job_key (job_id=? AND key_id=?)");
    expect(pagePlan.filter((d) => d.includes("TEMP B-TREE"))).toEqual([]);
    expect(plan(db, count!, ["job-1", "key-1"])).toEqual(["SEARCH webhook_events USING COVERING INDEX webhook_events_job_key (job_id=? AND key_id=?)"]);
  });
});

describe("the deliveries listing's pages", () => {
  test("are what the sorting plan returned, on random outboxes and pages", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let listed = 0;
    const waiting = new Set<string | null>();
    for (let round = 0; round < 12; round++) {
      const db = freshDb();
      randomOutbox(db, random, 40 + Math.floor(random() * 160));
      const pages: [string, string, number, number][] = [];
      for (const [job, key] of [["job-1", "key-1"], ["job-1", "key-2"], ["job-2", "key-1"], ["job-9", "key-2"], ["job-9", "key-1"], ["job-none", "key-1"]] as const) {
        pages.push([job, key, 0, 1000]);
        for (let k = 0; k < 4; k++) pages.push([job, key, Math.floor(random() * 150), 1 + Math.floor(random() * 40)]);
        // Walking the job page by page, as a client does.
        for (let skip = 0; skip < 160; skip += 25) pages.push([job, key, skip, 25]);
      }
      const list = () => pages.map(([job, key, skip, limit]) => listWebhookDeliveries(db, job, key, { skip, limit }, NOW));
      const indexed = list();
      const seqs = db.query<{ seq: number; job_id: string; key_id: string }, []>("SELECT seq, job_id, key_id FROM webhook_events ORDER BY seq").all();
      // Each page is the job's own events for the key in seq order, sliced; `total` counts them all.
      pages.forEach(([job, key, skip, limit], i) => {
        const own = seqs.filter((r) => r.job_id === job && r.key_id === key);
        expect(indexed[i]!.total).toBe(own.length);
        expect(indexed[i]!.deliveries.map((d) => d.createdAt)).toEqual(own.slice(skip, skip + limit).map((r) => new Date(T0 + r.seq - seqs[0]!.seq).toISOString()));
        listed += indexed[i]!.deliveries.length;
        for (const d of indexed[i]!.deliveries) waiting.add(d.waitingFor);
      });

      db.exec("DROP INDEX IF EXISTS webhook_events_job_key");
      const page = statementsOf(db, () => listWebhookDeliveries(db, "job-1", "key-1", {}, NOW)).find((s) => /ORDER BY seq/.test(s))!;
      expect(plan(db, page, ["job-1", "key-1", 1000, 0])).toContain("USE TEMP B-TREE FOR ORDER BY");
      const sorted = list();
      expect(sorted).toEqual(indexed);
    }
    expect(listed).toBeGreaterThan(2000);
    expect(waiting).toEqual(new Set([null, "receiver", "earlier-events", "retry-time", "slot"]));
  });
});
