/**
 * @module test/helpers/map-test-site
 * The setup the map tests repeat: a local `Bun.serve({ port: 0 })` site on 127.0.0.1 answering from a handler, an
 * egress gate that allows it, an HTTP engine and a robots.txt cache, and `mapSite` bound to them. Requests are
 * recorded (path and query) so a test can say what discovery fetched, and those still open are counted, so a test can
 * say that nothing goes on fetching after a map answered.
 */
import { mapSite, type MapDeps, type MapResult, type MapSiteOptions } from "../../src/crawl/map.ts";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import { createEgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";

/** A running test site (see the module comment). */
export interface MapTestSite {
  origin: string;
  /** Engine, robots.txt cache (fresh for each {@link map}) and gate. */
  deps: MapDeps;
  /**
   * `pathname + search` of each request but robots.txt, in the order they came (`//host/path…` for a host other
   * than the first of `hosts`); cleared by {@link map}.
   */
  hits: string[];
  /**
   * Requests (robots.txt included, named as in {@link hits}) the site has not answered and whose client has not gone
   * away: what is still being fetched from it.
   */
  openRequests(): string[];
  /** Maps `path` (default `/`) of the site with `sitemap: "skip"` unless `options` says otherwise. */
  map(options?: Partial<MapSiteOptions> & { path?: string }, deps?: Partial<MapDeps>): Promise<MapResult>;
  close(): Promise<void>;
}

/** An HTML page titled `title` whose body links to `links`, in that order. */
export function htmlPage(title: string, links: readonly string[], head = ""): Response {
  const body = links.map((h) => `<a href="${h}">${h}</a>`).join("");
  return new Response(`<html><head><title>${title}</title>${head}</head><body>${body}</body></html>`, { headers: { "content-type": "text/html" } });
}

/**
 * Starts a site answering `handler` (robots.txt included), at 127.0.0.1 or, given `hosts`, at the first of them,
 * each resolved to 127.0.0.1 by the gate (`handler` tells them apart by hostname; `request.signal` says when the
 * client went away).
 */
export async function startMapTestSite(handler: (url: URL, request: Request) => Response | Promise<Response>, { hosts = [] as string[] } = {}): Promise<MapTestSite> {
  const hits: string[] = [];
  const open = new Map<number, string>();
  let seq = 0;
  const host = hosts[0] ?? "127.0.0.1";
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const u = new URL(req.url);
      const name = `${u.hostname === host ? "" : `//${u.hostname}`}${u.pathname}${u.search}`;
      if (u.pathname !== "/robots.txt") hits.push(name);
      const id = ++seq;
      open.set(id, name);
      req.signal.addEventListener("abort", () => open.delete(id), { once: true });
      try {
        return await handler(u, req);
      } finally {
        open.delete(id);
      }
    },
  });
  const origin = `http://${host}:${server.port}`;
  const names = new Set(hosts);
  const resolver = hosts.length > 0 ? async (name: string) => (names.has(name.toLowerCase()) ? ["127.0.0.1"] : []) : undefined;
  const gate = await createEgressGate({ allowPrivateNetwork: true, ...(resolver ? { resolver } : {}) });
  const engine = createHttpEngine({ gate });
  const deps: MapDeps = { engine, robots: new RobotsCache({ engine }), gate };
  return {
    origin,
    deps,
    hits,
    openRequests: () => [...open.values()],
    map({ path = "/", ...options } = {}, overrides = {}) {
      hits.length = 0;
      return mapSite({ url: `${origin}${path}`, sitemap: "skip", ...options }, { ...deps, robots: new RobotsCache({ engine }), ...overrides });
    },
    async close() {
      await gate.close();
      server.stop(true);
    },
  };
}
