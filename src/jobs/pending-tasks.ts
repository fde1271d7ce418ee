/**
 * @module jobs/pending-tasks
 * Tasks accepted with their job but not yet in the queue: a large batch (or `appendToId`) stores its URLs as one
 * row of `job_pending_tasks`, in the transaction that accepts them, and {@link loadPendingChunk} moves them into
 * `tasks` a chunk per transaction. Inserting every task at once held the event loop 1.6–6 s for a batch of
 * 100,000–200,000 URLs (each task row updates seven indexes), during which no other request, not even `/health`,
 * was answered. Nothing is lost in between: the row is durable before the request is answered, a restart resumes
 * from `next_index`, and a job with pending tasks never completes (store-steps.ts finishJobIfDone).
 *
 * Like store-steps, none of these functions opens a transaction; the caller's transaction makes them atomic.
 */
import type { Database } from "bun:sqlite";
import { insertTasks, type StoreContext } from "./store-steps.ts";
import type { NewTask } from "./types.ts";

/**
 * Most tasks a create or append inserts at once, in the transaction that accepts them; more wait in
 * `job_pending_tasks`. At ~10–25 µs a task (seven indexes), also the size of each later chunk: a few tens of ms.
 */
export const INLINE_TASKS = 2000;

/** A task as stored in a pending row: `[kind, url, sourceUrl, dedupKey, depth, notBefore, optionsIndex]`. */
type PackedTask = [NewTask["kind"], string, string | null, string, number, number | null, number | null];

const pack = (t: NewTask): PackedTask => [t.kind, t.url, t.sourceUrl ?? null, t.dedupKey, t.depth, t.notBefore ?? null, t.optionsIndex ?? null];

function unpack(p: PackedTask): NewTask {
  const task: NewTask = { kind: p[0], url: p[1], dedupKey: p[3], depth: p[4] };
  if (p[2] !== null) task.sourceUrl = p[2];
  if (p[5] !== null) task.notBefore = p[5];
  if (p[6] !== null) task.optionsIndex = p[6];
  return task;
}

/**
 * Parsed pending rows by their token, so that each chunk does not parse the whole list again (20 MB of JSON for the
 * largest batch a 10 MB body holds). Filled once the row's transaction has committed (a token never names another
 * row, so an entry left by a rolled-back transaction is never read); after a restart, on the row's first chunk.
 */
export type PendingCache = Map<string, NewTask[]>;

/**
 * What {@link addTasks} did: pages queued now, and the deferred ones to cache once the transaction commits (they are
 * counted in the job's `total` already, and in the queue status as queued).
 */
export interface AddedTasks {
  added: number;
  deferred?: { token: string; tasks: NewTask[] };
}

/**
 * Adds `tasks` to job `jobId`: up to {@link INLINE_TASKS} into the queue now, more into a pending row (none queued
 * now: the request that adds them is answered sooner). Only batches add more at once, without a `limit`: a limit
 * is applied only to tasks queued now.
 */
export function addTasks(ctx: StoreContext, jobId: string, tasks: NewTask[], limit: number): AddedTasks {
  if (tasks.length <= INLINE_TASKS || limit !== Number.MAX_SAFE_INTEGER) return { added: insertTasks(ctx, jobId, tasks, limit) };
  const token = crypto.randomUUID();
  const t = ctx.now();
  ctx.db
    .query("INSERT INTO job_pending_tasks (token, job_id, tasks, task_count, created_at) VALUES (?, ?, ?, ?, ?)")
    .run(token, jobId, JSON.stringify(tasks.map(pack)), tasks.length, t);
  // Counted at once, as upstream's total is the batch's URL count from the start: a client's progress does not jump.
  ctx.db.query("UPDATE jobs SET total = total + ?, updated_at = ? WHERE id = ?").run(tasks.length, t, jobId);
  return { added: 0, deferred: { token, tasks } };
}

/** Drops a job's pending tasks (cancelled or failed: they will never run). */
export function dropPendingTasks(db: Database, cache: PendingCache, jobId: string): void {
  for (const { token } of db.query<{ token: string }, [string]>("DELETE FROM job_pending_tasks WHERE job_id = ? RETURNING token").all(jobId)) cache.delete(token);
}

/** What one chunk did: the job it was for, and whether that job's pending tasks are now all queued. */
export interface LoadedChunk {
  jobId: string;
  added: number;
  rowDone: boolean;
}

/**
 * Moves up to `max` tasks of the oldest pending row into the queue, with the row's own creation time (so that
 * they keep the place in line their job had when it was accepted). Undefined when nothing is pending.
 */
export function loadPendingChunk(ctx: StoreContext, cache: PendingCache, max: number): LoadedChunk | undefined {
  const { db } = ctx;
  const row = db
    .query<{ seq: number; token: string; job_id: string; next_index: number; created_at: number }, []>(
      "SELECT seq, token, job_id, next_index, created_at FROM job_pending_tasks ORDER BY seq LIMIT 1",
    )
    .get();
  if (!row) return undefined;
  let tasks = cache.get(row.token);
  if (!tasks) {
    const packed = db.query<{ tasks: string }, [number]>("SELECT tasks FROM job_pending_tasks WHERE seq = ?").get(row.seq)!;
    tasks = (JSON.parse(packed.tasks) as PackedTask[]).map(unpack);
    cache.set(row.token, tasks);
  }
  const end = Math.min(tasks.length, row.next_index + max);
  const added = insertTasks(ctx, row.job_id, tasks.slice(row.next_index, end), Number.MAX_SAFE_INTEGER, row.created_at, false);
  // The total counted every task when it was accepted: one that turned out a duplicate (same dedup key) is not a page.
  if (added < end - row.next_index) ctx.db.query("UPDATE jobs SET total = total - ? WHERE id = ?").run(end - row.next_index - added, row.job_id);
  const rowDone = end >= tasks.length;
  if (rowDone) {
    db.query("DELETE FROM job_pending_tasks WHERE seq = ?").run(row.seq);
    cache.delete(row.token);
  } else {
    db.query("UPDATE job_pending_tasks SET next_index = ? WHERE seq = ?").run(end, row.seq);
  }
  return { jobId: row.job_id, added, rowDone };
}
