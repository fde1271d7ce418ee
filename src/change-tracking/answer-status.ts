/**
 * @module change-tracking/answer-status
 * What an answer's HTTP status means to changeTracking: one that says the page is gone (`removed`), one that is an
 * error answer saying nothing of the page's content (compared with the last error answer, kept apart from the
 * page's versions), or the page itself. The format (plugins/formats/change-tracking.ts) and a crawl's re-checks
 * (change-tracking/crawl-recheck.ts) read it from here, so the two agree.
 */
import { isTemporaryFailureStatus } from "../jobs/retry-policy.ts";

/** A 404 or a 410: the page is gone (`removed`). An answer about the page, kept as its version like any other. */
export function isRemovedStatus(status: number): boolean {
  return status === 404 || status === 410;
}

/**
 * An error answer that says nothing of the page's content, only that it could not be had now: a timeout (408),
 * throttling (429), a server error (5xx: the temporary failures a crawl retries, jobs/retry-policy.ts), and the
 * 401/403 a bot wall or a login gate answers. It is stored as an error answer, apart from the page's versions (see
 * change-tracking/history.ts): the next error answer is compared with it (one of the same status is `same`, whatever
 * its text: an outage or a page that always answers 403 is reported once, even when the error page carries a ray id
 * or the time), and the next good answer with the last good version (the page coming back as it was is `same`). 404/410 are answers about the page ({@link isRemovedStatus}).
 * A 5xx carrying the page's real content is one too (docs/llm.md): `same` when it is the last good version, and
 * what changes while the status lasts is reported by the next answer that is not an error. An error answer of
 * another status than the latest is compared with it by its text.
 */
export function isErrorAnswerStatus(status: number): boolean {
  return status === 401 || status === 403 || (isTemporaryFailureStatus(status) && status <= 599);
}

/**
 * {@link isErrorAnswerStatus} as an SQL condition on the status code `column` (an integer; NULL is no error answer),
 * for a store that keeps a status code beside each scrape and must class answers as changeTracking does
 * (monitor/store.ts, naming the scrape a page was compared with).
 */
export function errorAnswerStatusSql(column: string): string {
  return `(${column} IN (401, 403, 408, 429) OR ${column} BETWEEN 500 AND 599)`;
}

/** The warning of a scrape whose answer is an error answer ({@link isErrorAnswerStatus}). */
export function errorAnswerWarning(status: number): string {
  return (
    `The page answered HTTP ${status}: changeTracking keeps this answer as an error answer, apart from the page's versions: ` +
    "a later error answer compares with it, and a later answer that is not an error compares with the last version that was not an error."
  );
}
