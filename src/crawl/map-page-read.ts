/**
 * @module crawl/map-page-read
 * How map discovery (crawl/map-discovery.ts) reads one fetched page: lists it with its title and description, and
 * judges and queues its links. Apart from discovery's fetching and pacing because reading has rules of its own: a
 * large page is parsed on a parse worker within a time (crawl/map-page-offload.ts), a page's many links are judged
 * with the event loop given back every few ms, and a page fetched once the list is full is read for its title alone.
 */
import { createYielder } from "./filter-yielding.ts";
import { MAP_GROUP, type MapListing } from "./map-listing.ts";
import { readMapPageInfo } from "./map-page.ts";
import { readMapPageInTime, type MapPageReading } from "./map-page-offload.ts";
import type { DiscoveryQueue } from "./map-queue.ts";

/**
 * Largest page (in characters) read for its title and description alone, once `limit` URLs are known: a page fetched
 * in the batch that reached `limit` keeps the title it was fetched for, at the cost of one parse of at most this.
 */
export const MAP_MAX_INFO_ONLY_CHARS = 1024 * 1024;
/** Document types listed but never fetched for links. */
export const NOT_HTML = /\.(pdf|docx?|xlsx?|pptx?|odt|ods|rtf|csv|json|xml|gz|txt)$/i;

/** A page fetched, before it is read: its response, or how the fetch went when there is nothing to read. */
export type Fetched = { outcome: "answered"; url: string; depth: number; finalUrl: string; html?: string } | { outcome: "timeout" | "skipped" };

/** What reading pages needs from discovery. */
export interface PageReaderContext {
  found: MapListing;
  queue: DiscoveryQueue;
  /** Depth past which links are listed but not queued; undefined: no limit. */
  maxDepth: number | undefined;
  signal: AbortSignal;
  /** Parse workers for large pages; without them pages are parsed on the main thread. */
  parsePool?: MapPageReading["pool"];
}

/**
 * Lists a fetched page (title, description) and its links, and queues those to fetch. The event loop is given back
 * during the links (a page may have 300,000: 0.8 s of judging, 1.5 s with `search`), and they stop without `search`
 * once no more can be listed (later ones would be cut by `limit`, and discovery ends there) and at `endAt` (a
 * `performance.now()` time). A large page parsed on a worker must be read by `readBy` (its worker is stopped then);
 * `mayWait` false (the start page): one that no worker can take at once is parsed here. Returns false when `endAt`
 * or `readBy` cut it short.
 */
export type PageReader = (fetched: Fetched & { outcome: "answered" }, endAt?: number, readBy?: number, mayWait?: boolean) => Promise<boolean>;

/** The {@link PageReader} of one map's discovery. */
export function pageReader({ found, queue, maxDepth, signal, parsePool }: PageReaderContext): PageReader {
  return async (fetched, endAt = Infinity, readBy = endAt, mayWait = true) => {
    const { url, depth, finalUrl, html } = fetched;
    if (html === undefined) return true;
    if (performance.now() >= endAt) return false;
    if (found.full) {
      // A page fetched in the batch that filled the list: nothing it links to could be listed any more, but its
      // title and description are wanted (it is listed), when that costs one small parse.
      if (html.length <= MAP_MAX_INFO_ONLY_CHARS) found.add(url, MAP_GROUP.discovered, readMapPageInfo(html));
      return true;
    }
    const page = await readMapPageInTime(html, finalUrl, { pool: parsePool, endAt: readBy, signal, mayWait });
    if (!page) {
      // Not read in time: listed as fetched, without its title or links.
      found.add(url, MAP_GROUP.discovered);
      if (finalUrl !== url) found.add(finalUrl, MAP_GROUP.discovered);
      return false;
    }
    const info = { title: page.title, description: page.description };
    found.add(url, MAP_GROUP.discovered, info);
    if (finalUrl !== url) found.add(finalUrl, MAP_GROUP.discovered, info);
    const follow = maxDepth === undefined || depth + 1 < maxDepth;
    const pause = createYielder();
    for (const link of page.links) {
      const paused = pause();
      if (paused) {
        await paused;
        signal.throwIfAborted();
        if (performance.now() >= endAt) return false;
      }
      if (found.full) break;
      const judged = found.judge(link);
      if (!judged) continue;
      // Queued as linked (its query kept: pagination); crawl/map-queue.ts drops tracking parameters and keeps a page's
      // query variants behind the site's pages.
      const queued = follow && found.onSite(link) && !NOT_HTML.test(new URL(judged.url).pathname) && queue.offer({ url: judged.href, listed: judged.url, depth: depth + 1 }, judged.match, judged.key);
      found.keep(judged, queued);
    }
    return true;
  };
}
