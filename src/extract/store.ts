/**
 * @module extract/store
 * The `extract_jobs` table: one row per `POST /v2/extract`, written when the job is accepted (so a stopped
 * server loses nothing: `crawlbox serve` runs `processing` rows again at start) and updated once with the answer.
 * Rows expire 24 h after they finish, as crawl and batch jobs.
 */
import type { Database } from "bun:sqlite";
import type { ExtractRequest } from "../api/extract.ts";

/** How long a finished extract job stays readable. */
export const EXTRACT_TTL_MS = 24 * 60 * 60 * 1000;

/** A stored extract job. */
export interface ExtractJob {
  id: string;
  keyId: string;
  status: "processing" | "completed" | "failed";
  request: ExtractRequest;
  data?: unknown;
  /** The pages the answer was drawn from (with `showSources`). */
  sources?: string[];
  warning?: string;
  error?: string;
  tokens: number;
  credits: number;
  createdAt: number;
  expiresAt: number;
}

interface Row {
  id: string;
  key_id: string;
  status: ExtractJob["status"];
  attempts: number;
  request: string;
  data: string | null;
  sources: string | null;
  warning: string | null;
  error: string | null;
  tokens: number;
  credits: number;
  created_at: number;
  expires_at: number;
}

function fromRow(r: Row): ExtractJob {
  const job: ExtractJob = {
    id: r.id,
    keyId: r.key_id,
    status: r.status,
    request: JSON.parse(r.request),
    tokens: r.tokens,
    credits: r.credits,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
  if (r.data !== null) job.data = JSON.parse(r.data);
  if (r.sources !== null) job.sources = JSON.parse(r.sources);
  if (r.warning !== null) job.warning = r.warning;
  if (r.error !== null) job.error = r.error;
  return job;
}

/** Extract jobs by id. */
export class ExtractStore {
  private readonly getStmt;
  constructor(private readonly db: Database) {
    this.getStmt = db.query<Row, [string]>("SELECT * FROM extract_jobs WHERE id = ?");
  }

  /** Stores a new job, `processing`; expiry is counted from when it finishes. */
  create(id: string, keyId: string, request: ExtractRequest, now: number): void {
    this.db
      .query("INSERT INTO extract_jobs (id, key_id, status, request, created_at, updated_at, expires_at) VALUES (?, ?, 'processing', ?, ?, ?, ?)")
      .run(id, keyId, JSON.stringify(request), now, now, now + EXTRACT_TTL_MS);
  }

  /** The job, unless it is unknown or expired (a job still processing never expires). */
  get(id: string, now: number): ExtractJob | undefined {
    const row = this.getStmt.get(id);
    return row && (row.status === "processing" || row.expires_at >= now) ? fromRow(row) : undefined;
  }

  /**
   * Takes a processing job for the process `owner`, counting the attempt; returns the attempts so far, or
   * undefined when the job is finished or this process already runs it.
   */
  claim(id: string, owner: string, now: number): number | undefined {
    const row = this.db
      .query<{ attempts: number }, [string, number, string, string]>(
        "UPDATE extract_jobs SET owner = ?, attempts = attempts + 1, updated_at = ? WHERE id = ? AND status = 'processing' AND owner IS NOT ? RETURNING attempts",
      )
      .get(owner, now, id, owner);
    return row?.attempts;
  }

  /**
   * Gives back the jobs `owner` is running, at a graceful stop: each stays `processing`, with no owner and the
   * attempt its claim counted given back, so the next start resumes it as if this run had not begun. Without it every
   * SIGTERM spent an attempt and the third restart failed a healthy job ("started 3 times"); only a process that
   * dies (SIGKILL, a crash) keeps the attempt counted. Returns how many jobs were released.
   */
  releaseOwned(owner: string, now: number): number {
    return this.db
      .query("UPDATE extract_jobs SET owner = NULL, attempts = MAX(attempts - 1, 0), updated_at = ? WHERE owner = ? AND status = 'processing'")
      .run(now, owner).changes;
  }

  /**
   * Records the end of a job run by `owner`; false when nothing changed: another process owns the job now, or it
   * has already ended. The caller announces the end (webhooks) only on true, so a job ends, and is announced, once.
   */
  finish(id: string, owner: string, end: { status: "completed" | "failed"; data?: unknown; sources?: string[]; warning?: string; error?: string; tokens: number; credits: number }, now: number): boolean {
    const changed = this.db
      .query("UPDATE extract_jobs SET status = ?, data = ?, sources = ?, warning = ?, error = ?, tokens = ?, credits = ?, updated_at = ?, expires_at = ? WHERE id = ? AND owner = ? AND status = 'processing'")
      .run(
        end.status,
        end.data === undefined ? null : JSON.stringify(end.data),
        end.sources === undefined ? null : JSON.stringify(end.sources),
        end.warning ?? null,
        end.error ?? null,
        end.tokens,
        end.credits,
        now,
        now + EXTRACT_TTL_MS,
        id,
        owner,
      ).changes;
    return changed > 0;
  }

  /**
   * Adds `credits` charged to the key to a processing job run by `owner` (its `credits` count what the key paid so
   * far, across runs, until the job ends); false when the job is not `owner`'s any more.
   */
  addCredits(id: string, owner: string, credits: number): boolean {
    return this.db.query("UPDATE extract_jobs SET credits = credits + ? WHERE id = ? AND owner = ? AND status = 'processing'").run(credits, id, owner).changes > 0;
  }

  /** How many jobs of `keyId` are processing (running or waiting). */
  processingCount(keyId: string): number {
    return (this.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM extract_jobs WHERE key_id = ? AND status = 'processing'").get(keyId)?.n ?? 0);
  }

  /** Jobs still `processing`: after a restart, those a previous process did not finish. */
  processing(): ExtractJob[] {
    return this.db.query<Row, []>("SELECT * FROM extract_jobs WHERE status = 'processing' ORDER BY created_at").all().map(fromRow);
  }

  /** Deletes expired jobs; returns how many. */
  prune(now: number): number {
    return this.db.query("DELETE FROM extract_jobs WHERE expires_at < ? AND status != 'processing'").run(now).changes;
  }
}
