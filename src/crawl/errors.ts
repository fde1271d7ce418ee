/**
 * @module crawl/errors
 * Errors that only the crawl logic and map raise. Generic errors live in `src/errors.ts`.
 */
import { CrawlboxError } from "../errors.ts";

/** 408: `POST /v2/map` exceeded its `timeout` (upstream `MAP_TIMEOUT`, api-v2.md §3.3). */
export class MapTimeoutError extends CrawlboxError {
  constructor(timeoutMs: number) {
    super("MAP_TIMEOUT", 408, `Map timed out after ${timeoutMs} ms. Raise the timeout or lower the limit.`, { details: { timeoutMs }, retryable: true });
  }
}
