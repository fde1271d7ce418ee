/**
 * @module jobs/task-leases
 * The task side of the SQLite job store: claiming the next runnable task under a lease, renewing it, settling it
 * (complete, fail, retry, release), and reaping leases a dead or stuck worker left behind (giving up on failing hosts
 * is jobs/host-give-up). {@link SqliteJobStore} delegates its task methods here; each write is one `BEGIN IMMEDIATE`
 * transaction.
 */
import type { SerializedError } from "../errors.ts";
import { immediate } from "../storage/database.ts";
import { hostOf, optionsIndexOf, ownedTask, readJob, toTask, type TaskRow } from "./store-rows.ts";
import { finishJobIfDone, insertTasks, markFailed, RACED_REDIRECT_CODE, type StoreContext } from "./store-steps.ts";
import type { ClaimLimits, Completion, Task } from "./types.ts";

/**
 * Queued tasks, in queue order, that the first look for a runnable one reads ({@link claimTask}). Past them the
 * queue is read by (job, host) group instead: a long queue of one busy host (a batch of 100,000 pages on one site)
 * made every claim read every queued row, 35 ms each on the main thread, holding the write lock.
 */
const CLAIM_HEAD_ROWS = 256;

/**
 * Leases the oldest runnable task to `owner`, skipping busy hosts, jobs and job-hosts (JobStore.claim). A task of a
 * job that is not running is never handed out: a cancelled job's queued tasks are set `cancelled` a chunk at a time
 * after its cancel (jobs/job-endings.ts sweepEnded, the store passing the job as busy meanwhile). A claim that meets
 * one anyway (a process died mid-sweep) passes the job over and looks on, telling `onEndedJob` (the store sweeps it
 * in the background): it never comes back empty while another job has a runnable task. It used to set a chunk aside
 * and give up, and each of the pool's workers then idled a poll (1 s) per 1,000 tasks of the ended job.
 */
export function claimTask(ctx: StoreContext, owner: string, leaseMs: number, limits: ClaimLimits, onEndedJob: (jobId: string) => void = () => {}): Task | undefined {
  const { db } = ctx;
  const jobStatus = db.query<{ status: string }, [string]>("SELECT status FROM jobs WHERE id = ?");
  return immediate(db, () => {
    const t = ctx.now();
    let row = oldestRunnable(ctx, t, limits);
    // Each pass adds a job to those passed over, so this ends after as many passes as ended jobs have queued tasks.
    const passed: string[] = [];
    while (row && jobStatus.get(row.job_id)?.status !== "scraping") {
      passed.push(row.job_id);
      onEndedJob(row.job_id);
      row = oldestRunnable(ctx, t, { ...limits, busyJobs: [...limits.busyJobs, ...passed] });
    }
    if (!row) return undefined;
    db
      .query("UPDATE tasks SET status = 'active', lease_owner = ?, lease_expires_at = ?, attempts = attempts + 1 WHERE id = ?")
      .run(owner, t + leaseMs, row.id);
    return toTask({ ...row, status: "active", lease_owner: owner, lease_expires_at: t + leaseMs, attempts: row.attempts + 1 });
  });
}

/** A task row with its queue position (`SELECT *`). */
type QueuedRow = TaskRow & { created_at: number };

/**
 * The oldest queued task due at `t` whose host, job and job-host are not busy. First among the queue's head
 * ({@link CLAIM_HEAD_ROWS} rows: where a runnable task almost always is); when none there is runnable and the queue
 * is longer, the head task of each (job, host) group that is not busy (one index seek per group, `tasks_queued_group`)
 * and the oldest of those. Both give the task the one query over the whole queue gave.
 */
function oldestRunnable(ctx: StoreContext, t: number, limits: ClaimLimits): TaskRow | undefined {
  const { db } = ctx;
  const busy = [JSON.stringify(limits.busyHosts), JSON.stringify(limits.busyJobs), JSON.stringify(limits.busyJobHosts)] as const;
  // Where the head ends (an index-only read), then the oldest runnable task up to it, as one range of the index.
  const edge = db
    .query<{ created_at: number; seq: number }, [number]>("SELECT created_at, seq FROM tasks WHERE status = 'queued' ORDER BY created_at, seq LIMIT 1 OFFSET ?")
    .get(CLAIM_HEAD_ROWS - 1);
  const head = db
    .query<QueuedRow, [number, string, string, string, number, number]>(
      `SELECT * FROM tasks WHERE status = 'queued' AND not_before <= ?
         AND host NOT IN (SELECT value FROM json_each(?)) AND job_id NOT IN (SELECT value FROM json_each(?))
         AND (job_id || ' ' || host) NOT IN (SELECT value FROM json_each(?))
         AND (created_at, seq) <= (?, ?)
       ORDER BY created_at, seq LIMIT 1`,
    )
    .get(t, ...busy, edge?.created_at ?? Number.MAX_SAFE_INTEGER, edge?.seq ?? Number.MAX_SAFE_INTEGER);
  if (head || !edge) return head ?? undefined;
  const busyHosts = new Set(limits.busyHosts);
  const busyJobs = new Set(limits.busyJobs);
  const busyJobHosts = new Set(limits.busyJobHosts);
  // Each (job, host) group with queued tasks: a skip scan, one seek per group.
  const groups = db
    .query<{ g: string }, []>(
      // INDEXED BY: the planner otherwise reads every queued row through tasks_claim for each MIN.
      `WITH RECURSIVE g(k) AS (
         SELECT MIN(queue_group) FROM tasks INDEXED BY tasks_queued_group WHERE status = 'queued'
         UNION ALL
         SELECT (SELECT MIN(queue_group) FROM tasks INDEXED BY tasks_queued_group WHERE status = 'queued' AND queue_group > g.k)
         FROM g WHERE g.k IS NOT NULL
       )
       SELECT k AS g FROM g WHERE k IS NOT NULL`,
    )
    .all();
  const headOf = db.query<QueuedRow, [string, number]>(
    "SELECT * FROM tasks INDEXED BY tasks_queued_group WHERE status = 'queued' AND queue_group = ? AND not_before <= ? ORDER BY created_at, seq LIMIT 1",
  );
  let best: QueuedRow | undefined;
  for (const { g } of groups) {
    const space = g.indexOf(" ");
    if (busyJobHosts.has(g) || busyJobs.has(g.slice(0, space)) || busyHosts.has(g.slice(space + 1))) continue;
    const row = headOf.get(g, t);
    if (row && (!best || row.created_at < best.created_at || (row.created_at === best.created_at && row.seq < best.seq))) best = row;
  }
  return best;
}

/** Extends `owner`'s lease; false when the task is no longer theirs (JobStore.renew). */
export function renewLease(ctx: StoreContext, taskId: string, owner: string, leaseMs: number): boolean {
  return ctx.db
    .query("UPDATE tasks SET lease_expires_at = ? WHERE id = ? AND lease_owner = ? AND status = 'active'")
    .run(ctx.now() + leaseMs, taskId, owner).changes > 0;
}

/**
 * Stores a task's result with its counters, blocked URLs, options patch and discovered tasks, announces the page
 * and completes the job if it was the last; false when the lease was lost (JobStore.complete).
 */
export function completeTask(ctx: StoreContext, taskId: string, owner: string, c: Completion): boolean {
  const { db } = ctx;
  return immediate(db, () => {
    const task = ownedTask(db, taskId, owner);
    if (!task) return false;
    if (c.redirect && !claimRedirectTarget(ctx, task, c.redirect)) {
      const message = `Redirected to ${c.redirect.url}, a page this crawl already has.`;
      markFailed(ctx, task, { code: RACED_REDIRECT_CODE, status: 500, message });
      // Its links still count: the planner has marked them seen, so the other copy's discovery would skip them.
      addFindings(ctx, task.job_id, c);
      finishJobIfDone(ctx, task.job_id);
      return true;
    }
    if (c.denied) {
      markFailed(ctx, task, c.denied);
      addFindings(ctx, task.job_id, c);
      finishJobIfDone(ctx, task.job_id);
      return true;
    }
    const t = ctx.now();
    const body = c.document === null ? null : JSON.stringify(c.document);
    db
      .query(
        `UPDATE tasks SET status = 'done', result = ?, result_bytes = ?, lease_owner = NULL, lease_expires_at = NULL,
           finished_at = ?, done_seq = (SELECT COALESCE(MAX(done_seq), 0) + 1 FROM tasks WHERE job_id = ?) WHERE id = ?`,
      )
      .run(body, body === null ? 0 : Buffer.byteLength(body), t, task.job_id, taskId);
    if (task.kind === "page") {
      db.query("UPDATE jobs SET completed = completed + 1, credits_used = credits_used + ?, updated_at = ? WHERE id = ?")
        .run(c.credits, t, task.job_id);
    }
    addFindings(ctx, task.job_id, c);
    const job = readJob(db, task.job_id)!;
    if (task.kind === "page" && c.credits > 0) ctx.chargeHook?.(job.keyId, c.credits);
    if (task.kind === "page" && c.document && job.status === "scraping") {
      ctx.emit({ job, event: "page", success: true, data: [c.document], ...optionsIndexOf(task) });
    }
    finishJobIfDone(ctx, task.job_id);
    return true;
  });
}

/** What a finished task found for its job: robots-blocked URLs, an options patch, new tasks. */
function addFindings(ctx: StoreContext, jobId: string, c: Completion): void {
  const { db } = ctx;
  if (c.robotsBlocked?.length) {
    const ins = db.query("INSERT OR IGNORE INTO job_robots_blocked (job_id, url) VALUES (?, ?)");
    for (const u of c.robotsBlocked) ins.run(jobId, u);
  }
  if (c.optionsPatch) {
    const current = JSON.parse(db.query<{ options: string }, [string]>("SELECT options FROM jobs WHERE id = ?").get(jobId)!.options);
    const next = { ...current, ...c.optionsPatch };
    // Two robots.txt Crawl-delays can arrive, in either order: the start host's (kickoff) and, when the start page
    // moved the crawl to another host, that host's. The crawl keeps the longer, whichever finished first.
    if (typeof current.delayMs === "number" && typeof c.optionsPatch.delayMs === "number") next.delayMs = Math.max(current.delayMs, c.optionsPatch.delayMs);
    db.query("UPDATE jobs SET options = ? WHERE id = ?").run(JSON.stringify(next), jobId);
  }
  if (c.discovered?.length) insertTasks(ctx, jobId, c.discovered, c.limit ?? Number.MAX_SAFE_INTEGER);
}

/**
 * Takes the dedup key a redirected page landed on, with an `alias` row (done, no result, outside every count),
 * so that a link to the target found later is a duplicate; false when another task of the job holds the key.
 */
function claimRedirectTarget(ctx: StoreContext, task: TaskRow, target: { key: string; url: string }): boolean {
  if (target.key === task.dedup_key) return true;
  const t = ctx.now();
  return (
    ctx.db
      .query(
        `INSERT OR IGNORE INTO tasks (id, job_id, kind, seq, url, dedup_key, depth, host, status, not_before, created_at, finished_at)
         VALUES (?, ?, 'alias', (SELECT COALESCE(MAX(seq), 0) + 1 FROM tasks WHERE job_id = ?), ?, ?, ?, ?, 'done', ?, ?, ?)`,
      )
      .run(ctx.newId(), task.job_id, task.job_id, target.url, target.key, task.depth, hostOf(target.url), t, t, t).changes > 0
  );
}

/** Finishes `owner`'s task as failed and completes the job if it was the last (JobStore.fail). */
export function failTask(ctx: StoreContext, taskId: string, owner: string, error: SerializedError): boolean {
  return immediate(ctx.db, () => {
    const task = ownedTask(ctx.db, taskId, owner);
    if (!task) return false;
    markFailed(ctx, task, error);
    finishJobIfDone(ctx, task.job_id);
    return true;
  });
}

/** Puts `owner`'s task back in the queue, runnable from `notBefore` (JobStore.retry). */
export function retryTask(ctx: StoreContext, taskId: string, owner: string, notBefore: number): boolean {
  return ctx.db
    .query("UPDATE tasks SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, not_before = ? WHERE id = ? AND lease_owner = ? AND status = 'active'")
    .run(notBefore, taskId, owner).changes > 0;
}

/**
 * Puts `owner`'s task back in the queue, runnable from `notBefore`, and gives back the attempt its claim counted
 * (JobStore.release): the page did not run to an outcome (the pool stopped, or the store could not read its job,
 * record what it answered, or fail the job of a revoked key). `retry` keeps the count, so each graceful restart used
 * to spend one of a page's MAX_PAGE_ATTEMPTS, and after two a single 5xx was final. A process that dies instead never
 * gets here: its claim stays counted and `recoverActive` adds a stall, so a page that crashes the process still runs
 * out of tries.
 */
export function releaseTask(ctx: StoreContext, taskId: string, owner: string, notBefore: number): boolean {
  return ctx.db
    .query(
      `UPDATE tasks SET status = 'queued', lease_owner = NULL, lease_expires_at = NULL, not_before = ?, attempts = MAX(attempts - 1, 0)
        WHERE id = ? AND lease_owner = ? AND status = 'active'`,
    )
    .run(notBefore, taskId, owner).changes > 0;
}

/** Requeues expired leases, failing tasks that stalled more than `maxStalls` times (JobStore.reap). */
export function reapExpired(ctx: StoreContext, maxStalls: number): number {
  const { db } = ctx;
  return immediate(db, () => {
    const t = ctx.now();
    const expired = db
      .query<TaskRow, [number]>("SELECT * FROM tasks WHERE status = 'active' AND lease_expires_at < ?")
      .all(t);
    for (const task of expired) stall(ctx, task, maxStalls);
    return expired.length;
  });
}

/**
 * Requeues every active task: at boot, all of them belong to a dead process (JobStore.recoverAll). Each counts as
 * a stall, so a page that kills the process whenever it runs (a poison page) is failed after `maxStalls`
 * restarts instead of being retried forever (reliability.md B3).
 */
export function recoverActive(ctx: StoreContext, maxStalls: number): number {
  return immediate(ctx.db, () => {
    const active = ctx.db.query<TaskRow, []>("SELECT * FROM tasks WHERE status = 'active'").all();
    for (const task of active) stall(ctx, task, maxStalls);
    return active.length;
  });
}

/** A task whose lease died with its worker: requeued, or failed with `SCRAPE_RETRY_LIMIT` past `maxStalls`. */
function stall(ctx: StoreContext, task: TaskRow, maxStalls: number): void {
  const { db } = ctx;
  if (task.stalls + 1 > maxStalls) {
    db.query("UPDATE tasks SET stalls = stalls + 1 WHERE id = ?").run(task.id);
    markFailed(ctx, task, { code: "SCRAPE_RETRY_LIMIT", status: 500, message: `The page stalled ${task.stalls + 1} times and was given up.` });
    finishJobIfDone(ctx, task.job_id);
  } else {
    db.query("UPDATE tasks SET status = 'queued', stalls = stalls + 1, lease_owner = NULL, lease_expires_at = NULL WHERE id = ?").run(task.id);
  }
}
