/**
 * @module agent/limits
 * What one agent run may do and how many run (agent/service.ts): pages by `effort`, the caller's URLs read, the
 * credits a key needs to start one, runs per key and at once, pages at once, the search offered to a run without
 * URLs, and restarts before a run is failed. docs/agent.md states each of them.
 */
import { SEARCH_CREDITS_PER_10 } from "../search/service.ts";

/** Pages a run may read, by `effort` (the caller's own URLs are all read, up to {@link MAX_AGENT_URLS}). */
export const EFFORT_PAGES = { low: 3, medium: 6, high: 12 } as const;
/** Most of the caller's URLs a run reads. */
export const MAX_AGENT_URLS = 25;
/** Credits a key must have left to start a run (upstream's `checkCreditsMiddleware(20)`), or `maxCredits` if lower. */
export const AGENT_MIN_CREDITS = 20;
/** Runs of one key processing at once; more is a 429. */
export const MAX_AGENT_RUNS_PER_KEY = 10;
/** Runs executing at once in this process; more wait in order. */
export const RUNS_AT_ONCE = 2;
/** Pages of one run scraped at once. */
export const PAGES_AT_ONCE = 2;
/** Search results offered to a run without URLs. */
export const SEARCH_RESULTS = 5;
/** What that search costs (search's price per started 10 results, docs/credits.md). */
export const SEARCH_CREDITS = Math.ceil(SEARCH_RESULTS / 10) * SEARCH_CREDITS_PER_10;
/** Runs of one run (the server stopped during each) after which it is failed instead of run again. */
export const MAX_ATTEMPTS = 3;
