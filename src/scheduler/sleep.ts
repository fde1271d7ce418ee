/**
 * @module scheduler/sleep
 * An abortable wait: resolves after `ms`, or rejects with the signal's reason as soon as it aborts, without leaving
 * its timer or listener behind. For loops that pace themselves (map's crawl delay, a monitor waiting on its crawl).
 */

/** Waits `ms`; rejects with `signal.reason` when `signal` aborts first (or already has). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener("abort", stop);
      resolve();
    }
    function stop() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener("abort", stop, { once: true });
  });
}
