/**
 * @module extract/run-queue
 * Runs the stored jobs of an LLM research service (extract jobs, agent runs) a few at a time in this process: a job
 * is never scheduled twice while it is queued or running, the others wait in order, and closing lets nothing new
 * start (jobs left waiting stay `processing` in their table, for the next start to resume) and stops the running
 * ones. Each running job gets its own abort signal, which {@link RunQueue.abort} and {@link RunQueue.close} fire.
 */

/** A bounded queue of job ids. */
export class RunQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly scheduled = new Set<string>();
  private readonly controllers = new Map<string, AbortController>();
  private stopped = false;

  /**
   * `run` executes one job; a rejection is reported to `onError` (a failure to record the job's end, such as a full
   * disk, must not take the server down: the job stays processing and runs again at the next start).
   */
  constructor(
    private readonly concurrency: number,
    private readonly run: (id: string, signal: AbortSignal) => Promise<void>,
    private readonly onError: (id: string, err: unknown) => void,
  ) {}

  /** Whether {@link close} was called. */
  get closed(): boolean {
    return this.stopped;
  }

  /** Runs `id` now, or once a running job ends; nothing when it is already queued or running. */
  schedule(id: string): void {
    if (this.scheduled.has(id)) return;
    this.scheduled.add(id);
    const go = () => {
      if (this.stopped) return;
      this.running++;
      const controller = new AbortController();
      this.controllers.set(id, controller);
      this.run(id, controller.signal)
        .catch((err: unknown) => this.onError(id, err))
        .finally(() => {
          this.running--;
          this.controllers.delete(id);
          this.scheduled.delete(id);
          this.waiting.shift()?.();
        });
    };
    if (this.running < this.concurrency) go();
    else this.waiting.push(go);
  }

  /** Fires the abort signal of `id` when it is running (a cancelled run, a deleted monitor's check). */
  abort(id: string, reason: Error): void {
    this.controllers.get(id)?.abort(reason);
  }

  /**
   * Lets nothing new start; the jobs waiting are dropped (they run at the next start) and the running ones are
   * aborted, after {@link closed} turns true (so a run can tell a stop from a cancel).
   */
  close(): void {
    this.stopped = true;
    for (const w of this.waiting.splice(0)) w();
    for (const c of this.controllers.values()) c.abort(new Error("server stopping"));
  }
}
