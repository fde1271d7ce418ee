/**
 * @module test/helpers/thread-cpu
 * How much work a synchronous step is, for the tests that bound a cost against a baseline measured in the same run
 * (linear, not quadratic; a variant about as costly as the plain form). The measure is this thread's CPU time
 * (`process.threadCpuUsage`), not wall time: on a loaded 2-core machine wall time also counts the time the thread
 * waited for a core and the time it waited on the collector's helper threads, neither of them the step's work, and
 * each comes and goes between one repetition and the next (a 200,000-row RTF table: 0.5-0.6 s of this thread's
 * CPU, 1.4-2.1 s of wall time with the machine otherwise idle).
 */

/** The CPU time, in ms, this thread spent in `work()`; a full collection first, outside the time measured. */
export function threadCpuMs(work: () => unknown): number {
  Bun.gc(true); // one run's garbage is not the next one's cost
  const before = process.threadCpuUsage();
  work();
  const spent = process.threadCpuUsage(before);
  return (spent.user + spent.system) / 1000;
}

/**
 * Each of `works`' least {@link threadCpuMs} over `rounds` rounds, run interleaved (a, b, a, b, …) so that a slow
 * spell of the machine falls on all of them alike. Noise (a cache another process emptied, a collection that came
 * due) only ever adds time, so the least of several is the closest to the work itself.
 */
export function leastThreadCpuMs(works: readonly (() => unknown)[], rounds: number): number[] {
  const least = works.map(() => Infinity);
  for (let round = 0; round < rounds; round++) {
    works.forEach((work, i) => (least[i] = Math.min(least[i]!, threadCpuMs(work))));
  }
  return least;
}
