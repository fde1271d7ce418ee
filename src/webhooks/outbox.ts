/**
 * @module webhooks/outbox
 * The webhook outbox: one row per event in `webhook_events`, written by {@link enqueueWebhookEvent} inside the
 * job store's own `BEGIN IMMEDIATE` transaction, so an event exists if and only if the state change it announces
 * committed (reliability.md B2, "The ten things" item 3). The payload is serialised once here and stored: every
 * attempt sends the same bytes, with the same `webhookId`, so receivers can deduplicate.
 *
 * Delivery is someone else's job (dispatcher.ts); nothing here touches the network.
 */
import type { Database } from "bun:sqlite";

/** Job kinds that announce events; the event type is `<kind>.<event>` (api-v2.md §4). */
export type WebhookJobKind = "crawl" | "batch_scrape" | "extract" | "agent" | "monitor";
/**
 * Lifecycle events of a job (`page`: crawl and batch pages; `action`: each page an agent run reads;
 * `check.completed` / `check.failed`: a monitor's checks).
 */
export type WebhookEventName = "started" | "page" | "action" | "completed" | "failed" | "cancelled" | "check.completed" | "check.failed";

/**
 * The webhook of a job after normalisation (`src/api/webhook.ts` `Webhook`). Structural, so the job store can
 * pass what it keeps in its options without importing the API types.
 */
export interface WebhookTarget {
  url: string;
  headers: Record<string, string>;
  metadata: Record<string, string>;
  /** Filter of short or full event names; empty = every event. */
  events: readonly string[];
}

/** What the job store announces. */
export interface WebhookEventInput {
  jobId: string;
  /** Owner of the job: only this key sees the deliveries (`GET /v2/webhooks/deliveries`). */
  keyId: string;
  jobKind: WebhookJobKind;
  event: WebhookEventName;
  /** `false` on page failures, `failed` and `cancelled`. */
  success: boolean;
  /** `[Document]` for `page`, `[]` otherwise. */
  data: unknown[];
  /** Set when `success` is false. */
  error?: string;
  webhook: WebhookTarget;
}

/** The JSON body sent to the receiver; keys in upstream's order. */
export interface WebhookPayload {
  success: boolean;
  type: string;
  id: string;
  webhookId: string;
  data: unknown[];
  error?: string;
  metadata: Record<string, string>;
}

/** Test and embedding hooks of {@link enqueueWebhookEvent}. */
export interface EnqueueOptions {
  /** Enqueue time in ms; the event is due from then. @default Date.now() */
  now?: number;
  /** The event's `webhookId`. @default crypto.randomUUID() */
  webhookId?: string;
}

/**
 * Whether `type` (e.g. `crawl.page`) passes the `events` filter: an empty filter passes everything; otherwise the
 * filter must contain the full name, the segment after the first dot (`page`; `check` for a monitor's events),
 * everything after the first dot (`check.completed` for `monitor.check.completed`), or the last segment
 * (`completed`). The first three are upstream's `webhookEventMatchesFilter`; the last is api-v2.md §4's short
 * name, which upstream misses for the three-part monitor events only (for two-part names it is the second segment,
 * so crawl, batch, extract and agent filters match exactly as upstream's).
 */
export function webhookEventMatchesFilter(filter: readonly string[] | undefined, type: string): boolean {
  if (!filter || filter.length === 0) return true;
  const parts = type.split(".");
  const subtype = parts[1];
  const suffix = parts.slice(1).join(".");
  const last = parts.length > 1 ? parts[parts.length - 1]! : undefined;
  return filter.includes(type) || (subtype !== undefined && filter.includes(subtype)) || filter.includes(suffix) || (last !== undefined && filter.includes(last));
}

/** The payload of an event, with the `webhookId` it will carry on every attempt. */
export function webhookPayload(input: WebhookEventInput, webhookId: string): WebhookPayload {
  // Upstream's key order; `error` only when given.
  return {
    success: input.success,
    type: `${input.jobKind}.${input.event}`,
    id: input.jobId,
    webhookId,
    data: input.data,
    ...(input.error !== undefined ? { error: input.error } : {}),
    metadata: { ...input.webhook.metadata },
  };
}

/**
 * Records one webhook event in the outbox, or nothing when the job's `events` filter excludes it. Synchronous and
 * transaction-free on purpose: call it INSIDE the `immediate(db, …)` transaction that makes the state change, so
 * the event commits or rolls back with it. After the transaction commits, call `WebhookDispatcher.kick()` for an
 * immediate delivery (otherwise the once-a-second poll picks it up).
 *
 * Returns the event's `webhookId`, or `undefined` when filtered out.
 *
 * @example
 * immediate(db, () => {
 *   db.query("UPDATE jobs SET status = 'completed' WHERE id = ?").run(job.id);
 *   if (job.webhook) {
 *     enqueueWebhookEvent(db, { jobId: job.id, keyId: job.keyId, jobKind: "crawl", event: "completed",
 *       success: true, data: [], webhook: job.webhook });
 *   }
 * });
 * services.webhooks.kick();
 */
export function enqueueWebhookEvent(db: Database, input: WebhookEventInput, options: EnqueueOptions = {}): string | undefined {
  const type = `${input.jobKind}.${input.event}`;
  if (!webhookEventMatchesFilter(input.webhook.events, type)) return undefined;
  const webhookId = options.webhookId ?? crypto.randomUUID();
  const now = options.now ?? Date.now();
  const body = JSON.stringify(webhookPayload(input, webhookId));
  db.query(
    `INSERT INTO webhook_events (id, job_id, key_id, type, url, headers, body, state, failures, created_at, next_attempt_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
  ).run(webhookId, input.jobId, input.keyId, type, input.webhook.url, JSON.stringify(input.webhook.headers ?? {}), body, now, now);
  return webhookId;
}
