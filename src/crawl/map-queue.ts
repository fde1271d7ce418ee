/**
 * @module crawl/map-queue
 * The pages a map's link discovery will fetch (crawl/map-discovery.ts), in the order it fetches them.
 *
 * - **Fetched as linked.** A page is fetched at the URL it was linked as, query included: `ignoreQueryParameters`
 *   decides how results are deduplicated and written, not what is fetched, as a crawl fetches a link's `href`
 *   (docs/crawl.md, "The filter"). Queued by the link's query, `/blog/?page=2` became `/blog/`, already queued, and
 *   query-string pagination was never followed (12 of a blog's 60 posts). Pages are told apart by their dedup key
 *   with the query kept (www, scheme, trailing slash and index files folded, as for results).
 * - **Bounded by the page budget.** No more are held than can still be fetched (`maxPages` less those taken), so a
 *   page of 300,000 links queues a few dozen, not all of them.
 * - **Breadth-first; with `search`, matching pages first.** Their titles can reorder the results and a small
 *   `limit` wants the best ones fetched; other pages follow in the order found. With `search` each kind has its own
 *   room, so unrelated links found first do not crowd out a matching one found later.
 */
import { dedupKey } from "./url-normalize.ts";

/** One page to fetch. */
export interface QueuedPage {
  /** As linked (its query kept, no fragment). */
  url: string;
  /** As listed (crawl/map-listing.ts). */
  listed: string;
  /** Links followed from the start page to reach it (the start page: 0). */
  depth: number;
}

/** Options of a {@link DiscoveryQueue}. */
export interface DiscoveryQueueOptions {
  /** Pages that may be fetched in all, the start page included. */
  maxPages: number;
  /** `search` is set: matching pages go first. */
  searching: boolean;
  /** @default true */
  deduplicateSimilarURLs?: boolean;
}

/** The pages discovery will fetch (see the module comment). */
export class DiscoveryQueue {
  private readonly matching: QueuedPage[] = [];
  private readonly others: QueuedPage[] = [];
  private readonly seen = new Set<string>();
  private taken = 0;

  constructor(start: QueuedPage, private readonly options: DiscoveryQueueOptions) {
    this.offer(start, true);
  }

  /** Pages handed out by {@link take} (fetched, or skipped for robots.txt). */
  get fetched(): number {
    return this.taken;
  }

  /** Pages waiting. */
  get length(): number {
    return this.matching.length + this.others.length;
  }

  /** Whether the page budget allows more fetches. */
  get withinBudget(): boolean {
    return this.taken < this.options.maxPages;
  }

  /** Queues `page` unless it is queued already or there is no room; returns whether it was queued. */
  offer(page: QueuedPage, matches: boolean): boolean {
    const lane = this.options.searching && matches ? this.matching : this.others;
    if (lane.length >= this.options.maxPages - this.taken) return false;
    const key = this.keyOf(page.url);
    if (key === undefined || this.seen.has(key)) return false;
    this.seen.add(key);
    lane.push(page);
    return true;
  }

  /** The next pages to fetch, at most `n` and within the page budget: matching ones first, each kind in order. */
  take(n: number): QueuedPage[] {
    const count = Math.min(n, this.options.maxPages - this.taken, this.length);
    const batch = this.matching.splice(0, count);
    batch.push(...this.others.splice(0, count - batch.length));
    this.taken += batch.length;
    return batch;
  }

  /** The listed URLs of the pages waiting. */
  waiting(): Set<string> {
    return new Set([...this.matching, ...this.others].map((p) => p.listed));
  }

  private keyOf(url: string): string | undefined {
    try {
      return dedupKey(url, { deduplicateSimilarURLs: this.options.deduplicateSimilarURLs ?? true, ignoreQueryParameters: false });
    } catch {
      return undefined;
    }
  }
}
