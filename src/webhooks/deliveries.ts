/**
 * @module webhooks/deliveries
 * The read side of the outbox for `GET /v2/webhooks/deliveries?jobId=`: every event of a job with its attempts,
 * in enqueue order. Scoped by key: a job whose events belong to another key looks exactly like a job without
 * events, so the route reveals nothing about other keys' jobs. Custom headers and bodies are never returned.
 */
import type { Database } from "bun:sqlite";

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
  /** When a pending event is sent next (it may also wait behind an earlier event of the same job). */
  nextAttemptAt: string | null;
  /** When it was delivered or marked failed. */
  settledAt: string | null;
  lastError: string | null;
  attempts: WebhookDeliveryAttempt[];
}

/** A page of deliveries; `total` counts every event of the job. */
export interface DeliveryPage {
  total: number;
  deliveries: WebhookDelivery[];
}

type EventRow = {
  seq: number; id: string; type: string; url: string; state: WebhookDelivery["status"]; created_at: number;
  next_attempt_at: number | null; settled_at: number | null; last_error: string | null;
};
type AttemptRow = {
  event_seq: number; attempt: number; started_at: number; finished_at: number | null; status_code: number | null;
  error: string | null; duration_ms: number | null;
};

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** Deliveries of `jobId` owned by `keyId`, oldest first. `limit` defaults to and is capped at 1000. */
export function listWebhookDeliveries(
  db: Database,
  jobId: string,
  keyId: string,
  page: { skip?: number; limit?: number } = {},
): DeliveryPage {
  const skip = Math.max(0, page.skip ?? 0);
  const limit = Math.min(MAX_DELIVERIES_PAGE_SIZE, Math.max(1, page.limit ?? MAX_DELIVERIES_PAGE_SIZE));
  const { total } = db
    .query<{ total: number }, [string, string]>("SELECT COUNT(*) AS total FROM webhook_events WHERE job_id = ? AND key_id = ?")
    .get(jobId, keyId)!;
  const events = db
    .query<EventRow, [string, string, number, number]>(
      `SELECT seq, id, type, url, state, created_at, next_attempt_at, settled_at, last_error FROM webhook_events
        WHERE job_id = ? AND key_id = ? ORDER BY seq LIMIT ? OFFSET ?`,
    )
    .all(jobId, keyId, limit, skip);
  if (events.length === 0) return { total, deliveries: [] };
  const attempts = db
    .query<AttemptRow, [string, string, number, number]>(
      `SELECT event_seq, attempt, started_at, finished_at, status_code, error, duration_ms FROM webhook_attempts
        WHERE event_seq IN (SELECT seq FROM webhook_events WHERE job_id = ? AND key_id = ? ORDER BY seq LIMIT ? OFFSET ?)
        ORDER BY event_seq, attempt`,
    )
    .all(jobId, keyId, limit, skip);
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
    deliveries: events.map((e) => ({
      webhookId: e.id,
      type: e.type,
      url: e.url,
      status: e.state,
      createdAt: iso(e.created_at)!,
      nextAttemptAt: e.state === "pending" ? iso(e.next_attempt_at) : null,
      settledAt: iso(e.settled_at),
      lastError: e.last_error,
      attempts: bySeq.get(e.seq) ?? [],
    })),
  };
}
