/**
 * @module webhooks/dispatcher
 * Delivers the outbox (`webhook_events`, written by `enqueueWebhookEvent`) at least once.
 *
 * ```
 *  job store tx ──▶ webhook_events (pending, due now)
 *                        │  poll every second (croner) or kick()
 *                        ▼
 *  due events, in order, fairly ──▶ attempt row (started) ──▶ egress gate check ──▶ POST (10 s, no redirects)
 *                        ▲                                                                  │
 *                        └── failed: next_attempt_at = failure + 1 / 5 / 15 min ◀──────────┤ 2xx: delivered
 *                            after the third retry: failed                                  │
 * ```
 *
 * - **Order and fairness.** A job's events go in the order they were recorded (its end after every earlier event
 *   is settled), up to {@link WEBHOOK_MAX_PER_JOB} at once; one destination has at most
 *   {@link WEBHOOK_MAX_PER_DESTINATION} deliveries in flight, and a free slot goes to the key, then the destination,
 *   with the fewest in flight. Both rule sets, and why, are in webhooks/next-deliveries.
 * - **Schedule.** A failed attempt (timeout, network error, non-2xx, 3xx: redirects are not followed) is retried
 *   1, 5 and 15 minutes after it failed; a failure after the third retry marks the event `failed`. The time of the
 *   next attempt is stored, so a restart neither loses nor repeats the schedule. An egress refusal (private
 *   target) is a policy decision, not an outage: the event is marked failed at once.
 * - **At least once.** Nothing is sent twice after a 2xx was recorded. An attempt that was in flight when the
 *   process died is left unfinished in `webhook_attempts`; at `start()` it is marked interrupted and, because its
 *   event is still pending and due, the event is sent again with the same `webhook-id` and body.
 * - **Graceful stop.** `quiesce()` (at the stop signal) starts no delivery from then on and waits for those in flight,
 *   whose outcomes are recorded as usual; `stop()` (at the shutdown grace's end) aborts what is still in flight, recorded
 *   `interrupted` and sent again after the restart. Aborting every delivery at the signal, as the stop used to, sent
 *   each of them twice (12 duplicates in 3 SIGTERMs with a receiver taking 300 ms).
 * - **Database errors.** A delivery the database could not record (a full disk) holds its event for about a poll
 *   interval instead of picking it again at once (webhooks/crash-backoff).
 * - **Egress.** Targets go through the egress gate (`check`, then `fetch` with `proxy`), unless private webhooks
 *   are allowed (`CRAWLBOX_ALLOW_PRIVATE_WEBHOOKS=true`), in which case the request goes out directly.
 *
 * No transaction is held across the network call: an attempt is recorded before sending and settled after.
 * This file schedules attempts; webhooks/attempt-records writes them and the event's next state (the retry
 * schedule), and one attempt's HTTP side (headers, signing, egress, POST) is in webhooks/delivery-attempt.
 */
import type { Database } from "bun:sqlite";
import type { EgressGate } from "../egress/index.ts";
import { type Logger, silentLogger } from "../log.ts";
import type { Scheduler } from "../scheduler/index.ts";
import { VERSION } from "../version.ts";
import { createAttemptRecords, WEBHOOK_RETRY_DELAYS_MS } from "./attempt-records.ts";
import { listWebhookDeliveries, type DeliveryPage } from "./deliveries.ts";
import { type Candidate, pickFairly, prepareDueQuery, SlotLoad, WEBHOOK_MAX_PER_DESTINATION, WEBHOOK_MAX_PER_JOB } from "./next-deliveries.ts";
import { DeliveryCrashBackoff } from "./crash-backoff.ts";
import { type AttemptConfig, send, SHUTDOWN, type WebhookFetch } from "./delivery-attempt.ts";
import { standardWebhooksKey } from "./signing.ts";

export type { WebhookFetch } from "./delivery-attempt.ts";
export { WEBHOOK_MAX_PER_DESTINATION, WEBHOOK_MAX_PER_JOB } from "./next-deliveries.ts";
export { WEBHOOK_RETENTION_MS, WEBHOOK_RETRY_AFTER_CAP_MS, WEBHOOK_RETRY_DELAYS_MS } from "./attempt-records.ts";

/** How long a delivery waits for the receiver's answer (upstream v1+: 10 s). */
export const WEBHOOK_TIMEOUT_MS = 10_000;

/** Deliveries in flight at once, across all jobs and destinations. */
export const WEBHOOK_MAX_CONCURRENT = 8;
/** Due-event queries per pump at most, when a job or destination filling up hid other events behind its own. */
const MAX_PUMP_ROUNDS = 8;
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
  /** Deliveries to one destination (scheme, host, port) in flight at once (webhooks/next-deliveries). @default 4 */
  maxPerDestination?: number;
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
  /**
   * Starts no delivery from now on (kicks and the poll do nothing) and resolves when those in flight have ended, their
   * outcomes recorded: what a stopping server waits for within its shutdown grace before {@link stop}. Idempotent.
   */
  quiesce(): Promise<void>;
  /** Deliveries in flight now. */
  readonly inFlight: number;
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
  /** The event sent: its job, key and destination occupy the slot. */
  row: Candidate;
}

/** Creates a dispatcher; validates its options (throws TypeError). Call `start()` to begin delivering. */
export function createWebhookDispatcher(options: WebhookDispatcherOptions): WebhookDispatcher {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const retryDelaysMs = [...(options.retryDelaysMs ?? WEBHOOK_RETRY_DELAYS_MS)];
  const random = options.random ?? Math.random;
  const maxConcurrent = options.maxConcurrent ?? WEBHOOK_MAX_CONCURRENT;
  const perDestination = options.maxPerDestination ?? WEBHOOK_MAX_PER_DESTINATION;
  const allowPrivate = options.allowPrivateWebhooks ?? false;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new TypeError("createWebhookDispatcher: timeoutMs must be > 0");
  if (!retryDelaysMs.every((d) => Number.isFinite(d) && d >= 0)) throw new TypeError("createWebhookDispatcher: retryDelaysMs must be >= 0");
  if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) throw new TypeError("createWebhookDispatcher: maxConcurrent must be >= 1");
  if (!Number.isInteger(perDestination) || perDestination < 1) throw new TypeError("createWebhookDispatcher: maxPerDestination must be >= 1");
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
  /** Set by quiesce(): nothing new is started, what is in flight finishes. */
  let quiescing = false;
  let started = false;
  let kickPending = false;
  const attemptConfig: AttemptConfig = { userAgent, now, secret, standardKey, timeoutMs, allowPrivate, gate, doFetch };
  const crashes = new DeliveryCrashBackoff({ backoffMs: options.crashBackoffMs, random, log, onRelease: () => pump() });

  const dueEvents = prepareDueQuery(db);
  const records = createAttemptRecords({ db, now, retryDelaysMs, random, log });

  function pump(): void {
    if (stopped || quiescing) return;
    const load = new SlotLoad({ perJob: WEBHOOK_MAX_PER_JOB, perDestination }, [...inflight.values()].map((f) => f.row));
    // Jobs and destinations at their limit are left out of the query: their due events would fill the window and
    // hide everyone else's. One reaching its limit during this pump may have done just that: query again.
    for (let round = 0; round < MAX_PUMP_ROUNDS && inflight.size < maxConcurrent; round++) {
      const [fullJobs, fullDestinations] = [load.fullJobs(), load.fullDestinations()];
      const window = 2 * maxConcurrent;
      const rows = dueEvents({
        now: now(),
        fullJobs,
        fullDestinations,
        skipSeqs: [...inflight.keys(), ...crashes.heldSeqs()],
        perDestination,
        perJob: WEBHOOK_MAX_PER_JOB,
        limit: window,
      });
      for (const row of pickFairly(rows, load, maxConcurrent - inflight.size)) start(row);
      const filledUp = load.fullJobs().length > fullJobs.length || load.fullDestinations().length > fullDestinations.length;
      if (rows.length < window || !filledUp) return;
    }
  }

  function start(row: Candidate): void {
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
    inflight.set(row.seq, { promise, controller, row });
  }

  async function deliver(row: Candidate, controller: AbortController): Promise<void> {
    const startedAt = now();
    const { attempt } = records.begin(row.seq, startedAt);
    const t0 = performance.now();
    const outcome = await send(attemptConfig, row, controller);
    records.settle(row, attempt, outcome, Math.round(performance.now() - t0));
  }

  return {
    start() {
      if (started || stopped) return;
      started = true;
      // Attempts left unfinished by a process that died mid-request: their events are still pending and due.
      records.markInterrupted();
      scheduler?.every("webhook-deliveries", POLL_PATTERN, () => pump());
      scheduler?.every("webhook-prune", PRUNE_PATTERN, () => void this.prune());
      pump();
    },
    kick() {
      if (stopped || quiescing || kickPending) return;
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
    async quiesce() {
      quiescing = true;
      // A delivery that ends lets the next go (pump), which does nothing now: this settles.
      while (inflight.size > 0) await Promise.all([...inflight.values()].map((f) => f.promise));
    },
    get inFlight() {
      return inflight.size;
    },
    async stop() {
      stopped = true;
      crashes.clear();
      for (const f of inflight.values()) f.controller.abort(SHUTDOWN);
      await Promise.all([...inflight.values()].map((f) => f.promise));
    },
    deliveries(jobId, keyId, page) {
      return listWebhookDeliveries(db, jobId, keyId, page, now());
    },
    prune() {
      return records.prune();
    },
  };
}
