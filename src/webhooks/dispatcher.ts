/**
 * @module webhooks/dispatcher
 * Delivers the outbox (`webhook_events`, written by `enqueueWebhookEvent`) at least once.
 *
 * ```
 *  job store tx ──▶ webhook_events (pending, due now)
 *                        │  poll every second (croner) or kick()
 *                        ▼
 *  due events, in each job's order ──▶ attempt row (started) ──▶ egress gate check ──▶ POST (10 s, no redirects)
 *                        ▲                                                                  │
 *                        └── failed: next_attempt_at = failure + 1 / 5 / 15 min ◀──────────┤ 2xx: delivered
 *                            after the third retry: failed                                  │
 * ```
 *
 * - **Order.** A job's events are first sent in the order they were recorded, up to {@link WEBHOOK_MAX_PER_JOB} at
 *   once: an event is not sent before every earlier one of its job was sent at least once. Its `started` event is
 *   answered (or fails a first time) before any later event goes, and its terminal event (`completed`, `failed`,
 *   `cancelled`) waits until every earlier event's first attempt has ended, so on the happy path a receiver sees
 *   `started`, the pages, then the end. An event waiting for a retry holds nothing back: the job's later events go
 *   on (a retried page may then arrive after them, as upstream, which does not retry at all, sends them with no
 *   order). Strict one-at-a-time order made a receiver taking 100 ms an event get a 100-page crawl's `completed`
 *   11.5 s late, and one event it kept refusing (a 413 for one large page) held the job's others for ~21 minutes.
 *   Different jobs never wait for each other.
 * - **Schedule.** A failed attempt (timeout, network error, non-2xx, 3xx: redirects are not followed) is retried
 *   1, 5 and 15 minutes after it failed; a failure after the third retry marks the event `failed`. The time of the
 *   next attempt is stored, so a restart neither loses nor repeats the schedule. An egress refusal (private
 *   target) is a policy decision, not an outage: the event is marked failed at once.
 * - **At least once.** Nothing is sent twice after a 2xx was recorded. An attempt that was in flight when the
 *   process died is left unfinished in `webhook_attempts`; at `start()` it is marked interrupted and, because its
 *   event is still pending and due, the event is sent again with the same `webhook-id` and body.
 * - **Database errors.** A delivery the database could not record (a full disk) holds its event for about a poll
 *   interval instead of picking it again at once (webhooks/crash-backoff).
 * - **Egress.** Targets go through the egress gate (`check`, then `fetch` with `proxy`), unless private webhooks
 *   are allowed (`CRAWLBOX_ALLOW_PRIVATE_WEBHOOKS=true`), in which case the request goes out directly.
 *
 * No transaction is held across the network call: an attempt is recorded before sending and settled after.
 * This file schedules and records attempts; one attempt's HTTP side (headers, signing, egress, POST) is in
 * webhooks/delivery-attempt.
 */
import type { Database } from "bun:sqlite";
import type { EgressGate } from "../egress/index.ts";
import { type Logger, silentLogger } from "../log.ts";
import type { Scheduler } from "../scheduler/index.ts";
import { immediate } from "../storage/database.ts";
import { retryAfterMs } from "../jobs/retry-policy.ts";
import { VERSION } from "../version.ts";
import { listWebhookDeliveries, type DeliveryPage } from "./deliveries.ts";
import { DeliveryCrashBackoff } from "./crash-backoff.ts";
import { type AttemptConfig, type DueRow, type Outcome, send, SHUTDOWN, type WebhookFetch } from "./delivery-attempt.ts";
import { standardWebhooksKey } from "./signing.ts";

export type { WebhookFetch } from "./delivery-attempt.ts";

/** How long a delivery waits for the receiver's answer (upstream v1+: 10 s). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Retry delays after the 1st, 2nd and 3rd failed attempt (Firecrawl's documented 1, 5, 15 minutes). */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [60_000, 5 * 60_000, 15 * 60_000];
/** The longest a receiver's `Retry-After` (429/503) may push a retry back. */
export const WEBHOOK_RETRY_AFTER_CAP_MS = 60 * 60_000;
/** Retry delays vary by ±10 % so that receivers that failed together are not all retried in the same second. */
const RETRY_JITTER = 0.1;

/** Deliveries in flight at once, across all jobs. */
export const WEBHOOK_MAX_CONCURRENT = 8;
/** Deliveries of one job in flight at once: a big crawl's pages leave room for other jobs' events. */
export const WEBHOOK_MAX_PER_JOB = 4;
/** Settled (delivered or failed) events and their attempts are deleted after this long. */
export const WEBHOOK_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** Cron pattern of the due-event poll (every second; `kick()` covers the fast path). */
const POLL_PATTERN = "* * * * * *";
/** Cron pattern of the retention prune (hourly). */
const PRUNE_PATTERN = "0 23 * * * *";

/** Options of {@link createWebhookDispatcher}. */
export interface WebhookDispatcherOptions {
  /** The database holding the outbox (migrated). */
  db: Database;
  /** `CRAWLBOX_WEBHOOK_SECRET`; empty = unsigned (no `X-Firecrawl-Signature`, no `webhook-signature`). */
  secret: string;
  /** Send directly instead of through the egress gate (`CRAWLBOX_ALLOW_PRIVATE_WEBHOOKS`). @default false */
  allowPrivateWebhooks?: boolean;
  /** The egress gate; required unless `allowPrivateWebhooks`. */
  gate?: Pick<EgressGate, "proxyUrl" | "check">;
  /** Wait for an answer at most this long. @default 10000 */
  timeoutMs?: number;
  /** Delays before the retries, in order; after the last one fails the event is failed. @default [60000, 300000, 900000] */
  retryDelaysMs?: readonly number[];
  /** Deliveries in flight at once. @default 8 */
  maxConcurrent?: number;
  /** Clock (ms) for the schedule, `webhook-timestamp` and attempt times. @default Date.now */
  now?: () => number;
  /** Source of the retry jitter, in [0, 1); 0.5 means none. @default Math.random */
  random?: () => number;
  /** @default globalThis.fetch */
  fetch?: WebhookFetch;
  /** Runs the once-a-second poll and the hourly prune after `start()`; without one, only `kick()`/`drain()` deliver. */
  scheduler?: Scheduler;
  log?: Logger;
  /** @default "crawlbox-webhooks/<version>" */
  userAgent?: string;
  /** How long (real time, ±20 %) an event waits after its delivery could not be recorded (webhooks/crash-backoff). @default 1000 */
  crashBackoffMs?: number;
}

/** Delivers webhook events from the outbox. Create with {@link createWebhookDispatcher}. */
export interface WebhookDispatcher {
  /** Marks attempts interrupted by a previous process, starts polling, and delivers what is due. */
  start(): void;
  /** Looks for due events soon (next turn of the event loop); call after committing an enqueue. */
  kick(): void;
  /** Sends everything that is due now, including each job's next events after a success, and waits for it. */
  drain(): Promise<void>;
  /** Stops delivering; in-flight requests are aborted and recorded as interrupted (they are re-sent later). */
  stop(): Promise<void>;
  /** The deliveries of `jobId` visible to `keyId` (an unknown or foreign job has none). */
  deliveries(jobId: string, keyId: string, page?: { skip?: number; limit?: number }): DeliveryPage;
  /** Deletes events settled before `now - WEBHOOK_RETENTION_MS`; returns how many. */
  prune(): number;
}

interface InFlight {
  promise: Promise<void>;
  controller: AbortController;
  jobId: string;
}

/** Creates a dispatcher; validates its options (throws TypeError). Call `start()` to begin delivering. */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const retryDelaysMs = [...(options.retryDelaysMs ?? WEBHOOK_RETRY_DELAYS_MS)];
  const random = options.random ?? Math.random;
  const maxConcurrent = options.maxConcurrent ?? WEBHOOK_MAX_CONCURRENT;
  const allowPrivate = options.allowPrivateWebhooks ?? false;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new TypeError("createWebhookDispatcher: timeoutMs must be > 0");
  if (!retryDelaysMs.every((d) => Number.isFinite(d) && d >= 0)) throw new TypeError("createWebhookDispatcher: retryDelaysMs must be >= 0");
  if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) throw new TypeError("createWebhookDispatcher: maxConcurrent must be >= 1");
  if (!allowPrivate && !options.gate?.proxyUrl) throw new TypeError("createWebhookDispatcher: an egress gate is required unless private webhooks are allowed");
  if (typeof options.secret !== "string") throw new TypeError("createWebhookDispatcher: secret must be a string");
  let standardKey: Uint8Array | undefined;
  try {
    standardKey = options.secret === "" ? undefined : standardWebhooksKey(options.secret);
  } catch (err) {
    throw new TypeError(`createWebhookDispatcher: ${(err as Error).message}`);
  }

  const { db, secret, gate, scheduler } = options;
  const now = options.now ?? Date.now;
  const doFetch: WebhookFetch = options.fetch ?? ((url, init) => fetch(url, init));
  const log = options.log ?? silentLogger;
  const userAgent = options.userAgent ?? `crawlbox-webhooks/${VERSION}`;
  const inflight = new Map<number, InFlight>();
  let stopped = false;
  let started = false;
  let kickPending = false;
  const attemptConfig: AttemptConfig = { userAgent, now, secret, standardKey, timeoutMs, allowPrivate, gate, doFetch };
  const crashes = new DeliveryCrashBackoff({ backoffMs: options.crashBackoffMs, random, log, onRelease: () => pump() });

  // An event is held back only by an earlier pending event of its job still on its first try (failures = 0) that
  // has not been sent yet, or that is the job's `started` (a barrier for what follows), or by any such event when
  // it is itself the job's end (it waits for every earlier first attempt to end). See "Order" above.
  // Jobs already at their limit of deliveries in flight are left out (?2, a JSON list): their due events would fill
  // the window and starve every other job's. So are events waiting out a crashed delivery (?4, webhooks/crash-backoff).
  const dueQuery = db.query<DueRow, [number, string, number, string]>(
    `SELECT seq, id, job_id, type, url, headers, body FROM webhook_events e
      WHERE state = 'pending' AND next_attempt_at <= ?1
        AND e.job_id NOT IN (SELECT value FROM json_each(?2))
        AND e.seq NOT IN (SELECT value FROM json_each(?4))
        AND NOT EXISTS (
          SELECT 1 FROM webhook_events p
           WHERE p.job_id = e.job_id AND p.state = 'pending' AND p.seq < e.seq AND p.failures = 0
             AND (p.type LIKE '%.started'
                  OR e.type LIKE '%.completed' OR e.type LIKE '%.failed' OR e.type LIKE '%.cancelled'
                  OR NOT EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.event_seq = p.seq)))
      ORDER BY seq LIMIT ?3`,
  );
  const beginAttempt = db.query<{ attempt: number }, [number, number]>(
    `INSERT INTO webhook_attempts (event_seq, attempt, started_at)
     VALUES (?1, (SELECT COALESCE(MAX(attempt), 0) + 1 FROM webhook_attempts WHERE event_seq = ?1), ?2)
     RETURNING attempt`,
  );

  function pump(): void {
    if (stopped) return;
    const perJob = new Map<string, number>();
    for (const f of inflight.values()) perJob.set(f.jobId, (perJob.get(f.jobId) ?? 0) + 1);
    const full = () => JSON.stringify([...perJob].filter(([, n]) => n >= WEBHOOK_MAX_PER_JOB).map(([job]) => job));
    // A window of due events (in-flight ones among them) per query; again while slots are free and a job reaching its
    // limit in this pump may have hidden other jobs' events behind its own.
    for (let round = 0; round < 8 && inflight.size < maxConcurrent; round++) {
      const window = maxConcurrent + inflight.size;
      const rows = dueQuery.all(now(), full(), window, JSON.stringify(crashes.heldSeqs()));
      let filled = false;
      for (const row of rows) {
        if (inflight.size >= maxConcurrent) break;
        if (inflight.has(row.seq)) continue;
        const mine = perJob.get(row.job_id) ?? 0;
        // The job's later events wait too: they may not go before this one (its first attempt not started).
        if (mine >= WEBHOOK_MAX_PER_JOB) continue;
        perJob.set(row.job_id, mine + 1);
        if (mine + 1 >= WEBHOOK_MAX_PER_JOB) filled = true;
        start(row);
      }
      if (rows.length < window || !filled) return;
    }
  }

  function start(row: DueRow): void {
    const controller = new AbortController();
    const promise = deliver(row, controller)
      .catch((err) => {
        // The database refused the attempt or its outcome (a full disk): the row is still due, and pumping at once
        // would pick it again before any timer or request could run. It waits (webhooks/crash-backoff).
        if (!stopped) crashes.crashed(row.seq, { webhookId: row.id, jobId: row.job_id, type: row.type }, err);
        else log.error("webhook delivery could not be recorded while stopping", { webhookId: row.id, error: String(err) });
      })
      .finally(() => {
        inflight.delete(row.seq);
        if (!crashes.isHeld(row.seq)) pump();
      });
    inflight.set(row.seq, { promise, controller, jobId: row.job_id });
  }

  async function deliver(row: DueRow, controller: AbortController): Promise<void> {
    const startedAt = now();
    const { attempt } = beginAttempt.get(row.seq, startedAt)!;
    const t0 = performance.now();
    const outcome = await send(attemptConfig, row, controller);
    settle(row, attempt, outcome, Math.round(performance.now() - t0));
  }

  function settle(row: DueRow, attempt: number, outcome: Outcome, durationMs: number): void {
    const at = now();
    immediate(db, () => {
      const error = outcome.kind === "failed" ? outcome.error : outcome.kind === "interrupted" ? "interrupted: the dispatcher stopped before the receiver answered" : null;
      const status = outcome.kind === "interrupted" ? null : (outcome.status ?? null);
      db.query("UPDATE webhook_attempts SET finished_at = ?, status_code = ?, error = ?, duration_ms = ? WHERE event_seq = ? AND attempt = ?")
        .run(at, status, error, durationMs, row.seq, attempt);
      if (outcome.kind === "interrupted") return;
      if (outcome.kind === "delivered") {
        // The body is not needed any more; drop it (page events carry whole documents).
        db.query("UPDATE webhook_events SET state = 'delivered', body = NULL, next_attempt_at = NULL, settled_at = ?, last_error = NULL WHERE seq = ? AND state = 'pending'")
          .run(at, row.seq);
        return;
      }
      const cur = db.query<{ failures: number }, [number]>("SELECT failures FROM webhook_events WHERE seq = ? AND state = 'pending'").get(row.seq);
      if (!cur) return;
      const failures = cur.failures + 1;
      const scheduled = outcome.permanent ? undefined : retryDelaysMs[failures - 1];
      // reliability.md B2: ±10 % jitter; a 429/503 with Retry-After waits at least that long (capped at an hour).
      const asked = outcome.retryAfter ? retryAfterMs(outcome.retryAfter, at, 0, WEBHOOK_RETRY_AFTER_CAP_MS) : undefined;
      const delay = scheduled === undefined ? undefined : Math.max(Math.round(scheduled * (1 + RETRY_JITTER * (2 * random() - 1))), asked ?? 0);
      if (delay === undefined) {
        // Its body goes too: nothing sends it again (there is no manual re-send; the deliveries listing never shows
        // bodies), and a page event's documents must not outlive the job's results (24 h, or none with
        // zeroDataRetention) by the 7-day retention of the event's record.
        db.query("UPDATE webhook_events SET state = 'failed', body = NULL, failures = ?, next_attempt_at = NULL, settled_at = ?, last_error = ? WHERE seq = ?")
          .run(failures, at, outcome.error, row.seq);
        log.warn("webhook event failed for good", { webhookId: row.id, jobId: row.job_id, type: row.type, attempts: attempt, error: outcome.error });
      } else {
        db.query("UPDATE webhook_events SET failures = ?, next_attempt_at = ?, last_error = ? WHERE seq = ?")
          .run(failures, at + delay, outcome.error, row.seq);
        log.info("webhook delivery failed; will retry", { webhookId: row.id, jobId: row.job_id, type: row.type, retryInMs: delay, error: outcome.error });
      }
    });
  }

  return {
    start() {
      if (started || stopped) return;
      started = true;
      // Attempts left unfinished by a process that died mid-request: their events are still pending and due.
      db.query(
        "UPDATE webhook_attempts SET finished_at = ?, error = 'interrupted: the process stopped before the receiver answered' WHERE finished_at IS NULL",
      ).run(now());
      scheduler?.every("webhook-deliveries", POLL_PATTERN, () => pump());
      scheduler?.every("webhook-prune", PRUNE_PATTERN, () => void this.prune());
      pump();
    },
    kick() {
      if (stopped || kickPending) return;
      kickPending = true;
      setImmediate(() => {
        kickPending = false;
        pump();
      });
    },
    async drain() {
      for (;;) {
        pump();
        if (inflight.size === 0) return;
        await Promise.all([...inflight.values()].map((f) => f.promise));
      }
    },
    async stop() {
      stopped = true;
      crashes.clear();
      for (const f of inflight.values()) f.controller.abort(SHUTDOWN);
      await Promise.all([...inflight.values()].map((f) => f.promise));
    },
    deliveries(jobId, keyId, page) {
      return listWebhookDeliveries(db, jobId, keyId, page);
    },
    prune() {
      const cutoff = now() - WEBHOOK_RETENTION_MS;
      return immediate(db, () => {
        db.query(
          "DELETE FROM webhook_attempts WHERE event_seq IN (SELECT seq FROM webhook_events WHERE state != 'pending' AND settled_at < ?)",
        ).run(cutoff);
        return db.query("DELETE FROM webhook_events WHERE state != 'pending' AND settled_at < ?").run(cutoff).changes;
      });
    },
  };
}
