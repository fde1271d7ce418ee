/**
 * @module engines/browser/slots
 * The pool's bounded concurrency: at most `concurrency` leases at once, the others waiting in FIFO order until a
 * slot frees, their deadline passes or their signal aborts. Kept apart from pool.ts: it knows nothing of browsers.
 */
import { BrowserQueueTimeoutError, BrowserUnavailableError, type AcquireOptions } from "./lease.ts";

/** Slots for leases, handed over in arrival order. */
export class SlotQueue {
  /** Slots taken (leases running, or pages being opened for them). */
  active = 0;
  private readonly waiters: (() => void)[] = [];

  constructor(
    private readonly options: { concurrency: number },
    /** Whether the pool is shut down: a waiter woken then is refused. */
    private readonly isClosed: () => boolean,
  ) {}

  private get closed(): boolean {
    return this.isClosed();
  }

  /** Waits for a slot; throws on deadline or abort, or when the pool shuts down meanwhile. */
  async takeSlot(options: AcquireOptions): Promise<void> {
    if (this.active < this.options.concurrency) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => done(options.signal?.reason ?? new BrowserQueueTimeoutError());
      const timer = setTimeout(() => done(new BrowserQueueTimeoutError()), Math.max(0, options.deadline - performance.now()));
      const waiter = () => done();
      const done = (err?: unknown) => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        if (err) reject(err);
        else if (this.closed) reject(new BrowserUnavailableError("The browser pool is shut down."));
        else resolve();
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  /** Hands a slot back: to the first waiter, or frees it. */
  giveSlot(): void {
    const next = this.waiters.shift();
    if (next) next(); // the slot passes to the waiter; `active` is unchanged
    else this.active--;
  }

  /** Wakes every waiter (the pool is shutting down: each is refused). */
  wakeAll(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
