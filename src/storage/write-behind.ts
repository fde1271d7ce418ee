/**
 * @module storage/write-behind
 * Small bookkeeping rows a request leaves (credits charged, an activity entry) are written on the next turn of the
 * event loop, after the response has gone out, and all of one turn's in one transaction: a SQLite write transaction
 * costs ~0.05–0.1 ms of the main thread each time, cold, on a lone request's path (docs/benchmarks.md, "Scrape"),
 * and under load one transaction per row is what costs most. The stores keep what is queued visible to their own
 * reads, so nothing a client asks right after its response is missing. The cost: a crash in the moment between the
 * response and the write loses those rows (never the response); a graceful stop writes them (`flush`).
 */
import type { Database } from "bun:sqlite";
import { immediate } from "./database.ts";

/** First wait before a failed write is tried again; it doubles up to {@link RETRY_MAX_MS}. */
const RETRY_FIRST_MS = 1_000;
/** Longest wait between tries of a write that keeps failing. */
const RETRY_MAX_MS = 60_000;

/** A queue of rows written together by `write` in one transaction, on the next event-loop turn or on `flush`. */
export class WriteBehind<T> {
  private queued: T[] = [];
  private scheduled = false;
  private retryMs = 0;
  private retryTimer?: ReturnType<typeof setTimeout>;

  /**
   * @param write writes the rows (called inside `BEGIN IMMEDIATE … COMMIT`)
   * @param onError told when a write fails; the rows stay queued and are tried again (after 1 s, doubling up to a
   *   minute, or sooner with the next rows)
   * @param onWritten told which rows a write committed
   */
  constructor(
    private readonly db: Database,
    private readonly write: (rows: T[]) => void,
    private readonly onError: (err: unknown) => void = () => {},
    private readonly onWritten: (rows: T[]) => void = () => {},
  ) {}

  /** Queues a row; it is written on the next turn of the event loop (or by an earlier `flush`). */
  push(row: T): void {
    this.queued.push(row);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /** The rows not written yet, oldest first (a copy). */
  pending(): readonly T[] {
    return this.queued.slice();
  }

  /**
   * Writes every queued row now, in one transaction. Never throws: a failed write (a full disk, a closed database)
   * keeps the rows queued and is reported to `onError`; returns whether the queue is empty afterwards. Inside
   * another transaction (a store read while a job's transaction is open) it writes nothing and waits for the next turn.
   */
  flush(): boolean {
    if (this.queued.length === 0) return true;
    const rows = this.queued;
    this.queued = [];
    try {
      if (this.db.inTransaction) {
        this.queued = rows;
        this.schedule();
        return false;
      }
      immediate(this.db, () => this.write(rows));
    } catch (err) {
      // A closed database throws here too (its `inTransaction` included).
      this.queued = rows.concat(this.queued);
      this.onError(err);
      this.retryLater();
      return false;
    }
    this.retryMs = 0;
    this.onWritten(rows);
    return true;
  }

  /** Tries a failed write again later even when nothing new is queued (a quiet server after a locked database). */
  private retryLater(): void {
    if (this.retryTimer) return;
    this.retryMs = this.retryMs === 0 ? RETRY_FIRST_MS : Math.min(RETRY_MAX_MS, this.retryMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.flush();
    }, this.retryMs);
    this.retryTimer.unref?.();
  }
}
