/**
 * @module jobs/task-loader
 * Moves the tasks a large batch was accepted with (jobs/pending-tasks.ts) into the queue, one chunk per store
 * transaction, yielding to the event loop between chunks: other requests are answered while a 100,000-URL batch
 * is queued, instead of waiting for it. Started with the worker pool (resuming what a stopped process left, and
 * dropping what it left half-accepted: jobs/task-intake.ts), kicked when a batch or an append defers tasks.
 */
import type { Logger } from "../log.ts";
import { INLINE_TASKS, type LoadedChunk } from "./pending-tasks.ts";
import type { AbandonedIntakes } from "./task-intake.ts";

/** How long the loader waits before trying again after the store failed (a full disk, a locked database). */
const RETRY_AFTER_ERROR_MS = 1000;

/** What the loader needs. */
export interface TaskLoaderOptions {
  store: {
    loadPending(max: number): LoadedChunk | undefined;
    findAbandonedIntakes(): AbandonedIntakes;
    dropAbandonedIntakes(abandoned: AbandonedIntakes): Promise<void>;
  };
  /** Called after each chunk (the worker pool's kick: new tasks are claimable). */
  onLoaded: () => void;
  log: Pick<Logger, "error">;
  /** Tasks per transaction. @default INLINE_TASKS */
  chunkSize?: number;
}

/** The loader of pending tasks. */
export class TaskLoader {
  private running = false;
  private draining?: Promise<void>;
  /** A kick that came while draining: look again before stopping (the new row may follow the last one read). */
  private again = false;
  /** What a previous process left half-accepted, found at start (before any request), dropped by the first drain. */
  private abandoned?: AbandonedIntakes;

  constructor(private readonly o: TaskLoaderOptions) {}

  /** Starts loading, first whatever a previous process left pending. */
  start(): void {
    this.running = true;
    try {
      this.abandoned = this.o.store.findAbandonedIntakes();
    } catch (err) {
      this.o.log.error("reading half-accepted batches failed; they stay until the next start", { error: String(err) });
    }
    this.kick();
  }

  /** Loads whatever is pending now, unless already doing so. */
  kick(): void {
    if (!this.running) return;
    this.again = true;
    // A kick between the loop's last look and its end is not lost: `again` starts it once more.
    this.draining ??= this.drain().finally(() => {
      this.draining = undefined;
      if (this.again) this.kick();
    });
  }

  /** Stops after the chunk in progress; what is left stays pending for the next start. */
  async stop(): Promise<void> {
    this.running = false;
    await this.draining;
  }

  private async drain(): Promise<void> {
    // Not inside the request that kicked: it is answered first.
    await new Promise((resolve) => setImmediate(resolve));
    const abandoned = this.abandoned;
    this.abandoned = undefined;
    if (abandoned && (abandoned.intakes.length > 0 || abandoned.jobIds.length > 0)) {
      await this.o.store.dropAbandonedIntakes(abandoned).catch((err) => this.o.log.error("dropping half-accepted batches failed; they stay until the next start", { error: String(err) }));
    }
    while (this.running) {
      this.again = false;
      let chunk: LoadedChunk | undefined;
      try {
        chunk = this.o.store.loadPending(this.o.chunkSize ?? INLINE_TASKS);
      } catch (err) {
        this.o.log.error("queueing a batch's pending tasks failed; retrying", { error: String(err) });
        await Bun.sleep(RETRY_AFTER_ERROR_MS);
        this.again = true;
        continue;
      }
      if (chunk) this.o.onLoaded();
      else if (!this.again) return;
      // Whatever else is waiting (requests, claims, this chunk's pages) runs before the next chunk.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
