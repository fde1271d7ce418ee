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

/**
 * Parses `Retry-After` (seconds or an HTTP date) into a delay, capped. `Retry-After: 0` means "now", which we
 * treat as the base delay so a misbehaving site cannot make us spin.
 */
export function retryAfterMs(header: string | undefined, now: number, baseDelayMs = RETRY_BASE_DELAY_MS, maxDelayMs = RETRY_MAX_DELAY_MS): number | undefined {
  if (!header) return undefined;
  const secs = Number(header.trim());
  let ms: number;
  if (Number.isFinite(secs)) ms = secs * 1000;
  else {
    const at = Date.parse(header);
    if (!Number.isFinite(at)) return undefined;
    ms = at - now;
  }
  return Math.min(maxDelayMs, Math.max(baseDelayMs / 2, ms));
}

/** Whether a page answer with `status` should be tried again. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}
