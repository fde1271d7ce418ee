/**
 * @module server/routes/map
 * `POST /v2/map` (api-v2.md §2.6, §3.3): validates with `parseMapBody`, charges 1 credit per successful call,
 * and hands the request to `crawl/map`. The answer is `{success:true, id, links:[{url, title?, description?}],
 * warning?}`; a `timeout` that passes is a 408 `MAP_TIMEOUT`.
 *
 * The route owns one HTTP engine (built on the shared egress gate, as the composition root builds the scrape
 * engine) and one robots.txt cache, shared by every map call of this process; large pages are parsed on the
 * scrapes' parse workers (crawl/map-page-offload.ts).
 */
import { Elysia } from "elysia";
import { MapRequestSchema, parseMapBody } from "../../api/map.ts";
import { mapSite } from "../../crawl/map.ts";
import { fewMapResultsWarning } from "../../crawl/base-domain.ts";
import { authPlugin } from "../auth.ts";
import type { Services } from "../services.ts";

/** Credits one map call costs (upstream bills 1 per map). */
export const MAP_CREDITS = 1;

/** The map route. */
export function mapRoutes(services: Services) {
  const { config, ledger, gate, discoveryHttp: engine, robots, parseWorkers: parsePool } = services;
  return new Elysia({ name: "crawlbox-map" })
    .use(authPlugin(services.keys, config.authEnabled))
    .post(
      "/v2/map",
      async ({ body, who, request }) => {
        const req = parseMapBody(body);
        // Held while the site is mapped, so concurrent maps of one key cannot all pass on its last credit.
        // Within the drain: still running when a stopping server's grace ends, it is answered 503 SERVER_STOPPING.
        const result = await services.drain.run(request, (signal) => ledger.holding(who, MAP_CREDITS, () => mapSite(req, { engine, robots, gate, parsePool }, signal), () => MAP_CREDITS));
        const warning = [result.warning, fewMapResultsWarning(req.url, result.links.length, req.limit)].filter(Boolean).join(" ");
        return { success: true as const, id: crypto.randomUUID(), links: result.links, ...(warning ? { warning } : {}) };
      },
      {
        detail: {
          tags: ["map"],
          summary: "List the URLs of a site (sitemaps and links, no scraping)",
          requestBody: { required: true, content: { "application/json": { schema: MapRequestSchema as object } } },
        },
      },
    );
}
