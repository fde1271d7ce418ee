/**
 * @module jobs/spare-tasks
 * Pages a crawl found while it was at its `limit`. The store turns them away then, but a page that later fails for
 * good gives its place back (api-v2.md §5.6: upstream's limit counts the pages that did not fail). The crawl planner
 * hands each link to the store once, so a page turned away was never offered again, and a crawl whose pages failed
 * ended with fewer results than `limit` on a site that had more. The store keeps them here instead, in the order
 * found, and enqueues the first of them as places come free (store-steps.ts markFailed).
 *
 * They are kept in memory only: after a restart a crawl fills its freed places from pages it finds from then on.
 */
import type { NewTask } from "./types.ts";
import { hostOf } from "./store-rows.ts";

/** Most pages kept per job: enough to refill the places of many failed pages, bounded for a huge site. */
export const MAX_SPARE_TASKS_PER_JOB = 1000;

/** Per job, its spare pages by dedup key, in the order found. */
export type SpareTasks = Map<string, Map<string, NewTask>>;

/** Keeps the pages among `tasks` (turned away at the limit) for `jobId`, up to {@link MAX_SPARE_TASKS_PER_JOB}. */
export function keepSpares(spares: SpareTasks, jobId: string, tasks: readonly NewTask[]): void {
  let kept = spares.get(jobId);
  for (const task of tasks) {
    if (task.kind !== "page") continue;
    if (!kept) spares.set(jobId, (kept = new Map()));
    if (kept.size >= MAX_SPARE_TASKS_PER_JOB) return;
    if (!kept.has(task.dedupKey)) kept.set(task.dedupKey, task);
  }
}

/**
 * Takes `jobId`'s spare pages, oldest first, except those on `unwelcomeHosts` (hosts that just failed to answer: a
 * place freed by a dead host's pages goes to another host's page; theirs stay kept for when the host answers again).
 */
export function takeSpares(spares: SpareTasks, jobId: string, unwelcomeHosts: ReadonlySet<string>): NewTask[] {
  const kept = spares.get(jobId);
  if (!kept) return [];
  const taken: NewTask[] = [];
  for (const [key, task] of kept) {
    if (unwelcomeHosts.has(hostOf(task.url))) continue;
    taken.push(task);
    kept.delete(key);
  }
  if (kept.size === 0) spares.delete(jobId);
  return taken;
}
