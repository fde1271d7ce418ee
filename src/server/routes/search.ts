/**
 * @module server/routes/search
 * `POST /v2/search` (api-v2.md §2.7, §3.3): validated with `parseSearchRequest` (a bad body is upstream's 400
 * "Invalid request body" with the issues in `details`), run by the search service over the
 * configured SearXNG instance (docs/search.md). Without `SEARXNG_ENDPOINT` every search is a 400
 * `SEARCH_NOT_CONFIGURED` that says what to set.
 */
import { Elysia } from "elysia";
import { parseSearchRequest, SearchRequestSchema } from "../../api/search.ts";
import { authPlugin } from "../auth.ts";
import { fileSinkFor, publicBaseUrl } from "../public-url.ts";
import type { Services } from "../services.ts";

/** The search route. */
export function searchRoutes(services: Services) {
  const { config } = services;
  return new Elysia({ name: "crawlbox-search" })
    .use(authPlugin(services.keys, config.authEnabled))
    .post(
      "/v2/search",
      async ({ body, who, request }) => {
        const req = parseSearchRequest(body);
        const base = publicBaseUrl(config.publicUrl, request);
        // Within the drain: still running when a stopping server's grace ends, it is answered 503 SERVER_STOPPING.
        return services.drain.run(request, (signal) => services.search.search(req, who, { signal, files: fileSinkFor(services, who.keyId, base), publicBaseUrl: base }));
      },
      { detail: { tags: ["search"], summary: "Search the web (through SearXNG) and optionally scrape the results", requestBody: { required: true, content: { "application/json": { schema: SearchRequestSchema as object } } } } },
    );
}
