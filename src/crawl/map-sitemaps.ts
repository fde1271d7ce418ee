/**
 * @module crawl/map-sitemaps
 * A map's sitemap step (crawl/map.ts): the site's sitemaps read into the listing as each file arrives (so what was
 * read is kept whatever stops the map later), and what the client should be told about them.
 *
 * The warning names the sitemaps that were cut or failed: before, `errors` was collected and never shown, so a
 * 60 MiB sitemap, a gzip file inflating past the cap or an index child answering 500 dropped out in silence. Not
 * named: a sitemap that does not exist (404, 410: a stale index entry, which the client can do nothing about), and
 * the `/sitemap.xml` files map guesses unless they were cut or ran out of time (a slow one lost its URLs unsaid). A bound is not mentioned when the map has
 * its `limit` anyway: with a 60,000-URL sitemap a default map said "stopped at a bound" beside its 5000 links.
 */
import type { Engine } from "../engines/types.ts";
import { createYielder } from "./filter-yielding.ts";
import { MAP_GROUP, type MapListing } from "./map-listing.ts";
import { readSitemaps, sitemapCandidates, type SitemapResult } from "./sitemap.ts";
import { SITEMAP_NOT_FINISHED, SITEMAP_TOO_LARGE } from "./sitemap-fetch.ts";

/**
 * Most listable sitemap URLs a map keeps with `search` whatever the `limit` (matches may come late in the sitemaps),
 * and most sitemap URLs it looks at, listable or not.
 */
export const MAP_MAX_SITEMAP_URLS = 200_000;
/** Sitemaps a warning names; the others are counted. */
const NAMED_IN_WARNING = 5;
/** HTTP answers that say a sitemap does not exist, which is no failure. */
const ABSENT = new Set(["HTTP 404", "HTTP 410"]);

/** What the map's sitemap step needs. */
export interface MapSitemapsInput {
  /** The site mapped (where the start page landed, if elsewhere). */
  siteUrl: string;
  /** The URL the client asked for: its origin's headers are the client's own. */
  startUrl: string;
  /** robots.txt `Sitemap:` lines of the site mapped. */
  robotsSitemaps: readonly string[];
  engine: Pick<Engine, "fetch">;
  found: MapListing;
  limit: number;
  headers?: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
}

/** Reads the site's sitemaps into `found`; returns the read's outcome and the warning it calls for, if any. */
export async function readMapSitemaps(input: MapSitemapsInput): Promise<{ result: SitemapResult; warning?: string }> {
  const { found } = input;
  const candidates = sitemapCandidates(input.siteUrl, input.robotsSitemaps);
  const result = await readSitemaps(candidates, {
    engine: input.engine,
    // Only listable URLs count towards the cap, as they are read: capped before filtering, a map of /blog lost
    // the posts a sitemap listed after other sections. The scan bound ends huge reads.
    keep: (url) => found.accepts(url),
    maxUrls: found.searching ? MAP_MAX_SITEMAP_URLS : Math.min(MAP_MAX_SITEMAP_URLS, input.limit * 2 + 1000),
    maxUrlsScanned: MAP_MAX_SITEMAP_URLS,
    timeoutMs: Math.max(1, Math.round(input.timeoutMs)),
    headers: input.headers,
    headersOrigin: input.startUrl,
    signal: input.signal,
    onUrls: async (urls) => {
      const pause = createYielder();
      for (const u of urls) {
        await pause();
        found.add(u, MAP_GROUP.sitemap);
      }
    },
  });
  // The candidates map made up itself; the start URL, when it names a sitemap, and robots.txt's lines are asked for.
  const named = new Set(input.robotsSitemaps);
  if (/\.xml$/i.test(new URL(input.siteUrl).pathname)) named.add(candidates[0]!.url);
  const guessed = new Set(candidates.map((c) => c.url).filter((u) => !named.has(u)));
  const warning = sitemapWarning(result, found.matching >= input.limit, guessed);
  return warning ? { result, warning } : { result };
}

/** What a map says about its sitemaps: the bound that stopped the read, and the files cut or failed. */
export function sitemapWarning(result: SitemapResult, limitReached: boolean, guessed: ReadonlySet<string>): string | undefined {
  const parts: string[] = [];
  if (result.truncated && !limitReached) {
    parts.push(
      result.stoppedBy === "time"
        ? `Sitemap reading stopped at the map's time limit (${result.fetched.length} sitemaps begun, ${result.urls.length} URLs kept).`
        : `Sitemap reading stopped at a bound (${result.fetched.length} sitemaps, ${result.urls.length} URLs kept of ${result.scanned} read).`,
    );
  }
  const failed = result.errors.filter((e) => {
    if (ABSENT.has(e.message)) return false;
    if (e.code === SITEMAP_NOT_FINISHED && limitReached) return false;
    // A guessed file that answered something (cut, not finished, timed out) exists: its failure is news.
    return !guessed.has(e.url) || e.code === SITEMAP_TOO_LARGE || e.code === SITEMAP_NOT_FINISHED || e.code === "SCRAPE_TIMEOUT";
  });
  if (failed.length > 0) {
    const listed = failed.slice(0, NAMED_IN_WARNING).map((e) => `${e.url} (${e.message})`);
    const more = failed.length > NAMED_IN_WARNING ? `; and ${failed.length - NAMED_IN_WARNING} more` : "";
    parts.push(`Sitemaps cut or failed: ${listed.join("; ")}${more}.`);
  }
  return parts.length > 0 ? parts.join(" ") : undefined;
}
