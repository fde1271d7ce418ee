/**
 * @module webhooks/crash-backoff
 * What the dispatcher does when a delivery could not even be recorded: the database refused the attempt row before
 * the POST (a full disk, `SQLITE_FULL`; a locked or read-only file) or the outcome after it. Such an event is still
 * pending and due, so pumping again at once picked the same row, failed the same way before its first `await`, and
 * chained microtasks forever: 200,000 errors in 16 s, no timer ever fired, the HTTP server in the same process
 * stopped answering and SIGTERM could not stop it (and a failure after a 2xx re-POSTed in a tight loop).
 *
 * Instead the event is held for about one poll interval (with jitter, so that many held events do not all retry in
 * the same millisecond), then the dispatcher pumps again; the error is logged at most once per
 * {@link CRASH_LOG_INTERVAL_MS}, with the number left out (as WorkerPool.storeError does for the job store). Holds
 * live in memory only: after a restart the event is simply due again.
 */
import type { Logger } from "../log.ts";

/** How long an event whose delivery crashed waits before it is tried again: the dispatcher's poll interval. */
export const DELIVERY_CRASH_BACKOFF_MS = 1000;
/** The hold varies by ±20 % around {@link DELIVERY_CRASH_BACKOFF_MS}. */
const CRASH_BACKOFF_JITTER = 0.2;
/** Shortest time between two logged delivery crashes: a full disk fails every due event, every second. */
export const CRASH_LOG_INTERVAL_MS = 10_000;

/** Options of {@link DeliveryCrashBackoff}. */
export interface CrashBackoffOptions {
  /** Base hold. @default 1000 */
  backoffMs?: number;
  /** Source of the jitter, in [0, 1); 0.5 means none. */
  random: () => number;
  log: Logger;
  /** Called when a hold ends (the dispatcher pumps). */
  onRelease: () => void;
  /** Monotonic clock (ms) for the log's rate limit. @default performance.now */
  monotonicNowMs?: () => number;
}

/** Events held back after a crashed delivery, and the rate-limited log of those crashes. */
export class DeliveryCrashBackoff {
  private readonly timers = new Map<number, ReturnType<typeof setTimeout>>();
  private readonly backoffMs: number;
  private readonly monotonicNowMs: () => number;
  private lastLoggedAtMs = -Infinity;
  private unlogged = 0;

  constructor(private readonly o: CrashBackoffOptions) {
    this.backoffMs = o.backoffMs ?? DELIVERY_CRASH_BACKOFF_MS;
    if (!Number.isFinite(this.backoffMs) || this.backoffMs <= 0) throw new TypeError("DeliveryCrashBackoff: backoffMs must be > 0");
    this.monotonicNowMs = o.monotonicNowMs ?? (() => performance.now());
  }

  /**
   * Records that delivering event `seq` threw, logs it (rate-limited) and holds the event: {@link isHeld} is true
   * until the hold ends, then `onRelease` runs. The timer is a real one (not the injected clock): it must let the
   * event loop breathe whatever time the schedule thinks it is.
   */
  crashed(seq: number, fields: Record<string, unknown>, err: unknown): void {
    this.logCrash(fields, err);
    clearTimeout(this.timers.get(seq));
    const holdMs = Math.max(1, Math.round(this.backoffMs * (1 + CRASH_BACKOFF_JITTER * (2 * this.o.random() - 1))));
    this.timers.set(
      seq,
      setTimeout(() => {
        this.timers.delete(seq);
        this.o.onRelease();
      }, holdMs),
    );
  }

  /** Whether `seq` is waiting out a crash. */
  isHeld(seq: number): boolean {
    return this.timers.has(seq);
  }

  /** The held events' seqs (left out of the due query, so they do not fill its window). */
  heldSeqs(): number[] {
    return [...this.timers.keys()];
  }

  /** Drops every hold without calling `onRelease` (the dispatcher stops). */
  clear(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  private logCrash(fields: Record<string, unknown>, err: unknown): void {
    const t = this.monotonicNowMs();
    if (t - this.lastLoggedAtMs < CRASH_LOG_INTERVAL_MS) {
      this.unlogged++;
      return;
    }
    this.o.log.error("webhook delivery could not be recorded; the event waits and is tried again", {
      ...fields,
      error: String(err),
      retryInMs: this.backoffMs,
      ...(this.unlogged > 0 ? { similarErrorsNotLogged: this.unlogged } : {}),
    });
    this.lastLoggedAtMs = t;
    this.unlogged = 0;
  }
}
