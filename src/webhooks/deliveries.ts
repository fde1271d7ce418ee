/**
 * @module webhooks/deliveries
 * The read side of the outbox for `GET /v2/webhooks/deliveries?jobId=`: every event of a job with its attempts,
 * in enqueue order. Scoped by key: a job whose events belong to another key looks exactly like a job without
 * events, so the route reveals nothing about other keys' jobs. Custom headers and bodies are never returned.
 *
 * A pending event says what it waits for ({@link WebhookDelivery.waitingFor}), by the dispatcher's own order rules
 * (webhooks/next-deliveries): a job's `completed` held back until its earlier events settle used to be listed with
 * `nextAttemptAt` in the past and no attempt, for up to 21 minutes, as if the dispatcher had forgotten it.
 */
import type { Database } from "bun:sqlite";
import { heldByJobOrder } from "./next-deliveries.ts";

/** Largest page of deliveries. */
export const MAX_DELIVERIES_PAGE_SIZE = 1000;

/** One attempt to deliver an event. */
export interface WebhookDeliveryAttempt {
  /** 1-based. */
  attempt: number;
  startedAt: string;
  /** `null` while in flight. */
  finishedAt: string | null;
  /** The receiver's HTTP status, when it answered. */
  statusCode: number | null;
  /** Why the attempt failed (timeout, network, redirect, HTTP status, egress), `null` on success. */
  error: string | null;
  durationMs: number | null;
}

/** One event and its delivery state. */
export interface WebhookDelivery {
  /** The payload's `webhookId` and the `webhook-id` header (the same on every attempt). */
  webhookId: string;
  /** e.g. `crawl.page`. */
  type: string;
  url: string;
  /** `pending` (waiting or retrying), `delivered` (a 2xx was received) or `failed` (retries exhausted or refused). */
  status: "pending" | "delivered" | "failed";
  createdAt: string;
  /**
   * When a pending event is due: the time of its first attempt (its creation) or of its next retry. `null` once it is
   * settled, and while it waits for earlier events of its job ({@link waitingFor} `earlier-events`): it has no time then.
   */
  nextAttemptAt: string | null;
  /**
   * What a pending event waits for (`null` once settled): `receiver` (an attempt is in flight), `earlier-events` (its
   * job's earlier events go first: a job's end waits until they are delivered or failed for good, any other event until
   * they were sent once), `retry-time` (its next attempt, at {@link nextAttemptAt}), or `slot` (it is due and goes as
   * soon as a delivery slot is free: per job, per destination and in all, webhooks/next-deliveries).
   */
  waitingFor: WaitingFor | null;
  /** When it was delivered or marked failed. */
  settledAt: string | null;
  lastError: string | null;
  attempts: WebhookDeliveryAttempt[];
}

/** What a pending delivery waits for; see {@link WebhookDelivery.waitingFor}. */
export type WaitingFor = "receiver" | "earlier-events" | "retry-time" | "slot";

/** A page of deliveries; `total` counts every event of the job. */
export interface DeliveryPage {
  total: number;
  deliveries: WebhookDelivery[];
}

type EventRow = {
  seq: number; id: string; type: string; url: string; state: WebhookDelivery["status"]; created_at: number;
  next_attempt_at: number | null; settled_at: number | null; last_error: string | null;
  /** 1 when pending and held back by its job's order rules. */
  held: number;
};
type AttemptRow = {
  event_seq: number; attempt: number; started_at: number; finished_at: number | null; status_code: number | null;
  error: string | null; duration_ms: number | null;
};

/**
 * How many events job `?1` has for key `?2`: counted in index webhook_events_job_key (storage/migrations/38), without
 * reading the rows. Exported so tests can check its plan.
 */
export const DELIVERIES_TOTAL_SQL = "SELECT COUNT(*) AS total FROM webhook_events WHERE job_id = ?1 AND key_id = ?2";

/**
 * One page of job `?1`'s events for key `?2`, `?3` rows from offset `?4`, in seq order. Exported so tests can check its
 * plan: it must read index webhook_events_job_key (storage/migrations/38), which is in this order, and not sort. With
 * the job's other indexes (`state` before seq) every page read and sorted all of the job's events, computing `held`
 * for each pending one: with 20,000 events 7-25 ms a page, the later the slower; now 1-3 ms, the skipped rows stepped
 * over in the index. `held` compares each row with the job's first barring event, looked up once per query
 * (heldByJobOrder): asked per row, "does an earlier event bar it" walked every earlier event with an attempt, and a
 * job of 20,000 events whose pages each had an interrupted attempt took up to 69 s a page.
 */
export const DELIVERIES_PAGE_SQL = `SELECT seq, id, type, url, state, created_at, next_attempt_at, settled_at, last_error,
       (state = 'pending' AND ${heldByJobOrder("e", "?1")}) AS held
  FROM webhook_events e
 WHERE job_id = ?1 AND key_id = ?2 ORDER BY seq LIMIT ?3 OFFSET ?4`;

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** What pending event `e` waits for, given its attempts and the time `nowMs`. */
function waitingFor(e: EventRow, attempts: WebhookDeliveryAttempt[], nowMs: number): WaitingFor | null {
  if (e.state !== "pending") return null;
  if (attempts.length > 0 && attempts[attempts.length - 1]!.finishedAt === null) return "receiver";
  if (e.held) return "earlier-events";
  return e.next_attempt_at !== null && e.next_attempt_at > nowMs ? "retry-time" : "slot";
}

/**
 * Deliveries of `jobId` owned by `keyId`, oldest first. `limit` defaults to and is capped at 1000. `nowMs` (the
 * dispatcher's clock) tells a retry still to come from one that is due.
 */
export function listWebhookDeliveries(
  db: Database,
  jobId: string,
  keyId: string,
  page: { skip?: number; limit?: number } = {},
  nowMs: number = Date.now(),
): DeliveryPage {
  const skip = Math.max(0, page.skip ?? 0);
  const limit = Math.min(MAX_DELIVERIES_PAGE_SIZE, Math.max(1, page.limit ?? MAX_DELIVERIES_PAGE_SIZE));
  const { total } = db.query<{ total: number }, [string, string]>(DELIVERIES_TOTAL_SQL).get(jobId, keyId)!;
  const events = db.query<EventRow, [string, string, number, number]>(DELIVERIES_PAGE_SQL).all(jobId, keyId, limit, skip);
  if (events.length === 0) return { total, deliveries: [] };
  // The page's own events, not the page sorted out of the job's events a second time.
  const attempts = db
    .query<AttemptRow, [string]>(
      `SELECT event_seq, attempt, started_at, finished_at, status_code, error, duration_ms FROM webhook_attempts
        WHERE event_seq IN (SELECT value FROM json_each(?)) ORDER BY event_seq, attempt`,
    )
    .all(JSON.stringify(events.map((e) => e.seq)));
  const bySeq = new Map<number, WebhookDeliveryAttempt[]>();
  for (const a of attempts) {
    let list = bySeq.get(a.event_seq);
    if (!list) bySeq.set(a.event_seq, (list = []));
    list.push({
      attempt: a.attempt,
      startedAt: iso(a.started_at)!,
      finishedAt: iso(a.finished_at),
      statusCode: a.status_code,
      error: a.error,
      durationMs: a.duration_ms,
    });
  }
  return {
    total,
    deliveries: events.map((e) => {
      const tried = bySeq.get(e.seq) ?? [];
      const waiting = waitingFor(e, tried, nowMs);
      return {
        webhookId: e.id,
        type: e.type,
        url: e.url,
        status: e.state,
        createdAt: iso(e.created_at)!,
        nextAttemptAt: e.state === "pending" && waiting !== "earlier-events" ? iso(e.next_attempt_at) : null,
        waitingFor: waiting,
        settledAt: iso(e.settled_at),
        lastError: e.last_error,
        attempts: tried,
      };
    }),
  };
}
