/**
 * @module agent/store
 * The `agent_jobs` table: one row per `POST /v2/agent` run, written when the run is accepted (a stopped server
 * loses nothing: `crawlbox serve` runs `processing` rows again at start) and updated once when it ends. Runs of a
 * conversation share a thread id and are numbered by turn. Rows expire 24 h after they end, as extract jobs.
 */
import type { Database } from "bun:sqlite";
import type { AgentRequest } from "../api/agent.ts";

/** How long a finished run stays readable. */
export const AGENT_TTL_MS = 24 * 60 * 60 * 1000;

/** A run's state. */
export type AgentRunStatus = "processing" | "completed" | "failed" | "cancelled";

/** A stored agent run. */
export interface AgentJob {
  id: string;
  keyId: string;
  threadId: string;
  turn: number;
  status: AgentRunStatus;
  request: AgentRequest;
  data?: unknown;
  message?: string;
  sources?: string[];
  warning?: string;
  error?: string;
  tokens: number;
  credits: number;
  createdAt: number;
  finishedAt?: number;
  expiresAt: number;
}

/** How a run ended: its final status and what it leaves. */
export type AgentEnd = { status: "completed" | "failed" } & Pick<AgentJob, "data" | "message" | "sources" | "warning" | "error" | "tokens" | "credits">;

interface Row {
  id: string;
  key_id: string;
  thread_id: string;
  turn: number;
  status: AgentRunStatus;
  request: string;
  data: string | null;
  message: string | null;
  sources: string | null;
  warning: string | null;
  error: string | null;
  tokens: number;
  credits: number;
  created_at: number;
  finished_at: number | null;
  expires_at: number;
}

function fromRow(r: Row): AgentJob {
  const job: AgentJob = {
    id: r.id,
    keyId: r.key_id,
    threadId: r.thread_id,
    turn: r.turn,
    status: r.status,
    request: JSON.parse(r.request),
    tokens: r.tokens,
    credits: r.credits,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
  if (r.data !== null) job.data = JSON.parse(r.data);
  if (r.message !== null) job.message = r.message;
  if (r.sources !== null) job.sources = JSON.parse(r.sources);
  if (r.warning !== null) job.warning = r.warning;
  if (r.error !== null) job.error = r.error;
  if (r.finished_at !== null) job.finishedAt = r.finished_at;
  return job;
}

const live = "(status = 'processing' OR expires_at >= ?)";

/** Agent runs by id, by key and by thread. */
export class AgentStore {
  constructor(private readonly db: Database) {}

  /**
   * Stores a new run, `processing`. Its `created_at` is `now`, or 1 ms after the key's latest run when that is not
   * earlier: a key's runs never share a creation time, so the list's `before` cursor (a time) skips none of them.
   */
  create(job: { id: string; keyId: string; threadId: string; turn: number; request: AgentRequest }, now: number): void {
    const latest = this.db.query<{ t: number | null }, [string]>("SELECT MAX(created_at) AS t FROM agent_jobs WHERE key_id = ?").get(job.keyId)?.t ?? -1;
    const createdAt = Math.max(now, latest + 1);
    this.db
      .query("INSERT INTO agent_jobs (id, key_id, thread_id, turn, status, request, created_at, updated_at, expires_at) VALUES (?, ?, ?, ?, 'processing', ?, ?, ?, ?)")
      .run(job.id, job.keyId, job.threadId, job.turn, JSON.stringify(job.request), createdAt, now, now + AGENT_TTL_MS);
  }

  /** The run, unless it is unknown or expired. */
  get(id: string, now: number): AgentJob | undefined {
    const row = this.db.query<Row, [string, number]>(`SELECT * FROM agent_jobs WHERE id = ? AND ${live}`).get(id, now);
    return row ? fromRow(row) : undefined;
  }

  /** Takes a processing run for the process `owner`, counting the attempt; undefined when it is not to be run. */
  claim(id: string, owner: string, now: number): number | undefined {
    return this.db
      .query<{ attempts: number }, [string, number, string, string]>(
        "UPDATE agent_jobs SET owner = ?, attempts = attempts + 1, updated_at = ? WHERE id = ? AND status = 'processing' AND owner IS NOT ? RETURNING attempts",
      )
      .get(owner, now, id, owner)?.attempts;
  }

  /**
   * Gives back the runs `owner` is executing, at a graceful stop: each stays `processing`, with no owner and the
   * attempt its claim counted given back, so that the next start resumes it. Without it every SIGTERM spent an
   * attempt and the third restart failed a healthy run; only a process that dies keeps the attempt counted.
   * Returns how many runs were released.
   */
  releaseOwned(owner: string, now: number): number {
    return this.db
      .query("UPDATE agent_jobs SET owner = NULL, attempts = MAX(attempts - 1, 0), updated_at = ? WHERE owner = ? AND status = 'processing'")
      .run(now, owner).changes;
  }

  /** Whether run `id` has trace events: a resumed run does not record `run.started` again. */
  hasTrace(id: string): boolean {
    return this.db.query("SELECT 1 FROM agent_events WHERE run_id = ? LIMIT 1").get(id) !== null;
  }

  /** Records the end of a run by `owner`; false when it is not `owner`'s any more or has ended (cancelled, say). */
  finish(id: string, owner: string, end: AgentEnd, now: number): boolean {
    const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
    return (
      this.db
        .query(
          "UPDATE agent_jobs SET status = ?, data = ?, message = ?, sources = ?, warning = ?, error = ?, tokens = ?, credits = ?, updated_at = ?, finished_at = ?, expires_at = ? WHERE id = ? AND owner = ? AND status = 'processing'",
        )
        .run(end.status, json(end.data), end.message ?? null, json(end.sources), end.warning ?? null, end.error ?? null, end.tokens, end.credits, now, now, now + AGENT_TTL_MS, id, owner).changes > 0
    );
  }

  /** Cancels a processing run of `keyId`; false when it is not processing (unknown, another key's, or ended). */
  cancel(id: string, keyId: string, now: number): boolean {
    return (
      this.db
        .query("UPDATE agent_jobs SET status = 'cancelled', updated_at = ?, finished_at = ?, expires_at = ? WHERE id = ? AND key_id = ? AND status = 'processing'")
        .run(now, now, now + AGENT_TTL_MS, id, keyId).changes > 0
    );
  }

  /** Adds credits the key paid to a processing run of `owner`; false when it is not `owner`'s any more. */
  addCredits(id: string, owner: string, credits: number): boolean {
    return this.db.query("UPDATE agent_jobs SET credits = credits + ? WHERE id = ? AND owner = ? AND status = 'processing'").run(credits, id, owner).changes > 0;
  }

  /** How many runs of `keyId` are processing. */
  processingCount(keyId: string): number {
    return this.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM agent_jobs WHERE key_id = ? AND status = 'processing'").get(keyId)?.n ?? 0;
  }

  /** Runs still `processing`: after a restart, those a previous process did not finish. */
  processing(): AgentJob[] {
    return this.db.query<Row, []>("SELECT * FROM agent_jobs WHERE status = 'processing' ORDER BY created_at").all().map(fromRow);
  }

  /** `keyId`'s runs created before `before` (epoch ms), newest first, at most `limit`. */
  list(keyId: string, before: number, limit: number, now: number): AgentJob[] {
    return this.db
      .query<Row, [string, number, number, number]>(`SELECT * FROM agent_jobs WHERE key_id = ? AND created_at < ? AND ${live} ORDER BY created_at DESC, id DESC LIMIT ?`)
      .all(keyId, before, now, limit)
      .map(fromRow);
  }

  /** The runs of a thread that are still kept, by turn. */
  thread(threadId: string, now: number): AgentJob[] {
    return this.db.query<Row, [string, number]>(`SELECT * FROM agent_jobs WHERE thread_id = ? AND ${live} ORDER BY turn`).all(threadId, now).map(fromRow);
  }

  /** The next turn number of a thread (counting expired runs too: turn numbers are never reused). */
  nextTurn(threadId: string): number {
    return (this.db.query<{ t: number | null }, [string]>("SELECT MAX(turn) AS t FROM agent_jobs WHERE thread_id = ?").get(threadId)?.t ?? 0) + 1;
  }

  /** Deletes expired runs; returns how many. */
  prune(now: number): number {
    return this.db.query("DELETE FROM agent_jobs WHERE expires_at < ? AND status != 'processing'").run(now).changes;
  }
}
