/**
 * @module interact/shared-opening
 * One piece of work (a session being opened, interact/sessions.ts) that several requests wait for: a second first
 * prompt for the same scrape joins the opening the first one started instead of opening a second session. Each
 * waiter stays bound by its own signal (its own timeout, its own client): it stops waiting when that aborts, with its
 * own reason, whatever the others do. The work gets a signal of its own that aborts only when every waiter has left,
 * so one waiter giving up never takes the opening from another that still waits. A request that joins an opening
 * already given up by all its waiters (it is still unwinding) gets {@link InteractOpeningAbandonedError}, a
 * retryable 503, not the first waiter's abort reason as a 500.
 */
import { raceAbort } from "../scheduler/abortable.ts";
import { InteractOpeningAbandonedError } from "./errors.ts";

/** Work started once and waited for by each of its callers within their own signals. */
export class SharedOpening<T> {
  /** The work's own signal: aborts (with {@link InteractOpeningAbandonedError}) when its last waiter has left. */
  private readonly abandoned = new AbortController();
  private waiters = 0;
  /** The work itself; its failure is each waiter's, and handled even when no one waits any more. */
  readonly done: Promise<T>;

  /**
   * Starts `work` with the opening's own signal. The caller that starts it waits through {@link join}, as every other
   * one does.
   */
  constructor(work: (signal: AbortSignal) => Promise<T>) {
    this.done = work(this.abandoned.signal);
    // Nobody may be left to read the failure of an opening every waiter gave up on.
    this.done.catch(() => undefined);
  }

  /**
   * Stops the work, whoever waits: its signal aborts with `reason`, which the work (interact/sessions.ts launch)
   * throws, so every waiter gets it. A session closed (DELETE) while it opens.
   */
  cancel(reason: Error): void {
    this.abandoned.abort(reason);
  }

  /** Whether the work is stopping (every waiter left, or it was cancelled). */
  get isAbandoned(): boolean {
    return this.abandoned.signal.aborted;
  }

  /**
   * Waits for the work within `signal`: rejects with `signal.reason` as soon as it aborts (the work goes on for the
   * other waiters, and stops once none is left), with the work's own error when it fails.
   */
  join(signal: AbortSignal): Promise<T> {
    if (this.isAbandoned) return Promise.reject(new InteractOpeningAbandonedError());
    if (signal.aborted) return Promise.reject(signal.reason);
    this.waiters++;
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      this.waiters--;
      if (this.waiters === 0) this.abandoned.abort(new InteractOpeningAbandonedError());
    };
    signal.addEventListener("abort", leave, { once: true });
    // Settled work no longer counts its waiters: their listeners go.
    void this.done.then(
      () => signal.removeEventListener("abort", leave),
      () => signal.removeEventListener("abort", leave),
    );
    return raceAbort(this.done, signal);
  }
}
