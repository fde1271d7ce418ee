/**
 * @module jobs/retry-policy
 * When a crawl or batch page is tried again (reliability.md B5): network errors, timeouts, 408 and 5xx are
 * retried with exponential backoff and jitter; 429 and 503 honour `Retry-After` (capped); 4xx pages are never
 * retried (the answer is the answer). Numbers follow Crawlee's defaults, scaled down for a synchronous-feeling
 * API: 2 s base, doubling, 60 s cap.
 */

/** Attempts for a page before its last answer (or error) is final. */
export const MAX_PAGE_ATTEMPTS = 3;
/** Attempts when the site asks us to slow down (429/503 with Retry-After). */
export const MAX_THROTTLED_ATTEMPTS = 5;
/** First backoff delay. */
export const RETRY_BASE_DELAY_MS = 2_000;
/** Longest backoff or Retry-After we wait. */
export const RETRY_MAX_DELAY_MS = 60_000;

/** Backoff before attempt `attempt + 1` (attempt counts from 1), with ±25 % jitter, never over {@link RETRY_MAX_DELAY_MS}. */
export function backoffMs(attempt: number, baseDelayMs = RETRY_BASE_DELAY_MS, random: () => number = Math.random): number {
  const base = baseDelayMs * 2 ** Math.max(0, attempt - 1);
  // The cap applies after the jitter: the documented "at most 60 s" holds for every wait.
  return Math.min(RETRY_MAX_DELAY_MS, Math.round(base * (0.75 + random() * 0.5)));
}

/** The month names one of which every HTTP-date form has (IMF-fixdate, RFC 850, asctime; RFC 9110 §5.6.7). */
const HTTP_DATE_MONTH = /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\b/i;

/**
 * The delay a `Retry-After` header asks for, in ms from `now`: delay-seconds (digits only) or an HTTP-date (RFC 9110
 * §10.2.3); negative for a date in the past, Infinity for a number too large for a double. Undefined when it is
 * neither: `1.5`, `-5`, `0x10` or `1e3` are not delay-seconds (JavaScript's `Number` reads them), and `1 2` or
 * `2026` are not HTTP-dates (`Date.parse` reads them as dates in 2001 and 2026). The one reader of the header:
 * page retries, webhook retries and LLM errors all use it.
 */
export function retryAfterDelayMs(header: string | null | undefined, now: number): number | undefined {
  const v = header?.trim();
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  if (!HTTP_DATE_MONTH.test(v)) return undefined;
  const at = Date.parse(v);
  return Number.isFinite(at) ? at - now : undefined;
}

/**
 * {@link retryAfterDelayMs}, capped. `Retry-After: 0` (or a past date) means "now", which we treat as half the base
 * delay so a misbehaving site cannot make us spin.
 */
export function retryAfterMs(header: string | undefined, now: number, baseDelayMs = RETRY_BASE_DELAY_MS, maxDelayMs = RETRY_MAX_DELAY_MS): number | undefined {
  const ms = retryAfterDelayMs(header, now);
  return ms === undefined ? undefined : Math.min(maxDelayMs, Math.max(baseDelayMs / 2, ms));
}

/**
 * Whether `status` is a temporary failure by HTTP's own meaning: the request timed out (408), was throttled (429) or
 * met a server error (5xx, and anything above). Also what changeTracking counts among its error answers
 * (change-tracking/answer-status.ts).
 */
export function isTemporaryFailureStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/** Whether a page answer with `status` should be tried again: a temporary failure. */
export function isRetryableStatus(status: number): boolean {
  return isTemporaryFailureStatus(status);
}
