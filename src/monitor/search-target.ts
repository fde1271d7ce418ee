/**
 * @module monitor/search-target
 * A monitor's search target, run through the server's search service (SearXNG, docs/search.md) like
 * `POST /v2/search`: each query with the target's `maxResults`, its domain filters, and its `searchWindow` as a time
 * filter (search/time-window.ts: SearXNG is asked for the last day or week, and dated results older than the
 * window are dropped; a result seen before is reported `same` anyway). The searches are charged to the key as searches.
 */
import { parseSearchBody } from "../api/search.ts";
import type { SearchService } from "../search/service.ts";
import type { SearchRunner } from "./check.ts";

/** `searchWindow` as the search API's `tbs`. */
const WINDOW_TBS = { "5m": "qdr:n5", "15m": "qdr:n15", "1h": "qdr:h", "6h": "qdr:h6", "24h": "qdr:d", "7d": "qdr:w" } as const;

/** The runner a check calls for each query of a search target. */
export function searchRunner(search: SearchService): SearchRunner {
  return async ({ target, query, who, signal }) => {
    const body: Record<string, unknown> = { query, limit: target.maxResults, origin: "monitor" };
    if (target.searchWindow) body.tbs = WINDOW_TBS[target.searchWindow];
    if (target.includeDomains) body.includeDomains = target.includeDomains;
    if (target.excludeDomains) body.excludeDomains = target.excludeDomains;
    const found = await search.search(parseSearchBody(body), who, { signal });
    const results = (found.data.web ?? []).map((r) => ({
      url: String(r.url),
      ...(typeof r.title === "string" ? { title: r.title } : {}),
      ...(typeof r.description === "string" ? { description: r.description } : {}),
    }));
    return { results, credits: found.creditsUsed };
  };
}
