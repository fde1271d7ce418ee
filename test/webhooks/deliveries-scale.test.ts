/**
 * A job's events whose first tries were interrupted (pending, no failure yet, an attempt row: the process stopped or
 * could not record the outcome) cost the deliveries listing and the dispatcher's due query about what unsent events
 * cost. Both used to ask, for every row, whether an earlier event bars it, by walking the job's earlier first-try
 * events past every one with an attempt: with 20,000 such events a due query took 65-113 s (each poll; the process
 * stalled) and the listing's last page 69 s. The order rules are now judged once per job (webhooks/next-deliveries heldBy).
 *
 * The cost checks compare two same-size jobs in the same run, interrupted against unsent, not a time bound; a
 * randomized check holds both queries to the order rules written out in plain code.
 */
import type { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { immediate } from "../../src/storage/database.ts";
import { enqueueWebhookEvent, listWebhookDeliveries, type WebhookEventName } from "../../src/webhooks/index.ts";
import { prepareDueQuery } from "../../src/webhooks/next-deliveries.ts";
import { eventInput, tempDb, type TempDb } from "./helpers.ts";

const URL = "http://127.0.0.1:9/hook";
const T0 = 1_700_000_000_000;
/** Events per job in the cost checks: the old per-row walk made the interrupted job ~300× slower than the unsent one. */
const EVENTS = 4000;

const dbs: TempDb[] = [];
afterEach(() => {
  for (const t of dbs.splice(0)) t.cleanup();
});

function freshDb(): Database {
  const t = tempDb();
  dbs.push(t);
  return t.db;
}

/** Event `type` of `job` enqueued at `T0 + i`; returns its seq. */
function enqueue(db: Database, job: string, event: WebhookEventName, i: number): number {
  const id = enqueueWebhookEvent(db, eventInput(URL, { jobId: job, event }), { now: T0 + i })!;
  return db.query<{ seq: number }, [string]>("SELECT seq FROM webhook_events WHERE id = ?").get(id)!.seq;
}

/** What the dispatcher records: an attempt, and for a 2xx the event delivered; `interrupted` leaves it pending. */
function attempt(db: Database, seq: number, outcome: "delivered" | "interrupted", at: number): void {
  db.query(
    `INSERT INTO webhook_attempts (event_seq, attempt, started_at, finished_at, status_code, error, duration_ms)
     VALUES (?1, (SELECT COALESCE(MAX(attempt), 0) + 1 FROM webhook_attempts WHERE event_seq = ?1), ?2, ?2, ?3, ?4, 0)`,
  ).run(seq, at, outcome === "delivered" ? 200 : null, outcome === "delivered" ? null : "interrupted: the process stopped");
  if (outcome === "delivered") {
    db.query("UPDATE webhook_events SET state = 'delivered', body = NULL, next_attempt_at = NULL, settled_at = ? WHERE seq = ?").run(at, seq);
  }
}

/** A crawl of `events` events: started (delivered), the pages (each interrupted once, or never sent), completed. */
function crawl(db: Database, job: string, events: number, pages: "interrupted" | "unsent"): void {
  immediate(db, () => {
    attempt(db, enqueue(db, job, "started", 0), "delivered", T0);
    for (let i = 1; i < events - 1; i++) {
      const seq = enqueue(db, job, "page", i);
      if (pages === "interrupted") attempt(db, seq, "interrupted", T0 + i);
    }
    enqueue(db, job, "completed", events - 1);
  });
}

/** Fastest of `runs` timings of `f`, in ms. */
function fastestMs(f: () => unknown, runs = 3): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    f();
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

const NOW = T0 + EVENTS + 1;
const dueArgs = { now: NOW, fullJobs: [], fullDestinations: [], skipSeqs: [], perDestination: 4, perJob: 4, limit: 16 };

describe("a job whose pages each had an interrupted attempt", () => {
  test("its last page of deliveries costs about what an unsent job's does, and says each page waits for a slot", () => {
    const interrupted = freshDb();
    const unsent = freshDb();
    crawl(interrupted, "job-1", EVENTS, "interrupted");
    crawl(unsent, "job-1", EVENTS, "unsent");
    const lastPage = (db: Database) => listWebhookDeliveries(db, "job-1", "key-1", { skip: EVENTS - 1000 }, NOW);

    const page = lastPage(interrupted);
    expect(page.total).toBe(EVENTS);
    expect(page.deliveries).toHaveLength(1000);
    // Nothing earlier bars the pages (each was sent once); the end waits for them to settle, with no time.
    const completed = page.deliveries.pop()!;
    expect([completed.type, completed.waitingFor, completed.nextAttemptAt]).toEqual(["crawl.completed", "earlier-events", null]);
    expect(new Set(page.deliveries.map((d) => `${d.type} ${d.waitingFor} ${d.attempts.length} ${d.attempts[0]?.error?.slice(0, 11)}`))).toEqual(
      new Set(["crawl.page slot 1 interrupted"]),
    );
    expect(page.deliveries[0]!.nextAttemptAt).toBe(new Date(T0 + EVENTS - 1000).toISOString());
    // The unsent job's pages wait for the first one to be sent.
    expect(lastPage(unsent).deliveries[0]!.waitingFor).toBe("earlier-events");

    const interruptedMs = fastestMs(() => lastPage(interrupted));
    const unsentMs = fastestMs(() => lastPage(unsent));
    // Walking every earlier event per row: ~300× (2.2 s against 7 ms); judged once per job: about 2× (6 and 3.5 ms).
    expect(interruptedMs).toBeLessThan(10 * Math.max(unsentMs, 5));
  }, 120_000);

  test("the dispatcher's due query costs about what it does for an unsent job, and picks the first pages", () => {
    const interrupted = freshDb();
    const unsent = freshDb();
    crawl(interrupted, "job-1", EVENTS, "interrupted");
    crawl(unsent, "job-1", EVENTS, "unsent");
    const dueInterrupted = prepareDueQuery(interrupted);
    const dueUnsent = prepareDueQuery(unsent);

    const first = interrupted.query<{ seq: number }, []>("SELECT MIN(seq) AS seq FROM webhook_events WHERE type = 'crawl.page'").get()!.seq;
    expect(dueInterrupted(dueArgs).map((r) => r.seq)).toEqual([first, first + 1, first + 2, first + 3]);
    expect(dueUnsent(dueArgs)).toHaveLength(1);

    const interruptedMs = fastestMs(() => dueInterrupted(dueArgs));
    const unsentMs = fastestMs(() => dueUnsent(dueArgs));
    // Per-row walk: ~400× (2.3 s against 5 ms); once per job: about 2× (8 and 4 ms: all its 3,998 pages are ranked).
    expect(interruptedMs).toBeLessThan(10 * Math.max(unsentMs, 5));
  }, 120_000);
});

/** A small random outbox: a few jobs, every state, first tries with and without attempts, terminal events anywhere. */
function randomOutbox(db: Database, random: () => number): void {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const types = ["crawl.started", "crawl.page", "crawl.page", "crawl.completed", "batch_scrape.failed", "crawl.cancelled", "monitor.check.completed"];
  const insert = db.query(
    `INSERT INTO webhook_events (id, job_id, key_id, type, url, headers, body, state, failures, created_at, next_attempt_at, settled_at)
     VALUES (?, ?, 'key-1', ?, ?, '{}', '{}', ?, ?, ?, ?, ?) RETURNING seq`,
  );
  immediate(db, () => {
    for (let i = 0, n = 1 + Math.floor(random() * 30); i < n; i++) {
      const state = pick(["pending", "pending", "pending", "delivered", "failed"] as const);
      const failures = state === "pending" ? pick([0, 0, 0, 1]) : 0;
      const next = state === "pending" ? NOW + pick([-1000, 0, 0, 60_000]) : null;
      const url = pick(["http://a.test/x", "http://a.test/y", "https://b.test/"]);
      const job = pick(["job-1", "job-2", "job-3"]);
      const settledAt = next === null ? NOW : null;
      const { seq } = insert.get(crypto.randomUUID(), job, pick(types), url, state, failures, T0 + i, next, settledAt) as { seq: number };
      for (let k = 0, tries = failures + pick([0, 0, 1, 2]); k < tries; k++) attempt(db, seq, "interrupted", T0 + i);
    }
  });
}

type Row = { seq: number; job_id: string; type: string; state: string; failures: number; next_attempt_at: number | null; attempts: number };

/** The order rules (webhooks/next-deliveries "Order") written out: is pending `e` held back by an earlier event? */
function heldByRules(e: Row, rows: Row[]): boolean {
  const earlier = rows.filter((p) => p.job_id === e.job_id && p.seq < e.seq && p.state === "pending");
  const bars = earlier.some((p) => p.failures === 0 && (p.type.endsWith(".started") || p.attempts === 0));
  const terminal = /\.(completed|failed|cancelled)$/.test(e.type);
  return bars || (terminal && earlier.length > 0);
}

describe("the order rules, judged once per job", () => {
  test("the listing's waitingFor and the due query's picks follow the rules on random outboxes", () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let held = 0;
    for (let round = 0; round < 60; round++) {
      const db = freshDb();
      randomOutbox(db, random);
      const rows = db
        .query<Row, []>(
          `SELECT seq, job_id, type, state, failures, next_attempt_at, (SELECT COUNT(*) FROM webhook_attempts a WHERE a.event_seq = e.seq) AS attempts
             FROM webhook_events e ORDER BY seq`,
        )
        .all();
      for (const job of ["job-1", "job-2", "job-3"]) {
        // Every attempt here finished, so no event waits for the receiver.
        const listed = listWebhookDeliveries(db, job, "key-1", {}, NOW).deliveries.map((d) => d.waitingFor === "earlier-events");
        expect(listed).toEqual(rows.filter((r) => r.job_id === job).map((r) => r.state === "pending" && heldByRules(r, rows)));
        held += listed.filter(Boolean).length;
      }
      const wide = { ...dueArgs, perDestination: 1000, perJob: 1000, limit: 1000 };
      const due = prepareDueQuery(db)(wide).map((r) => r.seq).sort((a, b) => a - b);
      const open = rows.filter((r) => r.state === "pending" && r.next_attempt_at! <= NOW && !heldByRules(r, rows)).map((r) => r.seq);
      expect(due).toEqual(open);
    }
    expect(held).toBeGreaterThan(50);
  });
});
