/**
 * @module jobs/spare-tasks
 * Pages a crawl found while it was at its `limit`. The store turns them away then, but a page that later fails for
 * good gives its place back (api-v2.md §5.6: upstream's limit counts the pages that did not fail). The crawl planner
 * hands each link to the store once, so a page turned away was never offered again, and a crawl whose pages failed
 * ended with fewer results than `limit` on a site that had more. The store keeps them here instead, in the order
 * found, and enqueues the first of them as places come free (store-steps.ts markFailed).
 *
 * They live in the job store's database (`job_spare_tasks`, `job_spare_counts`), written in the store's own
 * transactions: a refill that rolls back keeps the page it took, and a crawl resumed after a restart still has them
 * (in memory, both lost them). A job enqueues at most {@link refillBudget} of them: when every page fails alike (an
 * action whose selector most pages lack), each refilled page failing would otherwise free a place for the next,
 * through all the spares.
 */
import { Database } from "bun:sqlite";
import { migrate } from "../storage/database.ts";
import { hostOf } from "./store-rows.ts";
import type { NewTask } from "./types.ts";

/** Most pages kept per job: enough to refill the places of many failed pages, bounded for a huge site. */
export const MAX_SPARE_TASKS_PER_JOB = 1000;

/** The fewest spare pages a job may enqueue, whatever its `limit`. */
export const MIN_REFILL_BUDGET = 10;

/** Spare pages a crawl of `limit` may enqueue in all: as many as its limit, at least {@link MIN_REFILL_BUDGET}. */
export function refillBudget(limit: number): number {
  return Math.max(MIN_REFILL_BUDGET, Math.min(limit, MAX_SPARE_TASKS_PER_JOB));
}

/** A `job_spare_tasks` row as SQLite returns it. */
type SpareRow = { dedup_key: string; url: string; source_url: string | null; depth: number; not_before: number | null; options_index: number | null };

function toTask(r: SpareRow): NewTask {
  const task: NewTask = { kind: "page", url: r.url, dedupKey: r.dedup_key, depth: r.depth };
  if (r.source_url !== null) task.sourceUrl = r.source_url;
  if (r.not_before !== null) task.notBefore = r.not_before;
  if (r.options_index !== null) task.optionsIndex = r.options_index;
  return task;
}

/**
 * Per job, its spare pages by dedup key in the order found, and how many it has enqueued. Every method is one or a
 * few statements on `db`, in the caller's transaction when there is one (the store's always is). Without a `db`, a
 * private in-memory database of its own.
 */
export class SpareTasks {
  constructor(private readonly db: Database = privateDatabase()) {}

  /** Keeps the pages among `tasks` (turned away at the limit) for `jobId`, up to {@link MAX_SPARE_TASKS_PER_JOB}. */
  keep(jobId: string, tasks: readonly NewTask[]): void {
    let kept = this.count(jobId);
    if (kept >= MAX_SPARE_TASKS_PER_JOB) return;
    let position = this.db.query<{ p: number | null }, [string]>("SELECT MAX(position) AS p FROM job_spare_tasks WHERE job_id = ?").get(jobId)!.p ?? 0;
    const insert = this.db.query(
      `INSERT OR IGNORE INTO job_spare_tasks (job_id, dedup_key, position, url, source_url, depth, host, not_before, options_index)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const task of tasks) {
      if (task.kind !== "page") continue;
      if (kept >= MAX_SPARE_TASKS_PER_JOB) return;
      const r = insert.run(jobId, task.dedupKey, position + 1, task.url, task.sourceUrl ?? null, task.depth, hostOf(task.url), task.notBefore ?? null, task.optionsIndex ?? null);
      if (r.changes > 0) {
        position++;
        kept++;
      }
    }
  }

  /**
   * Takes `jobId`'s oldest spare page while it has enqueued fewer than `budget`, except those on `unwelcomeHosts`
   * (hosts failing to answer now: a place freed by a dead host's page goes to another host's page; theirs stay kept
   * for later); undefined when there is none to take.
   */
  take(jobId: string, unwelcomeHosts: ReadonlySet<string>, budget: number): NewTask | undefined {
    if (this.enqueued(jobId) >= budget) return undefined;
    const row = this.db
      .query<SpareRow, [string, string]>(
        `SELECT dedup_key, url, source_url, depth, not_before, options_index FROM job_spare_tasks
         WHERE job_id = ? AND host NOT IN (SELECT value FROM json_each(?)) ORDER BY position LIMIT 1`,
      )
      .get(jobId, JSON.stringify([...unwelcomeHosts]));
    if (!row) return undefined;
    this.db.query("DELETE FROM job_spare_tasks WHERE job_id = ? AND dedup_key = ?").run(jobId, row.dedup_key);
    this.db
      .query("INSERT INTO job_spare_counts (job_id, enqueued) VALUES (?, 1) ON CONFLICT (job_id) DO UPDATE SET enqueued = enqueued + 1")
      .run(jobId);
    return toTask(row);
  }

  /** Gives back, as the oldest, a page {@link take} took and the store did not enqueue (it was at its limit again). */
  giveBack(jobId: string, task: NewTask): void {
    if (this.db.query("UPDATE job_spare_counts SET enqueued = enqueued - 1 WHERE job_id = ?").run(jobId).changes === 0) return;
    const first = this.db.query<{ p: number | null }, [string]>("SELECT MIN(position) AS p FROM job_spare_tasks WHERE job_id = ?").get(jobId)!.p ?? 1;
    this.db
      .query(
        `INSERT OR IGNORE INTO job_spare_tasks (job_id, dedup_key, position, url, source_url, depth, host, not_before, options_index)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(jobId, task.dedupKey, first - 1, task.url, task.sourceUrl ?? null, task.depth, hostOf(task.url), task.notBefore ?? null, task.optionsIndex ?? null);
  }

  /** Whether `jobId` has spare pages. */
  has(jobId: string): boolean {
    return this.db.query("SELECT 1 FROM job_spare_tasks WHERE job_id = ? LIMIT 1").get(jobId) !== null;
  }

  /** Forgets `jobId` (it ended). */
  delete(jobId: string): void {
    this.db.query("DELETE FROM job_spare_tasks WHERE job_id = ?").run(jobId);
    this.db.query("DELETE FROM job_spare_counts WHERE job_id = ?").run(jobId);
  }

  private count(jobId: string): number {
    return this.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM job_spare_tasks WHERE job_id = ?").get(jobId)!.n;
  }

  private enqueued(jobId: string): number {
    return this.db.query<{ n: number }, [string]>("SELECT enqueued AS n FROM job_spare_counts WHERE job_id = ?").get(jobId)?.n ?? 0;
  }
}

/** An in-memory database with the schema, for a SpareTasks of its own (the store passes its database). */
function privateDatabase(): Database {
  const db = new Database(":memory:", { strict: true });
  migrate(db);
  return db;
}
