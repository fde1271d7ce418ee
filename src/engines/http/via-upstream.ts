/**
 * @module engines/http/via-upstream
 * The HTTP engine for fetches that are not a scrape attempt — robots.txt, sitemaps, map, media downloads — sent
 * through the basic upstream proxy when the operator configured one (`CRAWLBOX_PROXY_BASIC`), exactly like a
 * scrape's first attempt. Without it, an appliance whose only way out is its proxy would scrape pages but fail
 * every robots.txt (a crawl then reads "unreachable: disallow everything") and every sitemap.
 *
 * The egress gate still checks every destination first (the upstream listener does), so nothing here widens what
 * can be reached.
 */
import type { Engine } from "../types.ts";

/**
 * `engine`, with `upstreamProxy` filled in for requests that name none. Returns `engine` itself when
 * `upstreamProxy` is empty (no basic upstream configured: direct, through the gate).
 */
export function viaUpstream(engine: Engine, upstreamProxy: string): Engine {
  if (upstreamProxy === "") return engine;
  return {
    name: engine.name,
    fetch: (request, signal) => engine.fetch(request.upstreamProxy ? request : { ...request, upstreamProxy }, signal),
  };
}
