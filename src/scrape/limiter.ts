/**
 * @module scrape/limiter
 * A counting semaphore for synchronous scrapes. Requests beyond `maxConcurrency` wait in FIFO order; a request
 * that cannot start before its deadline fails with `CONCURRENCY_QUEUE_TIMEOUT` (408) instead of piling up.
 */
import { CrawlboxError } from "../errors.ts";

/** 408: waited for a free slot until the request's deadline. */
export class ConcurrencyQueueTimeoutError extends CrawlboxError {
  constructor(waitedMs: number) {
    super("CONCURRENCY_QUEUE_TIMEOUT", 408, `Timed out after ${waitedMs} ms waiting for a free scrape slot.`, { retryable: true });
  }
}

/** Share of a request's timeout it may spend waiting for a free slot (upstream: timeout × 0.667). */
export const QUEUE_WAIT_SHARE = 0.667;

/** How long a request with `timeoutMs` may wait for a slot. */
export function queueWaitMs(timeoutMs: number): number {
  return Math.round(timeoutMs * QUEUE_WAIT_SHARE);
}

/**
 * `spec` with the time the request waited for a scrape slot taken off its deadline: `timeout` bounds the whole
 * request, as upstream's (its job waits in the queue within it). A request that waited 5 s of its 10 s answered
 * after 15 s, and clients that give up at `timeout` (the SDKs, a few seconds after it) never saw its 408. The wait is
 * at most two thirds of the timeout ({@link queueWaitMs}), so a third is always left.
 */
function withinTimeout<T extends { timeoutMs: number }>(spec: T, queuedMs: number | undefined): T {
  return queuedMs ? { ...spec, timeoutMs: Math.max(1, spec.timeoutMs - queuedMs) } : spec;
}

/**
 * Runs `scrape` on {@link withinTimeout}'s spec, and reports a timeout as the caller's: "timed out after 10000 ms"
 * and `details.timeoutMs: 10000` for a request that asked for 10000, not the part left after its wait.
 */
export async function scrapeWithinTimeout<T extends { timeoutMs: number }, R>(spec: T, queuedMs: number | undefined, scrape: (spec: T) => Promise<R>): Promise<R> {
  try {
    return await scrape(withinTimeout(spec, queuedMs));
  } catch (err) {
    if (queuedMs && err instanceof CrawlboxError && err.code === "SCRAPE_TIMEOUT") throw asTimeoutOf(err, spec.timeoutMs);
    throw err;
  }
}

/** `err` (a SCRAPE_TIMEOUT) saying `timeoutMs` in its message and details. */
function asTimeoutOf(err: CrawlboxError, timeoutMs: number): CrawlboxError {
  const details = err.details as { timeoutMs?: number } | undefined;
  const was = details?.timeoutMs;
  if (was === undefined) return err;
  return new CrawlboxError(err.code, err.status, err.message.replace(`after ${was} ms`, `after ${timeoutMs} ms`), { details: { ...details, timeoutMs }, retryable: err.retryable });
}

/** Bounded concurrency with a queue. */
export class ConcurrencyLimiter {
  private active = 0;
  private readonly waiters: { resolve: () => void }[] = [];
  /** Running and waiting work by API key, for the key's own concurrency and queue reports. */
  private readonly byKey = new Map<string, { running: number; waiting: number }>();

  constructor(readonly max: number) {}

  /** Scrapes running now. */
  get running(): number {
    return this.active;
  }

  /** The work of `keyId` running now and waiting for a slot (`/v2/concurrency-check`, `/v2/team/queue-status`). */
  usage(keyId: string): { running: number; waiting: number } {
    const u = this.byKey.get(keyId);
    return u ? { ...u } : { running: 0, waiting: 0 };
  }

  /**
   * Runs `fn` once a slot is free; gives up after `maxWaitMs` of waiting. `fn` is told how long it waited
   * (`undefined` when a slot was free at once): scrape metadata reports it (`concurrencyLimited`). `keyId` counts
   * the work for that key's reports.
   */
  async run<T>(maxWaitMs: number, fn: (queuedMs: number | undefined) => Promise<T>, keyId?: string): Promise<T> {
    let mine = keyId === undefined ? undefined : this.byKey.get(keyId);
    if (keyId !== undefined && !mine) this.byKey.set(keyId, (mine = { running: 0, waiting: 0 }));
    let queuedMs: number | undefined;
    if (this.active >= this.max) {
      const since = performance.now();
      if (mine) mine.waiting++;
      try {
        await this.acquire(maxWaitMs);
      } catch (err) {
        this.release(keyId, mine, "waiting");
        throw err;
      }
      if (mine) mine.waiting--;
      queuedMs = Math.round(performance.now() - since);
    } else this.active++;
    if (mine) mine.running++;
    try {
      return await fn(queuedMs);
    } finally {
      this.release(keyId, mine, "running");
      const next = this.waiters.shift();
      if (next) next.resolve();
      else this.active--;
    }
  }

  /** One less running or waiting for a key; a key with nothing left is forgotten. */
  private release(keyId: string | undefined, mine: { running: number; waiting: number } | undefined, what: "running" | "waiting"): void {
    if (!mine || keyId === undefined) return;
    mine[what]--;
    if (mine.running === 0 && mine.waiting === 0) this.byKey.delete(keyId);
  }

  private acquire(maxWaitMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new ConcurrencyQueueTimeoutError(maxWaitMs));
      }, maxWaitMs);
      this.waiters.push(waiter);
    });
  }
}
