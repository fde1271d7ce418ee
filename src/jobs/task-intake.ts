/**
 * @module jobs/task-intake
 * Accepting a large list of tasks (a batch of up to ~264,000 URLs, or an `appendToId` of as many) without holding the
 * event loop, and still all or nothing. The request opens an intake (`job_intakes`), writes its tasks as pending rows
 * naming it, one row of {@link INLINE_TASKS} per transaction with the event loop free between them, and its last
 * transaction closes the intake: only then are the rows the job's. Rows of an open intake are held: not loaded, not
 * counted, and they do not keep a job from completing. A batch created so is `creating` until that last transaction
 * (nothing lists or runs it). Writing the list in the request's one transaction held every other request ~0.3–0.6 s
 * (20 MB of JSON made and written at once); marking the rows themselves at the end rewrote them (~60 ms).
 *
 * A request that fails drops its rows and intake; one whose process died leaves them open, and the next start drops
 * them (jobs/task-loader.ts): one process serves a data directory (cli/data-dir-lock.ts), so an intake open when it
 * starts belongs to no live request.
 */
import type { Database } from "bun:sqlite";
import { CrawlboxError } from "../errors.ts";
import { immediate } from "../storage/database.ts";
import { createYielder } from "../crawl/filter-yielding.ts";
import { type DeferredRow, INLINE_TASKS, insertPendingRow } from "./pending-tasks.ts";
import type { NewTask } from "./types.ts";

/** The status of a job whose tasks are still being written (jobs/sqlite-store.ts createJobYielding): hidden. */
export const CREATING_STATUS: string = "creating";

/** Rows an abandoned or failed intake drops per transaction (each ~150–300 KB that `secure_delete` overwrites). */
export const DROP_ROWS_PER_TRANSACTION = 8;

/** SQL: pending row `p` is held by an intake still open. */
export const HELD_SQL = "EXISTS (SELECT 1 FROM job_intakes i WHERE i.intake = p.intake AND i.open = 1)";

/**
 * 503: the rows a request was storing are gone before it could accept them (its job was deleted meanwhile). Only a
 * clean-up racing the request can do that; retrying the request stores them again.
 */
export class IntakeLostError extends CrawlboxError {
  constructor() {
    super("JOB_INTAKE_LOST", 503, "The URLs of this request could not all be stored; nothing was accepted. Try again.", { retryable: true });
  }
}

/** Gives the event loop back, once a slice of {@link createYielder}'s length has passed since it last did. */
export type Pause = () => Promise<void> | undefined;

/** Opens intake `intake` for `jobId`, in the caller's transaction: rows written for it are held until it closes. */
export function openIntake(db: Database, intake: string, jobId: string): void {
  db.query("INSERT INTO job_intakes (intake, job_id, open) VALUES (?, ?, 1)").run(intake, jobId);
}

/**
 * Writes `tasks` for `jobId` as rows of the open `intake`, one row per transaction, pausing between; queued later
 * at `createdAt`'s place in line. Returns the rows written, to cache once {@link closeIntake} has committed.
 */
export async function writeHeldRows(db: Database, jobId: string, tasks: readonly NewTask[], intake: string, createdAt: number, pause: Pause = createYielder()): Promise<DeferredRow[]> {
  const rows: DeferredRow[] = [];
  for (let i = 0; i < tasks.length; i += INLINE_TASKS) {
    const wait = pause();
    if (wait) await wait;
    const rowTasks = tasks.slice(i, i + INLINE_TASKS);
    rows.push({ token: immediate(db, () => insertPendingRow(db, jobId, rowTasks, createdAt, intake)), tasks: rowTasks });
  }
  return rows;
}

/**
 * Closes `intake`, its rows now pending, with `optionsIndex` for their tasks (an append's options, known only now),
 * in the caller's transaction; throws {@link IntakeLostError} unless it is still open with all `rows`.
 */
export function closeIntake(db: Database, intake: string, rows: number, optionsIndex?: number): void {
  const closed = db.query("UPDATE job_intakes SET open = 0, options_index = ? WHERE intake = ? AND open = 1").run(optionsIndex ?? null, intake).changes;
  const kept = db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM job_pending_tasks WHERE intake = ?").get(intake)!.n;
  if (closed !== 1 || kept !== rows) throw new IntakeLostError();
}

/**
 * Drops `intake`'s rows a few per transaction, pausing between, then the intake, and the job it was creating if any
 * (`creatingJobId`, still `creating`).
 */
export async function dropIntake(db: Database, intake: string, creatingJobId?: string, pause: Pause = createYielder()): Promise<void> {
  const drop = db.query("DELETE FROM job_pending_tasks WHERE seq IN (SELECT seq FROM job_pending_tasks WHERE intake = ? LIMIT ?)");
  while (immediate(db, () => drop.run(intake, DROP_ROWS_PER_TRANSACTION).changes) > 0) {
    const wait = pause();
    if (wait) await wait;
  }
  immediate(db, () => {
    db.query("DELETE FROM job_intakes WHERE intake = ?").run(intake);
    if (creatingJobId !== undefined) db.query("DELETE FROM jobs WHERE id = ? AND status = ?").run(creatingJobId, CREATING_STATUS);
  });
}

/** The caller's part of an intake (see {@link runIntake}). */
export interface IntakeSteps<T> {
  /** In the transaction that opens the intake, before any row: checks, and the row of a job being created. */
  open?: () => void;
  /**
   * In the last transaction: checks again, records what the request adds, and calls `close` (with an append's
   * options index) to make the rows the job's; what it returns is the intake's result.
   */
  accept: (close: (optionsIndex?: number) => void) => T;
  /** The job the intake creates (its row `creating`): dropped with the rows when the request fails. */
  creatingJobId?: string;
}

/**
 * Stores `tasks` for `jobId` all or nothing without holding the event loop: opens an intake (with `steps.open`),
 * writes the rows a transaction each, then runs `steps.accept` in the last transaction. When anything throws, what
 * was written is dropped (best effort: the next start drops what is left) and the error is rethrown. Resolves with
 * `accept`'s result and the rows, to cache once committed.
 */
export async function runIntake<T>(db: Database, jobId: string, tasks: readonly NewTask[], createdAt: number, steps: IntakeSteps<T>): Promise<{ result: T; rows: DeferredRow[] }> {
  const intake = crypto.randomUUID();
  immediate(db, () => {
    steps.open?.();
    openIntake(db, intake, jobId);
  });
  try {
    const rows = await writeHeldRows(db, jobId, tasks, intake, createdAt);
    const result = immediate(db, () => steps.accept((optionsIndex) => closeIntake(db, intake, rows.length, optionsIndex)));
    return { result, rows };
  } catch (err) {
    await dropIntake(db, intake, steps.creatingJobId).catch(() => {});
    // A row refused for its job: the job was deleted meanwhile (see IntakeLostError), not a fault to answer 500.
    throw isForeignKeyFailure(err) ? new IntakeLostError() : err;
  }
}

/** Whether `err` is SQLite refusing a row whose foreign key names a row that is gone. */
function isForeignKeyFailure(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === "SQLITE_CONSTRAINT_FOREIGNKEY";
}

/** What a dead process left half-accepted: its open intakes (with the job each was creating, if any), and jobs. */
export interface AbandonedIntakes {
  intakes: { intake: string; creatingJobId?: string }[];
  /** Jobs left `creating` without an intake. */
  jobIds: string[];
}

/** Lists the intakes a dead process left open; call at start, before any request can open one. */
export function findAbandonedIntakes(db: Database): AbandonedIntakes {
  const creating = new Set(db.query<{ id: string }, [string]>("SELECT id FROM jobs WHERE status = ?").all(CREATING_STATUS).map((r) => r.id));
  const intakes = db
    .query<{ intake: string; job_id: string }, []>("SELECT intake, job_id FROM job_intakes WHERE open = 1")
    .all()
    .map((r) => (creating.delete(r.job_id) ? { intake: r.intake, creatingJobId: r.job_id } : { intake: r.intake }));
  return { intakes, jobIds: [...creating] };
}

/** Drops what {@link findAbandonedIntakes} found, a few rows per transaction. */
export async function dropAbandonedIntakes(db: Database, abandoned: AbandonedIntakes): Promise<void> {
  for (const { intake, creatingJobId } of abandoned.intakes) await dropIntake(db, intake, creatingJobId);
  for (const id of abandoned.jobIds) immediate(db, () => db.query("DELETE FROM jobs WHERE id = ? AND status = ?").run(id, CREATING_STATUS));
}
