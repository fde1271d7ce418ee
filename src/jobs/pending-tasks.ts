/**
 * @module jobs/pending-tasks
 * Tasks accepted with their job but not yet in the queue: a large batch (or `appendToId`) stores its URLs as rows of
 * `job_pending_tasks`, {@link INLINE_TASKS} to a row, and {@link loadPendingChunk} moves them into `tasks` a row per
 * transaction. Inserting every task at once held the event loop 1.6–6 s for a batch of 100,000–200,000 URLs (each
 * task row updates seven indexes), during which no other request, not even `/health`, was answered. Nothing is lost
 * in between: the rows are durable before the request is answered, a restart resumes from the first row left, and a
 * job with pending tasks never completes (store-steps.ts finishJobIfDone).
 *
 * A row of an intake still open belongs to a request still storing its tasks (jobs/task-intake.ts): it is not
 * loaded, not counted, and not the job's until that request's last transaction closes the intake.
 *
 * Like store-steps, none of these functions opens a transaction; the caller's transaction makes them atomic.
 */
import type { Database } from "bun:sqlite";
import { insertTasks, type StoreContext } from "./store-steps.ts";
import { HELD_SQL } from "./task-intake.ts";
import type { NewTask } from "./types.ts";

/**
 * Most tasks a create or append inserts at once, in the transaction that accepts them; more wait in
 * `job_pending_tasks`. At ~10–25 µs a task (seven indexes), also the size of each pending row, so of each later
 * chunk: a few tens of ms. (One row of a whole 264,000-URL batch made every chunk rewrite its 20 MB of JSON to move
 * `next_index`: 40–650 ms a chunk.)
 */
export const INLINE_TASKS = 2000;

/** A task as stored in a pending row: `[kind, url, sourceUrl, dedupKey, depth, notBefore, optionsIndex]`. */
type PackedTask = [NewTask["kind"], string, string | null, string, number, number | null, number | null];

const pack = (t: NewTask): PackedTask => [t.kind, t.url, t.sourceUrl ?? null, t.dedupKey, t.depth, t.notBefore ?? null, t.optionsIndex ?? null];

function unpack(p: PackedTask, rowOptionsIndex: number | null): NewTask {
  const task: NewTask = { kind: p[0], url: p[1], dedupKey: p[3], depth: p[4] };
  if (p[2] !== null) task.sourceUrl = p[2];
  if (p[5] !== null) task.notBefore = p[5];
  const optionsIndex = p[6] ?? rowOptionsIndex;
  if (optionsIndex !== null) task.optionsIndex = optionsIndex;
  return task;
}

/**
 * Parsed pending rows by their token, so that a row is not parsed again when it is loaded. Filled once the row's
 * transaction (or its intake's last one) has committed (a token never names another row, so an entry left by a
 * rolled-back transaction is never read); after a restart, when the row is loaded.
 */
export type PendingCache = Map<string, NewTask[]>;

/** A pending row written in a transaction: its token and tasks, to cache once that transaction has committed. */
export interface DeferredRow {
  token: string;
  tasks: NewTask[];
}

/**
 * What {@link addTasks} did: pages queued now, and the deferred rows to cache once the transaction commits (their
 * tasks are counted in the job's `total` already, and in the queue status as queued).
 */
export interface AddedTasks {
  added: number;
  deferred?: DeferredRow[];
}

/**
 * Writes one pending row of `tasks` (at most {@link INLINE_TASKS}) for `jobId`, queued later at `createdAt`'s place in
 * line; of `intake` when given (held while it is open: jobs/task-intake.ts). Returns its token.
 */
export function insertPendingRow(db: Database, jobId: string, tasks: readonly NewTask[], createdAt: number, intake: string | null = null): string {
  const token = crypto.randomUUID();
  db
    .query("INSERT INTO job_pending_tasks (token, job_id, tasks, task_count, created_at, intake) VALUES (?, ?, ?, ?, ?, ?)")
    .run(token, jobId, JSON.stringify(tasks.map(pack)), tasks.length, createdAt, intake);
  return token;
}

/**
 * Adds `tasks` to job `jobId`: up to {@link INLINE_TASKS} into the queue now, more into pending rows (none queued
 * now: the request that adds them is answered sooner). Only batches add more at once, without a `limit`: a limit
 * is applied only to tasks queued now.
 */
export function addTasks(ctx: StoreContext, jobId: string, tasks: NewTask[], limit: number): AddedTasks {
  if (tasks.length <= INLINE_TASKS || limit !== Number.MAX_SAFE_INTEGER) return { added: insertTasks(ctx, jobId, tasks, limit) };
  const t = ctx.now();
  const deferred: DeferredRow[] = [];
  for (let i = 0; i < tasks.length; i += INLINE_TASKS) {
    const rowTasks = tasks.slice(i, i + INLINE_TASKS);
    deferred.push({ token: insertPendingRow(ctx.db, jobId, rowTasks, t), tasks: rowTasks });
  }
  // Counted at once, as upstream's total is the batch's URL count from the start: a client's progress does not jump.
  ctx.db.query("UPDATE jobs SET total = total + ?, updated_at = ? WHERE id = ?").run(tasks.length, t, jobId);
  return { added: 0, deferred };
}

/**
 * Drops up to `maxRows` of a job's pending rows (it was cancelled or failed: they will never run), held ones
 * included; returns how many. A row is ~300 KB of JSON that `secure_delete` overwrites: the rows of a 264,000-URL
 * batch at once held the event loop for tens of ms.
 */
export function dropPendingTasks(db: Database, cache: PendingCache, jobId: string, maxRows = Number.MAX_SAFE_INTEGER): number {
  const dropped = db
    .query<{ token: string }, [string, number]>(
      "DELETE FROM job_pending_tasks WHERE seq IN (SELECT seq FROM job_pending_tasks WHERE job_id = ? LIMIT ?) RETURNING token",
    )
    .all(jobId, maxRows);
  for (const { token } of dropped) cache.delete(token);
  return dropped.length;
}

/** What one chunk did: the job it was for, and whether that job's pending tasks are now all queued. */
export interface LoadedChunk {
  jobId: string;
  added: number;
  rowDone: boolean;
}

/**
 * Moves up to `max` tasks of the oldest pending row (not held by an open intake) into the queue, with the row's own
 * creation time (so that they keep the place in line their job had when it was accepted). A row of a job that has
 * ended meanwhile (cancelled: its rows are dropped a few at a time) is dropped instead. Undefined when nothing is
 * pending.
 */
export function loadPendingChunk(ctx: StoreContext, cache: PendingCache, max: number): LoadedChunk | undefined {
  const { db } = ctx;
  const row = db
    .query<{ seq: number; token: string; job_id: string; next_index: number; created_at: number; options_index: number | null; status: string }, []>(
      `SELECT p.seq, p.token, p.job_id, p.next_index, p.created_at, j.status,
         (SELECT i.options_index FROM job_intakes i WHERE i.intake = p.intake) AS options_index
       FROM job_pending_tasks p JOIN jobs j ON j.id = p.job_id WHERE p.intake IS NULL OR NOT ${HELD_SQL} ORDER BY p.seq LIMIT 1`,
    )
    .get();
  if (!row) return undefined;
  if (row.status !== "scraping") {
    db.query("DELETE FROM job_pending_tasks WHERE seq = ?").run(row.seq);
    cache.delete(row.token);
    return { jobId: row.job_id, added: 0, rowDone: true };
  }
  let tasks = cache.get(row.token);
  if (!tasks) {
    const packed = db.query<{ tasks: string }, [number]>("SELECT tasks FROM job_pending_tasks WHERE seq = ?").get(row.seq)!;
    tasks = (JSON.parse(packed.tasks) as PackedTask[]).map((p) => unpack(p, row.options_index));
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
    // Only a row larger than the chunk (one written before rows were cut to INLINE_TASKS, or a smaller chunk size).
    db.query("UPDATE job_pending_tasks SET next_index = ? WHERE seq = ?").run(end, row.seq);
  }
  return { jobId: row.job_id, added, rowDone };
}
