/**
 * @module search/errors
 * Errors of `POST /v2/search`: not configured (400, names what to set), the search backend failing (500, as other
 * far-side failures; the SDKs retry a 502) and the request's `timeout` passing (408).
 */
import { CrawlboxError } from "../errors.ts";

/** 400: no search backend is configured. */
export class SearchNotConfiguredError extends CrawlboxError {
  constructor() {
    super(
      "SEARCH_NOT_CONFIGURED",
      400,
      "Search needs a SearXNG instance with JSON output enabled, and none is configured: set SEARXNG_ENDPOINT (docs/search.md). crawlbox never sends queries to a public search engine by itself.",
    );
  }
}

/** 500: the search backend failed or answered something that is not a SearXNG JSON result page. */
export class SearchBackendError extends CrawlboxError {
  constructor(message: string, cause?: unknown) {
    super("SEARCH_BACKEND_ERROR", 500, message, { retryable: true, cause });
  }
}

/**
 * A query that found nothing while SearXNG reported engines that did not answer (blocked by a CAPTCHA, timed out):
 * an outage, not an empty result. The search service turns it into a warning when its other queries found
 * something, and into this error (500, retryable) when nothing was found at all.
 */
export class SearchEnginesSilentError extends SearchBackendError {
  constructor(readonly engines: string[]) {
    super(`The search backend found nothing, and some of its engines did not answer: ${engines.join(", ")}. Try again later, or check those engines in SearXNG.`);
  }
}

/** 408: the search (and the scraping of its results) ran past the request's `timeout`. */
export class SearchTimeoutError extends CrawlboxError {
  constructor(timeoutMs: number) {
    super("SEARCH_TIMEOUT", 408, `Search timed out after ${timeoutMs} ms.`, { details: { timeoutMs }, retryable: true });
  }
}
