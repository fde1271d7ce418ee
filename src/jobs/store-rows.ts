/**
 * @module jobs/store-rows
 * The SQLite row shapes of `jobs` and `tasks` and their mapping to {@link Job} and {@link Task}, kept apart from
 * the store's transactions so the lifecycle and the lease code read rows the same way.
 */
import type { Database } from "bun:sqlite";
import type { Job, JobStatus, Task } from "./types.ts";

/** A `jobs` row as SQLite returns it (snake_case, options as JSON text). */
export type JobRow = {
  id: string; kind: Job["kind"]; key_id: string; status: JobStatus; url: string | null; options: string;
  public_base_url: string; total: number; completed: number; credits_used: number; error: string | null;
  created_at: number; updated_at: number; completed_at: number | null; expires_at: number;
};
/** A `tasks` row as SQLite returns it; the store's internals work on rows, callers only see {@link Task}. */
export type TaskRow = {
  id: string; job_id: string; kind: Task["kind"]; seq: number; url: string; source_url: string | null; dedup_key: string; depth: number; host: string;
  status: Task["status"]; attempts: number; stalls: number; lease_owner: string | null; lease_expires_at: number | null;
  options_index: number | null;
};

/** Maps a `jobs` row to the {@link Job} callers see. */
export function toJob(r: JobRow): Job {
  return {
    id: r.id, kind: r.kind, keyId: r.key_id, status: r.status, url: r.url, options: JSON.parse(r.options),
    publicBaseUrl: r.public_base_url, total: r.total, completed: r.completed, creditsUsed: r.credits_used,
    error: r.error, createdAt: r.created_at, updatedAt: r.updated_at, completedAt: r.completed_at, expiresAt: r.expires_at,
  };
}

/** Maps a `tasks` row to the {@link Task} callers see. */
export function toTask(r: TaskRow): Task {
  return {
    id: r.id, jobId: r.job_id, kind: r.kind, seq: r.seq, url: r.url, sourceUrl: r.source_url ?? r.url, depth: r.depth, host: r.host, status: r.status,
    attempts: r.attempts, stalls: r.stalls, leaseOwner: r.lease_owner, leaseExpiresAt: r.lease_expires_at,
    ...optionsIndexOf(r),
  };
}

/** The field naming a task's appended options, if it has any ({@link Task.optionsIndex}, JobEvent.optionsIndex). */
export function optionsIndexOf(task: TaskRow): { optionsIndex?: number } {
  return task.options_index === null || task.options_index === undefined ? {} : { optionsIndex: task.options_index };
}

/** The host a task is stored under (per-host politeness and give-up); "" for a URL that does not parse. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

/** Reads one job; undefined when it does not exist. */
export function readJob(db: Database, id: string): Job | undefined {
  const r = db.query<JobRow, [string]>("SELECT * FROM jobs WHERE id = ?").get(id);
  return r ? toJob(r) : undefined;
}

/** The task if `owner` still holds its lease; undefined when it was reaped, cancelled or finished. */
export function ownedTask(db: Database, taskId: string, owner: string): TaskRow | undefined {
  return db
    .query<TaskRow, [string, string]>("SELECT * FROM tasks WHERE id = ? AND lease_owner = ? AND status = 'active'")
    .get(taskId, owner) ?? undefined;
}
