/**
 * @module scrape/document-continuations
 * A document that takes longer to convert than its scrape's `timeout` (a 300-page scan through OCR) goes on
 * converting after the request has answered, as upstream's [LATEST] does for large PDFs: the answer is a 408
 * `SCRAPE_TIMEOUT` with `details.state: "processing_continues"` and `Retry-After`, and the same request sent again
 * adopts the conversion in progress (or its finished result) instead of starting over. The official SDKs do this by
 * themselves (`autoResume`, on by default): a long document then arrives in one `scrape()` call, where before it
 * could never arrive at all, every retry starting from page one again.
 *
 * A conversion is found again by its key (the caller's API key, the parser and its options, and a hash of the
 * document's bytes: the same request fetching the same file), kept at most {@link CONTINUE_EXTRA_MS} past the
 * request's own deadline, and its result at most {@link KEEP_RESULT_MS} after it is done; it is handed to one
 * request, which charges its credits as any scrape does. Continuations hold document workers, so at most
 * `maxInFlight` run at once (`CRAWLBOX_DOCUMENT_CONTINUATIONS`, one worker fewer than there are by default) and one
 * per API key: past that, a timeout stops the conversion as before, so a key sending hostile documents (a DOCX
 * inflating to 30 MiB of XML) cannot keep every worker busy for the next ten minutes.
 */
import { createHash } from "node:crypto";
import { CrawlboxError, ScrapeTimeoutError } from "../errors.ts";

/** How long a conversion may run past the deadline of the request that started it. */
export const CONTINUE_EXTRA_MS = 10 * 60_000;
/** How long a finished conversion waits for the request that collects it. */
export const KEEP_RESULT_MS = 5 * 60_000;
/**
 * Entries (running, continuing or done and waiting for their request) per continuation slot at most: conversions
 * still inside their request count too, and done ones hold their result in memory until collected.
 */
const MAX_ENTRIES_PER_SLOT = 4;
/** The `Retry-After` sent: the SDKs wait at least 5 s, and the next request waits on the conversion itself. */
export const RETRY_AFTER_SECONDS = 5;

/** 408 `SCRAPE_TIMEOUT` whose document is still being converted: send the same request again to collect it. */
export class ProcessingContinuesError extends CrawlboxError {
  constructor(timeoutMs: number) {
    super(
      "SCRAPE_TIMEOUT",
      408,
      `Scrape timed out after ${timeoutMs} ms; the document is still being processed. Send the same request again in ${RETRY_AFTER_SECONDS} s to collect it.`,
      { details: { timeoutMs, state: "processing_continues", retryAfterSeconds: RETRY_AFTER_SECONDS }, retryable: true },
    );
  }
}

/** The key of a conversion: who asked, which parser with which options, and the document's bytes. */
export function continuationKey(keyId: string, parserName: string, options: unknown, body: Uint8Array): string {
  const bytes = createHash("sha256").update(body).digest("hex");
  return createHash("sha256").update(JSON.stringify([keyId, parserName, options ?? null, bytes])).digest("hex");
}

interface Entry<T> {
  /** The API key whose request started it (one continuation per key). */
  owner: string;
  promise: Promise<T>;
  controller: AbortController;
  /** Requests waiting on it right now: while one does, it runs for that one, continuation or not. */
  waiters: number;
  /** Granted a continuation: it runs on with no request waiting (it counts against the limits until it settles). */
  continuing: boolean;
  settled: boolean;
  /** Set once the conversion settled: when its result stops waiting for a collector. */
  expiry?: ReturnType<typeof setTimeout>;
}

/** The conversions still running or waiting to be collected. */
export class DocumentContinuations<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly maxInFlight: number) {}

  /** Conversions running or waiting to be collected now. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The conversion of `key` within `remainingMs`: the one already running (or done) under that key, else one
   * `start` begins (given a signal that stops it, and the extra time it may take past the request). Throws
   * {@link ProcessingContinuesError} when the time runs out and the conversion goes on; a plain timeout when it
   * cannot (too many continuations already).
   */
  async run(key: string, owner: string, remainingMs: number, timeoutMs: number, signal: AbortSignal | undefined, start: (signal: AbortSignal, extraMs: number) => Promise<T>): Promise<T> {
    let entry = this.entries.get(key);
    if (!entry) {
      const controller = new AbortController();
      const promise = start(controller.signal, CONTINUE_EXTRA_MS);
      entry = { owner, promise, controller, waiters: 0, continuing: false, settled: false };
      // Settled while nobody waits (a continuation): kept a while for the request that comes back for it.
      const settled = entry;
      promise.then(
        () => this.settle(key, settled),
        () => this.settle(key, settled),
      );
      this.entries.set(key, entry);
    }
    entry.waiters++;
    const waited = await raceWithin(entry.promise, Math.max(1, remainingMs), signal).finally(() => entry.waiters--);
    if (waited.done) {
      this.take(key, entry);
      return waited.result();
    }
    // The request's time is up (or its client left). The conversion goes on when another request still waits on it,
    // when it already is a continuation or is done (its result waits), or when there is room for one more.
    if (entry.waiters > 0 || entry.continuing || entry.settled) throw new ProcessingContinuesError(timeoutMs);
    if (this.running() < this.maxInFlight && this.running(entry.owner) === 0 && this.entries.size <= MAX_ENTRIES_PER_SLOT * Math.max(1, this.maxInFlight)) {
      entry.continuing = true;
      throw new ProcessingContinuesError(timeoutMs);
    }
    this.take(key, entry);
    entry.controller.abort(new ScrapeTimeoutError(timeoutMs));
    throw new ScrapeTimeoutError(timeoutMs);
  }

  /** Continuations still converting (of `owner` only, when given): what holds document workers with no request. */
  private running(owner?: string): number {
    let n = 0;
    for (const e of this.entries.values()) if (e.continuing && !e.settled && (owner === undefined || e.owner === owner)) n++;
    return n;
  }

  private settle(key: string, entry: Entry<T>): void {
    entry.settled = true;
    if (this.entries.get(key) !== entry) return;
    entry.expiry = setTimeout(() => this.take(key, entry), KEEP_RESULT_MS);
    entry.expiry.unref?.();
  }

  /** Removes `entry` (collected, expired or given up). */
  private take(key: string, entry: Entry<T>): void {
    if (this.entries.get(key) !== entry) return;
    this.entries.delete(key);
    if (entry.expiry) clearTimeout(entry.expiry);
  }

  /** Stops every conversion (server shutdown). */
  close(): void {
    for (const [key, entry] of this.entries) {
      entry.controller.abort(new Error("closing"));
      this.take(key, entry);
    }
  }
}

/** Waits for `promise` at most `ms` (or until `signal` aborts); says whether it settled, and how. */
async function raceWithin<T>(promise: Promise<T>, ms: number, signal: AbortSignal | undefined): Promise<{ done: true; result: () => T } | { done: false }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const late = new Promise<{ done: false }>((resolve) => {
    timer = setTimeout(() => resolve({ done: false }), ms);
    if (signal) {
      onAbort = () => resolve({ done: false });
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    }
  });
  const settled = promise.then(
    (value) => ({ done: true as const, result: () => value }),
    (err: unknown) => ({
      done: true as const,
      result: (): T => {
        throw err;
      },
    }),
  );
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}
