/**
 * @module feedback/store
 * Feedback on a job's results (`POST /v2/feedback`, `POST /v2/search/{id}/feedback`): kept in SQLite, one per key,
 * endpoint and job (a second one answers `alreadySubmitted` with the first's id, as upstream does), for the
 * operator to read (`GET /v2/feedback`, `crawlbox` has no ranking to feed it to). Kept for
 * {@link FEEDBACK_TTL_MS}; a key may leave at most {@link MAX_FEEDBACK_PER_DAY} a day.
 */
import type { Database } from "bun:sqlite";
import { TooManyRequestsError } from "../errors.ts";

/** How long feedback is kept. */
export const FEEDBACK_TTL_MS = 90 * 24 * 60 * 60 * 1000;
/** Feedback one key may leave in 24 hours (each a row of up to ~350 KB, as the schema bounds its fields). */
export const MAX_FEEDBACK_PER_DAY = 1_000;

/** One piece of feedback as stored. */
export interface FeedbackRecord {
  feedbackId: string;
  endpoint: string;
  jobId: string;
  rating: string;
  createdAt: string;
  /** The request as it was received (validated). */
  feedback: Record<string, unknown>;
}

/** Stored feedback. */
export class FeedbackStore {
  private readonly insertStmt;
  private readonly findStmt;
  private readonly countStmt;
  private readonly listStmt;
  private readonly pruneStmt;

  constructor(db: Database) {
    this.insertStmt = db.query("INSERT INTO feedback (id, key_id, endpoint, job_id, rating, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)");
    this.findStmt = db.query<{ id: string }, [string, string, string]>("SELECT id FROM feedback WHERE key_id = ? AND endpoint = ? AND job_id = ?");
    this.countStmt = db.query<{ n: number }, [string, number]>("SELECT COUNT(*) AS n FROM feedback WHERE key_id = ? AND created_at >= ?");
    this.listStmt = db.query<{ id: string; endpoint: string; job_id: string; rating: string; body: string; created_at: number }, [string, number, number, string, number]>(
      "SELECT id, endpoint, job_id, rating, body, created_at FROM feedback WHERE key_id = ? AND (created_at < ? OR (created_at = ? AND id < ?)) ORDER BY created_at DESC, id DESC LIMIT ?",
    );
    this.pruneStmt = db.query("DELETE FROM feedback WHERE created_at < ?");
  }

  /**
   * Keeps `body` as the key's feedback on `endpoint`'s job `jobId`: its id, and whether feedback on that job was
   * already there (then nothing is written). 429 past the daily limit.
   */
  add(keyId: string, endpoint: string, jobId: string, rating: string, body: Record<string, unknown>, nowMs = Date.now()): { feedbackId: string; alreadySubmitted: boolean } {
    const existing = this.findStmt.get(keyId, endpoint, jobId);
    if (existing) return { feedbackId: existing.id, alreadySubmitted: true };
    if (this.countStmt.get(keyId, nowMs - 24 * 60 * 60 * 1000)!.n >= MAX_FEEDBACK_PER_DAY) {
      throw new TooManyRequestsError("FEEDBACK_LIMIT", `This key has left ${MAX_FEEDBACK_PER_DAY} pieces of feedback in the last 24 hours; try again later.`, 3600);
    }
    const feedbackId = crypto.randomUUID();
    this.insertStmt.run(feedbackId, keyId, endpoint, jobId, rating, JSON.stringify(body), nowMs);
    return { feedbackId, alreadySubmitted: false };
  }

  /**
   * The key's feedback, newest first: up to `limit` after the cursor (the last one of the previous page, by time and
   * then id, so that feedback left in the same millisecond is neither skipped nor repeated).
   */
  list(keyId: string, limit: number, after?: { createdAtMs: number; id: string }): FeedbackRecord[] {
    const before = after ?? { createdAtMs: Number.MAX_SAFE_INTEGER, id: "" };
    return this.listStmt.all(keyId, before.createdAtMs, before.createdAtMs, before.id, limit).map((r) => ({
      feedbackId: r.id,
      endpoint: r.endpoint,
      jobId: r.job_id,
      rating: r.rating,
      createdAt: new Date(r.created_at).toISOString(),
      feedback: JSON.parse(r.body) as Record<string, unknown>,
    }));
  }

  /** Deletes feedback older than {@link FEEDBACK_TTL_MS}. */
  prune(nowMs = Date.now()): number {
    return this.pruneStmt.run(nowMs - FEEDBACK_TTL_MS).changes;
  }
}
