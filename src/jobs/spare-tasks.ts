/**
 * @module jobs/spare-tasks
 * Pages a crawl found while it was at its `limit`. The store turns them away then, but a page that later fails for
 * good gives its place back (api-v2.md §5.6: upstream's limit counts the pages that did not fail). The crawl planner
 * hands each link to the store once, so a page turned away was never offered again, and a crawl whose pages failed
 * ended with fewer results than `limit` on a site that had more. The store keeps them here instead, in the order
 * found, and enqueues the first of them as places come free (store-steps.ts markFailed).
 *
 * They are kept in memory only: after a restart a crawl fills its freed places from pages it finds from then on. A
 * job enqueues at most {@link refillBudget} of them: when every page fails alike (an action whose selector most pages
 * lack), each refilled page failing would otherwise free a place for the next, through all the spares.
 */
import type { NewTask } from "./types.ts";
import { hostOf } from "./store-rows.ts";

/** Most pages kept per job: enough to refill the places of many failed pages, bounded for a huge site. */
export const MAX_SPARE_TASKS_PER_JOB = 1000;

/** The fewest spare pages a job may enqueue, whatever its `limit`. */
export const MIN_REFILL_BUDGET = 10;

/** Spare pages a crawl of `limit` may enqueue in all: as many as its limit, at least {@link MIN_REFILL_BUDGET}. */
export function refillBudget(limit: number): number {
  return Math.max(MIN_REFILL_BUDGET, Math.min(limit, MAX_SPARE_TASKS_PER_JOB));
}

/** Per job, its spare pages by dedup key in the order found, and how many it has enqueued. */
export class SpareTasks {
  private readonly jobs = new Map<string, { tasks: Map<string, NewTask>; enqueued: number }>();

  /** Keeps the pages among `tasks` (turned away at the limit) for `jobId`, up to {@link MAX_SPARE_TASKS_PER_JOB}. */
  keep(jobId: string, tasks: readonly NewTask[]): void {
    let job = this.jobs.get(jobId);
    for (const task of tasks) {
      if (task.kind !== "page") continue;
      if (!job) this.jobs.set(jobId, (job = { tasks: new Map(), enqueued: 0 }));
      if (job.tasks.size >= MAX_SPARE_TASKS_PER_JOB) return;
      if (!job.tasks.has(task.dedupKey)) job.tasks.set(task.dedupKey, task);
    }
  }

  /**
   * Takes `jobId`'s oldest spare page while it has enqueued fewer than `budget`, except those on `unwelcomeHosts`
   * (hosts failing to answer now: a place freed by a dead host's page goes to another host's page; theirs stay kept
   * for later); undefined when there is none to take.
   */
  take(jobId: string, unwelcomeHosts: ReadonlySet<string>, budget: number): NewTask | undefined {
    const job = this.jobs.get(jobId);
    if (!job || job.enqueued >= budget) return undefined;
    for (const [key, task] of job.tasks) {
      if (unwelcomeHosts.has(hostOf(task.url))) continue;
      job.tasks.delete(key);
      job.enqueued++;
      return task;
    }
    return undefined;
  }

  /** Gives back, as the oldest, a page {@link take} took and the store did not enqueue (it was at its limit again). */
  giveBack(jobId: string, task: NewTask): void {
    const job = this.jobs.get(jobId);
    if (!job) return;
    job.enqueued--;
    job.tasks = new Map([[task.dedupKey, task], ...job.tasks]);
  }

  /** Whether `jobId` has spare pages. */
  has(jobId: string): boolean {
    return (this.jobs.get(jobId)?.tasks.size ?? 0) > 0;
  }

  /** Forgets `jobId` (it ended). */
  delete(jobId: string): void {
    this.jobs.delete(jobId);
  }
}
