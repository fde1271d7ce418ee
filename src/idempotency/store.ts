/**
 * @module idempotency/store
 * The `idempotency_keys` table: one row per (API key, `Idempotency-Key`) holding the first request's hash, and
 * once that request succeeded, the response it got. {@link IdempotencyStore.claim} is the one decision point: a
 * new key is claimed for the caller, a known key yields what the caller must answer instead of running the
 * request (replay, mismatch, in flight, not kept). The read and the claim are one `BEGIN IMMEDIATE` transaction,
 * and each claim carries a random id that {@link IdempotencyStore.complete} and {@link IdempotencyStore.release}
 * must present, so a request whose stale claim was taken over cannot settle its successor's row.
 */
import type { Database } from "bun:sqlite";
import { immediate } from "../storage/database.ts";

/** How long a key and its response are kept (reliability.md B2: 24 h, as Stripe). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How long an in-flight claim may last before it counts as abandoned (its process died): a request can wait
 * 0.667 × 300 s for a slot, scrape for 300 s and run LLM formats after, so 15 minutes.
 */
export const IN_FLIGHT_STALE_MS = 15 * 60 * 1000;

/** What to do with a request carrying a key. */
export type Claim =
  /** A new key (or an expired, released or abandoned one): run the request, then `complete` or `release` it. */
  | { kind: "run"; claim: string }
  /** The same request succeeded before: answer with its stored response. */
  | { kind: "replay"; status: number; response: string }
  /** The same request succeeded before, but its response was not kept (zeroDataRetention). */
  | { kind: "not-kept" }
  /** The key was used with a different request. */
  | { kind: "mismatch" }
  /** The first request with this key is still running. */
  | { kind: "in-flight" };

interface Row {
  request_hash: string;
  state: string;
  status: number | null;
  response: string | null;
  created_at: number;
  expires_at: number;
}

/** Idempotency keys and their stored responses. */
export class IdempotencyStore {
  private readonly getStmt;
  private readonly claimStmt;
  private readonly completeStmt;
  private readonly releaseStmt;
  private readonly releaseStaleStmt;
  private readonly pruneStmt;

  constructor(private readonly db: Database) {
    this.getStmt = db.query<Row, [string, string]>(
      "SELECT request_hash, state, status, response, created_at, expires_at FROM idempotency_keys WHERE key_id = ? AND idem_key = ?",
    );
    this.claimStmt = db.query(
      `INSERT OR REPLACE INTO idempotency_keys (key_id, idem_key, request_hash, state, claim, status, response, created_at, expires_at)
       VALUES (?, ?, ?, 'in-flight', ?, NULL, NULL, ?, ?)`,
    );
    this.completeStmt = db.query(
      "UPDATE idempotency_keys SET state = 'done', status = ?, response = ? WHERE key_id = ? AND idem_key = ? AND claim = ? AND state = 'in-flight'",
    );
    this.releaseStmt = db.query("DELETE FROM idempotency_keys WHERE key_id = ? AND idem_key = ? AND claim = ? AND state = 'in-flight'");
    this.releaseStaleStmt = db.query("DELETE FROM idempotency_keys WHERE state = 'in-flight' AND created_at < ?");
    this.pruneStmt = db.query("DELETE FROM idempotency_keys WHERE expires_at < ?");
  }

  /**
   * Decides what a request with `idemKey` does. When the answer is `run`, the key is now claimed in flight for
   * `keyId` and must be settled with {@link complete} or {@link release}, passing the returned `claim`.
   */
  claim(keyId: string, idemKey: string, requestHash: string, now: number): Claim {
    return immediate(this.db, () => {
      const row = this.getStmt.get(keyId, idemKey);
      const usable = row && row.expires_at >= now && !(row.state === "in-flight" && now - row.created_at > IN_FLIGHT_STALE_MS);
      if (usable) {
        if (row.request_hash !== requestHash) return { kind: "mismatch" };
        if (row.state === "in-flight") return { kind: "in-flight" };
        return row.response === null ? { kind: "not-kept" } : { kind: "replay", status: row.status ?? 200, response: row.response };
      }
      const claim = crypto.randomUUID();
      this.claimStmt.run(keyId, idemKey, requestHash, claim, now, now + IDEMPOTENCY_TTL_MS);
      return { kind: "run", claim };
    });
  }

  /** Records the response of a claimed request; `response` null keeps only the fact that it ran. */
  complete(keyId: string, idemKey: string, claim: string, status: number, response: string | null): void {
    this.completeStmt.run(status, response, keyId, idemKey, claim);
  }

  /** Forgets a claimed request that failed, so that the same key may be retried. */
  release(keyId: string, idemKey: string, claim: string): void {
    this.releaseStmt.run(keyId, idemKey, claim);
  }

  /**
   * At server start (`crawlbox serve` only: a one-off CLI scrape on the same folder must not touch a running
   * server's claims): claims left in flight by a previous process can never complete, so they are released and
   * their keys may be retried at once. `before` is the start time: claims made since belong to this process.
   */
  releaseAbandoned(before: number): number {
    return this.releaseStaleStmt.run(before).changes;
  }

  /** Deletes expired keys; returns how many. */
  prune(now: number): number {
    return this.pruneStmt.run(now).changes;
  }
}
