/**
 * @module test/helpers/lag-probe
 * How long the event loop of this process (an in-process server's) was held while some work ran: a timer ticks every
 * `tickMs`, and the longest gap between two ticks, or from the last tick to the work's end (a synchronous stretch
 * the timer could not interrupt), is the measure. Shared by the tests that bound a stall.
 */

/** What {@link withLagProbe} measured. */
export interface LagProbed<T> {
  value: T;
  /** The longest gap between two ticks (or from the last tick to the end of the work). */
  maxGapMs: number;
  /** The longest the timer fired late: {@link maxGapMs} less one tick. */
  maxLagMs: number;
}

/** Runs `work` with a `tickMs` interval timer; resolves with its result and the longest gap between two ticks. */
export async function withLagProbe<T>(work: () => Promise<T>, tickMs = 5): Promise<LagProbed<T>> {
  let last = performance.now();
  let maxGapMs = 0;
  const timer = setInterval(() => {
    const t = performance.now();
    maxGapMs = Math.max(maxGapMs, t - last);
    last = t;
  }, tickMs);
  try {
    const value = await work();
    maxGapMs = Math.max(maxGapMs, performance.now() - last);
    return { value, maxGapMs, maxLagMs: Math.max(0, maxGapMs - tickMs) };
  } finally {
    clearInterval(timer);
  }
}
