/**
 * @module scheduler
 * The in-process scheduler (croner): periodic maintenance (expiring files, results and cache) and, later,
 * webhook retries. Jobs are `protect`ed so a slow run is never overlapped by the next, and a throwing job is
 * logged, never fatal. Croner's own job names are process-global, so names stay ours (for logs) and several
 * schedulers can run in one process (tests).
 */
import { Cron } from "croner";
import type { Logger } from "../log.ts";

/** A running set of periodic jobs. */
export interface Scheduler {
  /** Runs `fn` on the cron `pattern` (seconds field first, e.g. every 5 minutes: `"0 *\/5 * * * *"`). */
  every(name: string, pattern: string, fn: () => void | Promise<void>): void;
  /** The names of the jobs scheduled, in order (what a process runs; tests). */
  names(): string[];
  /** Stops every job. */
  stop(): void;
}

/** Creates a scheduler whose job failures go to `log`. */
export function createScheduler(log: Logger): Scheduler {
  const jobs: Cron[] = [];
  const names: string[] = [];
  return {
    every(name, pattern, fn) {
      names.push(name);
      jobs.push(
        new Cron(pattern, { protect: true, unref: true, catch: (err: unknown) => log.error(`scheduled job ${name} failed`, { error: String(err) }) }, fn),
      );
    },
    names: () => [...names],
    stop() {
      for (const j of jobs) j.stop();
      jobs.length = 0;
      names.length = 0;
    },
  };
}
