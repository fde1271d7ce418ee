/**
 * @module scheduler/abortable
 * Waits that end as soon as a signal aborts, rejecting with its reason, and leave no timer or listener behind:
 * {@link sleep} for loops that pace themselves (map's crawl delay, a monitor waiting on its crawl), {@link raceAbort}
 * for work that cannot be stopped itself but must not hold its caller (a robots.txt fetch shared by several
 * waiters, a webhook POST, a browser step of an interact prompt).
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

/** `p`, or a rejection with `signal.reason` as soon as `signal` aborts (at once when it already has). */
export function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
