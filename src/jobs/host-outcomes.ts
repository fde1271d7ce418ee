/**
 * @module jobs/host-outcomes
 * The worker pool's side of giving up hosts that stopped answering: which page attempts say a host is down, the
 * store told only when it matters (a failure, or a success that ends a run of them), and the pages of a host given
 * up failed a chunk at a time with the event loop free between (jobs/host-give-up.ts: all at once, a batch's 100,000
 * pages on one site held every other request 1.7 s).
 */
import { isLlmErrorCode } from "../llm/errors.ts";
import type { JobStore, Task } from "./types.ts";
import type { Outcome } from "./worker-pool.ts";

/**
 * Whether a page attempt says its host is down, which counts towards giving the host up (recordHostOutcome): only
 * an attempt the host did not answer, a network error (connection refused or reset, DNS, TLS) or a timeout, retried
 * or final. A host that answers is up, even with a 5xx or a 429: counting those gave up on a batch of pages that all
 * answer 500 before any page had its last try, and lost every document (SCRAPE_HOST_GAVE_UP) that a one-page batch
 * returns with `statusCode: 500`. Each page's own retry limit (retry-policy) bounds how often such a host is asked.
 * An LLM format's failure is the model server's, not the site's, and does not count either; nor does a page handed
 * back without an outcome of its own (`giveAttemptBack`: its job's key was revoked).
 */
export function attemptSaysHostDown(outcome: Outcome): boolean {
  switch (outcome.kind) {
    case "done":
      return false;
    case "failed":
      return outcome.error.retryable && !isLlmErrorCode(outcome.error.code);
    case "retry":
      return outcome.httpStatus === undefined && !outcome.giveAttemptBack && !isLlmErrorCode(outcome.reason);
  }
}

/** What {@link HostOutcomes} needs. */
export interface HostOutcomesOptions {
  store: Pick<JobStore, "recordHostOutcome" | "continueGiveUps">;
  /** Attempts in a row a host did not answer after which a job gives it up. */
  threshold: number;
  /** Reports a store error (the pool's rate-limited log). */
  storeError: (what: string, err: unknown) => void;
  /** Called once no give-up is left in progress: the host's later pages (found or retried since) may be claimed. */
  onSettled: () => void;
  /** How long to wait before trying a chunk again after the store failed. */
  retryAfterErrorMs: number;
}

/** The pool's record of page attempts per (job, host), and the driver of give-ups in progress. */
export class HostOutcomes {
  /** `"<jobId> <host>"` pairs whose last page attempt failed. */
  private readonly failingHosts = new Set<string>();
  private running = false;
  private draining?: Promise<void>;
  /** A give-up decided while draining: look again before stopping. */
  private again = false;

  constructor(private readonly o: HostOutcomesOptions) {}

  /** Starts carrying out give-ups, first any a stopped pool left in progress. */
  start(): void {
    this.running = true;
    this.drive();
  }

  /** Stops after the chunk in progress; what is left is carried out at the next start. */
  async stop(): Promise<void> {
    this.running = false;
    await this.draining;
  }

  /**
   * Records what a page attempt of `task` says about its host. Successes only touch the store when they end a run of
   * failures: the common case costs nothing. Throws what the store throws.
   */
  record(task: Task, outcome: Outcome): void {
    // A page handed back without an outcome of its own says nothing of its host, up or down.
    if (task.kind !== "page" || (outcome.kind === "retry" && outcome.giveAttemptBack)) return;
    const ok = !attemptSaysHostDown(outcome);
    const key = `${task.jobId} ${task.host}`;
    if (ok && !this.failingHosts.has(key)) return;
    if (ok) this.failingHosts.delete(key);
    else this.failingHosts.add(key);
    if (this.o.store.recordHostOutcome(task.jobId, task.host, ok, this.o.threshold) > 0) this.drive();
  }

  /** Carries out the give-ups in progress, unless already doing so. */
  private drive(): void {
    if (!this.running) return;
    this.again = true;
    this.draining ??= this.drain().finally(() => {
      this.draining = undefined;
      if (this.again) this.drive();
    });
  }

  private async drain(): Promise<void> {
    while (this.running) {
      // Not inside the page's outcome that decided: its worker goes on first.
      await new Promise((resolve) => setImmediate(resolve));
      this.again = false;
      let failed: number;
      try {
        failed = this.o.store.continueGiveUps();
      } catch (err) {
        this.o.storeError("failing the pages of a host given up failed; retrying", err);
        await Bun.sleep(this.o.retryAfterErrorMs);
        this.again = true;
        continue;
      }
      if (failed === 0) {
        this.o.onSettled();
        if (!this.again) return;
      }
    }
  }
}
