/**
 * @module engines/http/deadline
 * One deadline for a whole fetch: every hop, every DNS check and every body read share it (FetchRequest.timeoutMs).
 * Per-call timeouts would let a 20-hop redirect chain or a slow-drip body run 20× over budget.
 *
 * Awaits are raced against the deadline's signal rather than trusting each API to honour `signal`: a body reader
 * that ignores abort must not turn a slow page into a hung scrape.
 */

/** A timer plus an AbortSignal that fires when the time is up or the caller's signal aborts. */
export class Deadline {
  /** Pass to fetch; aborts on timeout or when the parent signal aborts. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly timer: ReturnType<typeof setTimeout>;
  private readonly aborted: Promise<never>;
  private expired = false;
  private readonly onParentAbort = () => this.controller.abort(this.parent?.reason);

  constructor(
    readonly timeoutMs: number,
    private readonly parent?: AbortSignal,
  ) {
    this.signal = this.controller.signal;
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort(new DOMException(`Deadline of ${timeoutMs} ms passed`, "TimeoutError"));
    }, timeoutMs);
    if (parent?.aborted) this.controller.abort(parent.reason);
    else parent?.addEventListener("abort", this.onParentAbort, { once: true });
    this.aborted = new Promise<never>((_, reject) => {
      const fail = () => reject(this.signal.reason);
      if (this.signal.aborted) fail();
      else this.signal.addEventListener("abort", fail, { once: true });
    });
    this.aborted.catch(() => {}); // observed via race(); never an unhandled rejection
  }

  /** True once the time limit (not the caller) ended the fetch. */
  get timedOut(): boolean {
    return this.expired;
  }

  /** Resolves like `p`, or rejects as soon as the deadline fires. */
  race<T>(p: Promise<T>): Promise<T> {
    return Promise.race([p, this.aborted]);
  }

  /** Stops the timer and detaches from the parent signal. Always call it (finally). */
  clear(): void {
    clearTimeout(this.timer);
    this.parent?.removeEventListener("abort", this.onParentAbort);
  }
}
