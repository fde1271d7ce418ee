/**
 * @module test/helpers/tick-probe
 * What this process did between the turns of its event loop while some work ran, in measures a loaded machine
 * cannot inflate. A timer ticks every `tickMs`; at each tick (and at the work's start and end) it reads this
 * thread's CPU time and a count the caller names (pages ended, say). On a loaded 2-core machine the wall time
 * between two ticks grows (the thread waits for a core, or for the collector's threads: gaps of 200 ms and more
 * were seen where the work gave the loop back every 10 ms), but neither the thread's CPU time between them nor how
 * far the count moved does: those are what one turn did. test/helpers/lag-probe.ts is the wall-time measure.
 *
 * It also sums how late the ticks came ({@link TickProbed.lateMs}): the wall time the event loop was held, by the
 * work or by anything else (another test's leftovers, a collection, the machine), for a test that bounds how long
 * some waiting took and must not count the time its process could not run.
 */

/** What {@link withTickProbe} measured. */
export interface TickProbed<T> {
  value: T;
  /** Wall time of the work. */
  wallMs: number;
  /** The most the count moved between two readings (ticks, or the work's start or end and the tick next to it). */
  maxCountPerGap: number;
  /** The most CPU time this thread spent between two readings. */
  maxCpuPerGapMs: number;
  /** The longest wall time between two readings (what lag-probe.ts's maxGapMs measures). */
  maxGapMs: number;
  /**
   * The wall time ticks came late, summed: the excess over `tickMs` of each gap longer than twice `tickMs` (shorter
   * ones are the timer's own jitter: a tick 0.1-1 ms late, 50 ms over a 2 s sleep when summed).
   */
  lateMs: number;
}

/** Runs `work` with a `tickMs` interval timer reading `count()` and this thread's CPU time; see {@link TickProbed}. */
export async function withTickProbe<T>(work: () => Promise<T>, count: () => number = () => 0, tickMs = 5): Promise<TickProbed<T>> {
  const cpuMs = () => {
    const u = process.threadCpuUsage();
    return (u.user + u.system) / 1000;
  };
  const started = performance.now();
  let last = { at: started, cpuMs: cpuMs(), count: count() };
  const probed = { maxCountPerGap: 0, maxCpuPerGapMs: 0, maxGapMs: 0, lateMs: 0 };
  const read = () => {
    const now = { at: performance.now(), cpuMs: cpuMs(), count: count() };
    const gapMs = now.at - last.at;
    probed.maxCountPerGap = Math.max(probed.maxCountPerGap, now.count - last.count);
    probed.maxCpuPerGapMs = Math.max(probed.maxCpuPerGapMs, now.cpuMs - last.cpuMs);
    probed.maxGapMs = Math.max(probed.maxGapMs, gapMs);
    if (gapMs > 2 * tickMs) probed.lateMs += gapMs - tickMs;
    last = now;
  };
  const timer = setInterval(read, tickMs);
  try {
    const value = await work();
    read();
    return { value, wallMs: performance.now() - started, ...probed };
  } finally {
    clearInterval(timer);
  }
}
