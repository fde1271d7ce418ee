/**
 * @module scrape/page-source
 * Where a scrape's page comes from: the `maxAge` cache when the request allows a cached copy and one is fresh
 * enough (`minAge` and `lockdown` allow nothing else), otherwise the engines, whose answer is then cached for
 * others when it is shareable (scrape/cache-key.ts). Formats that need the live page (`needsFreshPage`: branding,
 * which reads the browser's rendering, and changeTracking, which records the page as the next baseline) always see
 * it; with `minAge` or `lockdown`, which allow only the cache, they are a 400 before anything is fetched
 * ({@link assertLivePageAllowed}), never answered from a cached copy.
 *
 * A request for the fetched bytes alone (`rawBase64`, a `bytesOnly` format: renderer.ts) passes over a copy
 * the browser made: that is the page's DOM re-serialised (UTF-8, after its scripts), not the bytes the server sent,
 * so it fetches them (the router answers it from the HTTP engine when it can). The cache stores which engine made a
 * copy (`page.engine`), so no key changes. Only `minAge` and `lockdown`, which forbid a fetch, still serve it, with a
 * warning (plugins/formats/raw-base64.ts). What such a request fetched is not cached over the browser's copy, nor
 * when it is HTML that needs JavaScript: the router gave it the bytes without rendering them, while every other
 * request for the page wants (and would cache) the browser's rendering.
 */
import { CrawlboxError, NoCachedDataError, UnsupportedOptionError } from "../errors.ts";
import { type EngineRouter, wantsOnlyBytes } from "../engines/router.ts";
import type { Page } from "../engines/types.ts";
import type { Logger } from "../log.ts";
import { needsJavaScript } from "../engines/browser/detect.ts";
import { isCacheableArtifacts, type PageCache } from "../storage/page-cache.ts";
import { isCacheable, isSharedFetch, pageCacheKey } from "./cache-key.ts";
import type { RendererRegistry } from "./renderer.ts";
import { LOCKDOWN_MAX_AGE_MS, type FormatRequest, type ScrapeSpec } from "./spec.ts";

/** 404 for a `lockdown` cache miss. */
export class LockdownCacheMissError extends CrawlboxError {
  constructor() {
    super("SCRAPE_LOCKDOWN_CACHE_MISS", 404, "lockdown is set and no cached copy of this URL exists.");
  }
}

/** The option of `spec` that allows only a cached copy (`lockdown` first), if any. */
function cacheOnlyOption(spec: Pick<ScrapeSpec, "lockdown" | "minAgeMs">): "lockdown" | "minAge" | undefined {
  return spec.lockdown ? "lockdown" : spec.minAgeMs !== undefined ? "minAge" : undefined;
}

/**
 * 400 before anything is fetched: `format` needs the live page and `spec` allows only the cache (`minAge`,
 * `lockdown`). Answered from a cached copy, branding came back as a 200 whose warning blamed the URL, and
 * changeTracking diffed the old copy and recorded it as the baseline, dated now. Upstream never reads its index
 * for either format unless forced: under `lockdown` it refuses branding and serves changeTracking from the index,
 * under `minAge` it fetches live and ignores the option. crawlbox neither serves the stale copy nor ignores an
 * option the client set. Called by those formats' `validate`, so crawls and batches are refused when submitted;
 * `code` is the format's own (branding: upstream's `SCRAPE_BRANDING_NOT_SUPPORTED`).
 */
export function assertLivePageAllowed(format: Pick<FormatRequest, "type">, spec: Pick<ScrapeSpec, "lockdown" | "minAgeMs">, code = "BAD_REQUEST"): void {
  const option = cacheOnlyOption(spec);
  if (option === undefined) return;
  throw new UnsupportedOptionError(
    code,
    `The "${format.type}" format needs the live page, and \`${option}\` allows only a cached copy: leave out \`${option}\` or the format.`,
    { format: format.type, option },
  );
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
  // Formats that report what changed (changeTracking) or what the browser rendered (branding) must see the live
  // page, not a cached copy: with a cache-only option that is a 400 (their validate() says so before this).
  const fresh = spec.formats.find((f) => src.renderers.get(f.type)?.needsFreshPage);
  if (fresh) assertLivePageAllowed(fresh, spec);
  const bytesOnly = wantsOnlyBytes(spec, (type) => src.renderers.get(type)?.bytesOnly === true);
  /** A browser's copy was cached and passed over (see the module's comment): it stays for the other requests. */
  let passedOverBrowserCopy = false;
  if (isSharedFetch(spec) && !fresh && (cacheOnly || spec.maxAgeMs > 0)) {
    const maxAge = spec.lockdown ? LOCKDOWN_MAX_AGE_MS : spec.minAgeMs !== undefined ? Infinity : spec.maxAgeMs;
    const hit = src.cache.get(key, now - maxAge);
    if (hit && (spec.minAgeMs === undefined || now - hit.cachedAt >= spec.minAgeMs)) {
      passedOverBrowserCopy = bytesOnly && hit.page.engine === "browser" && !cacheOnly;
      if (!passedOverBrowserCopy) return { page: { ...hit.page, requestedUrl: spec.url }, cachedAt: hit.cachedAt };
    }
  }
  if (spec.lockdown) throw new LockdownCacheMissError();
  if (cacheOnly) throw new NoCachedDataError();

  const page = await src.engines.fetch(spec, src.maxPageBytes, signal, { keyId });
  // The bytes of a page the others see rendered are not what they would get from the cache (the module's comment).
  const othersWantRendering = bytesOnly && (passedOverBrowserCopy || (page.engine === "http" && needsJavaScript(page) !== undefined));
  // A degraded copy (a browser that failed on a page needing one) is not kept for others.
  if (isCacheable(spec) && isCacheableArtifacts(page.artifacts) && !page.degraded && !othersWantRendering && page.statusCode >= 200 && page.statusCode < 300) {
    // The cache is an optimisation: a full disk must not fail the scrape that was already fetched.
    await src.cache.put(key, page, src.now()).catch((err: unknown) => {
      src.log?.warn("page cache write failed", { url: spec.url, error: String(err) });
    });
  }
  return { page };
}
