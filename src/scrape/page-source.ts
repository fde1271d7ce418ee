/**
 * @module scrape/page-source
 * Where a scrape's page comes from: the `maxAge` cache when the request allows a cached copy and one is fresh
 * enough (`minAge` and `lockdown` allow nothing else), otherwise the engines, whose answer is then cached for
 * others when it is shareable (scrape/cache-key.ts). Formats that report changes (`changeTracking`) always see the
 * live page.
 */
import { CrawlboxError, NoCachedDataError } from "../errors.ts";
import type { EngineRouter } from "../engines/router.ts";
import type { Page } from "../engines/types.ts";
import type { Logger } from "../log.ts";
import { isCacheableArtifacts, type PageCache } from "../storage/page-cache.ts";
import { isCacheable, isSharedFetch, pageCacheKey } from "./cache-key.ts";
import type { RendererRegistry } from "./renderer.ts";
import { LOCKDOWN_MAX_AGE_MS, type ScrapeSpec } from "./spec.ts";

/** 404 for a `lockdown` cache miss. */
export class LockdownCacheMissError extends CrawlboxError {
  constructor() {
    super("SCRAPE_LOCKDOWN_CACHE_MISS", 404, "lockdown is set and no cached copy of this URL exists.");
  }
}

/** What {@link obtainPage} reads and writes. */
export interface PageSource {
  engines: EngineRouter;
  cache: PageCache;
  renderers: RendererRegistry;
  maxPageBytes: number;
  now: () => number;
  /** Whether the egress gate lets private addresses through: such copies are cached apart (cache-key.ts). */
  privateNetwork?: boolean;
  log?: Pick<Logger, "warn">;
}

/** The page from the cache when allowed and fresh enough, otherwise from the engine (then cached). */
export async function obtainPage(src: PageSource, spec: ScrapeSpec, signal: AbortSignal | undefined, keyId: string): Promise<{ page: Page; cachedAt?: number }> {
  const now = src.now();
  const key = pageCacheKey(spec, src.privateNetwork);
  const cacheOnly = spec.lockdown || spec.minAgeMs !== undefined;
  // Formats that report what changed (changeTracking) must see the live page, not a cached copy.
  const fresh = spec.formats.some((f) => src.renderers.get(f.type)?.needsFreshPage);
  if (isSharedFetch(spec) && (cacheOnly || (spec.maxAgeMs > 0 && !fresh))) {
    const maxAge = spec.lockdown ? LOCKDOWN_MAX_AGE_MS : spec.minAgeMs !== undefined ? Infinity : spec.maxAgeMs;
    const hit = src.cache.get(key, now - maxAge);
    if (hit && (spec.minAgeMs === undefined || now - hit.cachedAt >= spec.minAgeMs)) {
      return { page: { ...hit.page, requestedUrl: spec.url }, cachedAt: hit.cachedAt };
    }
  }
  if (spec.lockdown) throw new LockdownCacheMissError();
  if (cacheOnly) throw new NoCachedDataError();

  const page = await src.engines.fetch(spec, src.maxPageBytes, signal, { keyId });
  // A degraded copy (a browser that failed on a page needing one) is not kept for others.
  if (isCacheable(spec) && isCacheableArtifacts(page.artifacts) && !page.degraded && page.statusCode >= 200 && page.statusCode < 300) {
    // The cache is an optimisation: a full disk must not fail the scrape that was already fetched.
    await src.cache.put(key, page, src.now()).catch((err: unknown) => {
      src.log?.warn("page cache write failed", { url: spec.url, error: String(err) });
    });
  }
  return { page };
}
