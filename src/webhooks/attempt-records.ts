/**
 * @module webhooks/attempt-records
 * What the dispatcher writes to the outbox about its deliveries: an attempt's row before the POST, the attempt's
 * outcome after it together with the event's next state (delivered; retried 1, 5 and 15 minutes after a failure,
 * with jitter and the receiver's `Retry-After`; or failed for good), the attempts a dead process left unfinished, and
 * the retention prune. It is a module of its own because these rows are the dispatcher's durable state: the schedule
 * is stored, not held in memory, so a restart neither loses nor repeats it; webhooks/dispatcher only decides which
 * event to send when, and webhooks/deliveries reads the rows back for `GET /v2/webhooks/deliveries`.
 *
 * Each write is short and outside the network call: an attempt is recorded before sending and settled after, and no
 * transaction is held across the POST.
 */
import type { Database } from "bun:sqlite";
import { retryAfterMs } from "../jobs/retry-policy.ts";
import type { Logger } from "../log.ts";
import { immediate } from "../storage/database.ts";
import type { Outcome } from "./delivery-attempt.ts";
import type { Candidate } from "./next-deliveries.ts";

/** Retry delays after the 1st, 2nd and 3rd failed attempt (Firecrawl's documented 1, 5, 15 minutes). */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [60_000, 5 * 60_000, 15 * 60_000];
/** The longest a receiver's `Retry-After` (429/503) may push a retry back. */
export const WEBHOOK_RETRY_AFTER_CAP_MS = 60 * 60_000;
/** Retry delays vary by ±10 % so that receivers that failed together are not all retried in the same second. */
const RETRY_JITTER = 0.1;
/** Settled (delivered or failed) events and their attempts are deleted after this long. */
export const WEBHOOK_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** What {@link createAttemptRecords} needs: the dispatcher's validated options. */
export interface AttemptRecordsOptions {
  /** The database holding the outbox (migrated). */
  db: Database;
  /** Clock (ms) for attempt times, the schedule and the retention cutoff. */
  now: () => number;
  /** Delays before the retries, in order; after the last one fails the event is failed. */
  retryDelaysMs: readonly number[];
  /** Source of the retry jitter, in [0, 1); 0.5 means none. */
  random: () => number;
  log: Logger;
}

/** The dispatcher's writes to `webhook_attempts` and `webhook_events`. */
export interface AttemptRecords {
  /** Records that event `seq` is being sent now; `attempt` is the attempt's number (1 for the first). */
  begin(seq: number, startedAt: number): { attempt: number };
  /** Records how attempt `attempt` of `row` ended and what the event does next (delivered, retried, or failed). */
  settle(row: Candidate, attempt: number, outcome: Outcome, durationMs: number): void;
  /** Marks the attempts a previous process left unfinished as interrupted (their events are still pending and due). */
  markInterrupted(): void;
  /** Deletes events settled before `now - WEBHOOK_RETENTION_MS`, with their attempts; returns how many events. */
  prune(): number;
}

/** Creates the records over `db`, preparing the attempt insert once. */
export function createAttemptRecords(options: AttemptRecordsOptions): AttemptRecords {
  const { db, now, retryDelaysMs, random, log } = options;
  const beginAttempt = db.query<{ attempt: number }, [number, number]>(
    `INSERT INTO webhook_attempts (event_seq, attempt, started_at)
     VALUES (?1, (SELECT COALESCE(MAX(attempt), 0) + 1 FROM webhook_attempts WHERE event_seq = ?1), ?2)
     RETURNING attempt`,
  );

  return {
    begin(seq, startedAt) {
      return beginAttempt.get(seq, startedAt)!;
    },
    settle(row, attempt, outcome, durationMs) {
      const at = now();
      immediate(db, () => {
        const error = outcome.kind === "failed" ? outcome.error : outcome.kind === "interrupted" ? "interrupted: the dispatcher stopped before the receiver answered" : null;
        const status = outcome.kind === "interrupted" ? null : (outcome.status ?? null);
        db.query("UPDATE webhook_attempts SET finished_at = ?, status_code = ?, error = ?, duration_ms = ? WHERE event_seq = ? AND attempt = ?")
          .run(at, status, error, durationMs, row.seq, attempt);
        if (outcome.kind === "interrupted") return;
        if (outcome.kind === "delivered") {
          // The body and the caller's headers are not needed any more; drop them (page events carry whole documents,
          // headers carry credentials, and the record is kept for WEBHOOK_RETENTION_MS).
          db.query("UPDATE webhook_events SET state = 'delivered', body = NULL, headers = '{}', next_attempt_at = NULL, settled_at = ?, last_error = NULL WHERE seq = ? AND state = 'pending'")
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
          // zeroDataRetention) by the 7-day retention of the event's record. The caller's headers go for the same reason.
          db.query("UPDATE webhook_events SET state = 'failed', body = NULL, headers = '{}', failures = ?, next_attempt_at = NULL, settled_at = ?, last_error = ? WHERE seq = ?")
            .run(failures, at, outcome.error, row.seq);
          log.warn("webhook event failed for good", { webhookId: row.id, jobId: row.job_id, type: row.type, attempts: attempt, error: outcome.error });
        } else {
          db.query("UPDATE webhook_events SET failures = ?, next_attempt_at = ?, last_error = ? WHERE seq = ?")
            .run(failures, at + delay, outcome.error, row.seq);
          log.info("webhook delivery failed; will retry", { webhookId: row.id, jobId: row.job_id, type: row.type, retryInMs: delay, error: outcome.error });
        }
      });
    },
    markInterrupted() {
      db.query(
        "UPDATE webhook_attempts SET finished_at = ?, error = 'interrupted: the process stopped before the receiver answered' WHERE finished_at IS NULL",
      ).run(now());
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
