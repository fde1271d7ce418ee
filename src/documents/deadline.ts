/**
 * @module documents/deadline
 * One deadline for a whole document: the request's `timeout` minus what the fetch already used. Parsers check
 * it between pages and pass its signal to OCR jobs, so a 500-page scan fails with `SCRAPE_TIMEOUT` on time
 * instead of running on after the client gave up.
 */
import type { Page } from "../engines/types.ts";
import { ScrapeTimeoutError } from "../errors.ts";
import type { ScrapeSpec } from "../scrape/spec.ts";

/** A document's deadline. */
export interface DocumentDeadline {
  readonly signal: AbortSignal;
  /** Throws `SCRAPE_TIMEOUT` (or the caller's abort reason) when the deadline passed. */
  check(): void;
  /** Maps an abort caused by this deadline to `SCRAPE_TIMEOUT`; other errors pass through. */
  wrap(err: unknown): unknown;
}

/** The deadline of `page` under `spec`, joined with the caller's `signal`. */
export function documentDeadline(spec: Pick<ScrapeSpec, "timeoutMs">, page: Pick<Page, "elapsedMs">, signal?: AbortSignal): DocumentDeadline {
  const remaining = Math.max(1, spec.timeoutMs - Math.max(0, page.elapsedMs));
  const timer = AbortSignal.timeout(remaining);
  // Read on the clock too: the timer's abort is set by the event loop, which a long synchronous parse holds.
  const endsAt = performance.now() + remaining;
  const passed = () => timer.aborted || performance.now() >= endsAt;
  const joined = signal ? AbortSignal.any([signal, timer]) : timer;
  const timeoutError = () => new ScrapeTimeoutError(spec.timeoutMs);
  return {
    signal: joined,
    check() {
      if (passed()) throw timeoutError();
      if (signal?.aborted) throw signal.reason;
    },
    wrap(err) {
      if (passed() && !(signal?.aborted)) return timeoutError();
      return err;
    },
  };
}
