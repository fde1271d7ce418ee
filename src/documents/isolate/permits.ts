/**
 * @module documents/isolate/permits
 * A counting semaphore whose waiters leave when their signal aborts. The document workers use two: one bounds how
 * many documents *compute* at once (each conversion may take a gigabyte of memory), the other how many hold a
 * worker: a PDF waiting for its pages' OCR holds its worker (its document stays open there) but computes nothing,
 * and must not keep other documents from being parsed.
 */

interface Waiter {
  grant(): void;
  reject(reason: Error): void;
  signal: AbortSignal;
  onAbort(): void;
}

/** At most `size` holders at a time; the rest wait in FIFO order. */
export class Permits {
  private held = 0;
  private readonly queue: Waiter[] = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new TypeError("Permits: size must be an integer >= 1");
  }

  /** Permits held now. */
  get active(): number {
    return this.held;
  }

  /** Callers waiting for one. */
  get waiting(): number {
    return this.queue.length;
  }

  /** A permit; resolves with its release function (idempotent). Rejects with `signal.reason` if it aborts first. */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.held < this.size) {
      this.held++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const w: Waiter = {
        signal,
        grant: () => resolve(this.releaser()),
        reject,
        onAbort: () => {
          const i = this.queue.indexOf(w);
          if (i >= 0) this.queue.splice(i, 1);
          reject(signal.reason);
        },
      };
      signal.addEventListener("abort", w.onAbort, { once: true });
      this.queue.push(w);
    });
  }

  /** Rejects every waiter with `reason` (shutting down); permits held stay held until released. */
  close(reason: Error): void {
    for (const w of this.queue.splice(0)) {
      w.signal.removeEventListener("abort", w.onAbort);
      w.reject(reason);
    }
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.queue.shift();
      if (!next) {
        this.held--;
        return;
      }
      next.signal.removeEventListener("abort", next.onAbort);
      next.grant();
    };
  }
}
