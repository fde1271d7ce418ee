/**
 * @module idempotency/store
 * The `idempotency_keys` table: one row per (API key, `Idempotency-Key`) holding the first request's hash, and
 * once that request succeeded, the response it got. {@link IdempotencyStore.claim} is the one decision point: a
 * new key is claimed for the caller, a known key yields what the caller must answer instead of running the
 * request (replay, mismatch, in flight, not kept). SQLite calls are synchronous, so a claim is atomic within the
 * process; the row's primary key makes it atomic across processes too.
 */
import type { Database } from "bun:sqlite";

/** How long a key and its response are kept (reliability.md B2: 24 h, as Stripe). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * How long an in-flight claim may last before it counts as abandoned (its process died without `boot`): a
 * request can wait 0.667 × 300 s for a slot, scrape for 300 s and run LLM formats after, so 15 minutes.
 */
export const IN_FLIGHT_STALE_MS = 15 * 60 * 1000;

/** What to do with a request carrying a key. */
export type Claim =
  /** A new key (or an expired, released or abandoned one): run the request, then `complete` or `release`. */
  | { kind: "run" }
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
  private readonly pruneStmt;

  constructor(private readonly db: Database) {
    this.getStmt = db.query<Row, [string, string]>(
      "SELECT request_hash, state, status, response, created_at, expires_at FROM idempotency_keys WHERE key_id = ? AND idem_key = ?",
    );
    this.claimStmt = db.query(
      `INSERT OR REPLACE INTO idempotency_keys (key_id, idem_key, request_hash, state, status, response, created_at, expires_at)
       VALUES (?, ?, ?, 'in-flight', NULL, NULL, ?, ?)`,
    );
    this.completeStmt = db.query(
      "UPDATE idempotency_keys SET state = 'done', status = ?, response = ? WHERE key_id = ? AND idem_key = ? AND state = 'in-flight'",
    );
    this.releaseStmt = db.query("DELETE FROM idempotency_keys WHERE key_id = ? AND idem_key = ? AND state = 'in-flight'");
    this.pruneStmt = db.query("DELETE FROM idempotency_keys WHERE expires_at < ?");
  }

  /**
   * Decides what a request with `idemKey` does. When the answer is `run`, the key is now claimed in flight for
   * `keyId` and must be settled with {@link complete} or {@link release}.
   */
  claim(keyId: string, idemKey: string, requestHash: string, now: number): Claim {
    const row = this.getStmt.get(keyId, idemKey);
    const usable = row && row.expires_at >= now && !(row.state === "in-flight" && now - row.created_at > IN_FLIGHT_STALE_MS);
    if (usable) {
      if (row.request_hash !== requestHash) return { kind: "mismatch" };
      if (row.state === "in-flight") return { kind: "in-flight" };
      return row.response === null ? { kind: "not-kept" } : { kind: "replay", status: row.status ?? 200, response: row.response };
    }
    this.claimStmt.run(keyId, idemKey, requestHash, now, now + IDEMPOTENCY_TTL_MS);
    return { kind: "run" };
  }

  /** Records the response of a claimed request; `response` null keeps only the fact that it ran. */
  complete(keyId: string, idemKey: string, status: number, response: string | null): void {
    this.completeStmt.run(status, response, keyId, idemKey);
  }

  /** Forgets a claimed request that failed, so that the same key may be retried. */
  release(keyId: string, idemKey: string): void {
    this.releaseStmt.run(keyId, idemKey);
  }

  /**
   * At server start: claims left in flight by a previous process can never complete (one server per data
   * folder, as for jobs), so they are released and their keys may be retried at once.
   */
  releaseAbandoned(): number {
    return this.db.query("DELETE FROM idempotency_keys WHERE state = 'in-flight'").run().changes;
  }

  /** Deletes expired keys; returns how many. */
  prune(now: number): number {
    return this.pruneStmt.run(now).changes;
  }
}
