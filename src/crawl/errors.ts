/**
 * @module crawl/errors
 * Errors that only the crawl logic and map raise. Generic errors live in `src/errors.ts`.
 */
import { CrawlboxError } from "../errors.ts";

/**
 * Whether two URLs are one as a client sends them (`http://host` and `http://host/`): a start URL without its root
 * path was reported as "redirected to" itself with the slash.
 */
function sameUrl(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/**
 * A crawl page redirected to a URL the crawl's rules refuse (another host, an excluded path, …), or the crawl's
 * start page is one they refuse: reported in `/errors` with upstream's `CRAWL_DENIAL` code instead of adding an
 * out-of-scope page to the results.
 */
export class CrawlDenialError extends CrawlboxError {
  /** `start`: the crawl's start page, whose links were followed though it is not a result itself. */
  constructor(url: string, finalUrl: string, reason: string, start = false) {
    const message = !start
      ? `${url} redirected to ${finalUrl}, which the crawl's options do not allow (${reason}).`
      : sameUrl(finalUrl, url)
        ? `${url}, the crawl's start page, is not one of its results: the crawl's options do not allow it (${reason}); its links were followed.`
        : `${url}, the crawl's start page, redirected to ${finalUrl}, which the crawl's options do not allow as a result (${reason}); its links were followed.`;
    super("CRAWL_DENIAL", 403, message, {
      details: { url, finalUrl, reason },
      retryable: false,
    });
  }
}

/**
 * robots.txt refuses the crawl's start page (or answered 5xx, or timed out, which count as a refusal: RFC 9309's
 * "unreachable"): not fetched. `unreachable` says which, so that the message does not blame a rule that is not there.
 */
export class StartPageDisallowedError extends CrawlboxError {
  constructor(url: string, unreachable = false) {
    const why = unreachable ? "robots.txt could not be read (a 5xx answer or a timeout counts as disallowing all)" : "robots.txt disallows it";
    super("CRAWL_DENIAL", 403, `${why}: ${url} is the crawl's start page; set ignoreRobotsTxt: true to crawl it anyway.`, {
      details: { url, reason: "ROBOTS_TXT" },
      retryable: false,
    });
  }
}

/** 408: `POST /v2/map` exceeded its `timeout` (upstream `MAP_TIMEOUT`, api-v2.md §3.3). */
export class MapTimeoutError extends CrawlboxError {
  constructor(timeoutMs: number) {
    super("MAP_TIMEOUT", 408, `Map timed out after ${timeoutMs} ms. Raise the timeout or lower the limit.`, { details: { timeoutMs }, retryable: true });
  }
}
