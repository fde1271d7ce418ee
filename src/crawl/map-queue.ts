/**
 * @module crawl/map-queue
 * The pages a map's link discovery will fetch (crawl/map-discovery.ts), in the order it fetches them.
 *
 * - **One page per listed URL first.** The main lanes hold one page per URL the map lists (with
 *   `ignoreQueryParameters`, the default, its query left out), fetched at the first URL it was linked as, or at the
 *   URL itself when a link to that comes before the page is fetched. With it, tracking parameters (`?ref=`, `?utm_*`,
 *   …) are dropped before keying and fetching (crawl/map-query.ts). Keyed by the whole query, every `?ref=nav`, share
 *   link, `?date=` and facet of a page was a page of its own and took the budget: 105 of a product tree's products
 *   where 195 had been found, 25 of a site's docs for 208 behind a 30-day calendar widget, 75 of a shop's products
 *   for 500 behind its facet links.
 * - **Query variants with what is left.** A page's other queries (`/blog/?page=2`, `/shop?color=red`) wait in
 *   lanes of their own, fetched only when the main lanes are empty, so they use the budget the site's pages leave:
 *   the page itself without its query first (it is what is listed), then pagination (crawl/map-query.ts
 *   `MAP_PAGING_PARAMS`), which lists what the first page does not (a blog's older posts: before queries were
 *   followed, `?page=2` was never fetched and 5 of 60 posts were found), in the order found, then the others, at
 *   most {@link MAP_MAX_VARIANTS_PER_PAGE} a page. With `ignoreQueryParameters: false` every query is a page the
 *   map lists (keyed as the listing keys it, tracking parameters kept), so each is a main-lane page.
 * - **Bounded by the page budget, robots.txt first.** A lane holds no more pages than can still be fetched
 *   (`maxPages` less those taken), so a page of 300,000 links queues a few dozen. Robots.txt is asked before a page
 *   is queued (`robots`), so a disallowed page never holds a place; a page whose robots.txt is not known yet (a
 *   subdomain's) is asked again before it is fetched, and {@link DiscoveryQueue.giveBack} gives its fetch back when
 *   it is disallowed. Such pages may be queued on top of the others (as many again at most), and pages refused for
 *   want of room are kept (as many as `maxPages`) and offered again then: six pages of a subdomain that disallows
 *   everything, linked first, took a budget of three and the site's own pages were never offered again.
 * - **Breadth-first; with `search`, matching pages first.** Their titles can reorder the results and a small
 *   `limit` wants the best ones fetched; other pages follow in the order found. With `search` each kind has its own
 *   room, so unrelated links found first do not crowd out a matching one found later.
 */
import { queryVariant } from "./map-query.ts";
import { dedupKey } from "./url-normalize.ts";

/** Variants of one page, other than the page itself and pagination, that may be fetched. */
export const MAP_MAX_VARIANTS_PER_PAGE = 5;

/** One page to fetch. */
export interface QueuedPage {
  /** As linked, without fragment and tracking parameters. */
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
  /** As the listing's keys are made (the start page's is made here). @default true */
  deduplicateSimilarURLs?: boolean;
  /** Pages are listed without their query, so its variants are one page. @default true */
  ignoreQueryParameters?: boolean;
  /** Robots.txt's verdict on a URL as known now (undefined: not known yet). @default everything allowed */
  robots?: (url: string) => boolean | undefined;
}

/** A page waiting in a lane. */
interface Waiting extends QueuedPage {
  /** Robots.txt allowed it when queued (else its verdict was not known yet). */
  robotsKnown: boolean;
  queryKey: string;
  /** Its query is pagination (crawl/map-query.ts). */
  paging: boolean;
  /** The listed page it is (main lanes) or a variant of. */
  page: PageState;
  variant: boolean;
}

/** What is queued of one listed page: its main-lane entry while it waits, the queries queued or fetched. */
interface PageState {
  waiting?: Waiting;
  queries: Set<string>;
  /** Variants other than the page itself and pagination queued (at most {@link MAP_MAX_VARIANTS_PER_PAGE}). */
  others: number;
}

/** Pages in the order they will be fetched; pages of unknown robots.txt verdict counted apart. */
class Lane {
  readonly pages: Waiting[] = [];
  unknown = 0;

  get length(): number {
    return this.pages.length;
  }

  get known(): number {
    return this.pages.length - this.unknown;
  }

  push(page: Waiting): void {
    this.pages.push(page);
    if (!page.robotsKnown) this.unknown++;
  }

  shift(): Waiting | undefined {
    const page = this.pages.shift();
    if (page && !page.robotsKnown) this.unknown--;
    return page;
  }

  pop(): Waiting | undefined {
    const page = this.pages.pop();
    if (page && !page.robotsKnown) this.unknown--;
    return page;
  }
}

/**
 * Whether lanes holding `known` pages robots.txt allowed and `all` in all take one more: pages robots.txt allowed
 * up to `room`, those whose verdict is not known yet as many again.
 */
function fits(known: number, all: number, room: number): boolean {
  return known < room && all < 2 * room;
}

/** The pages discovery will fetch (see the module comment). */
export class DiscoveryQueue {
  private readonly matching = new Lane();
  private readonly others = new Lane();
  /** Variants: the page itself (no query), then pagination, then other queries. */
  private readonly bare = new Lane();
  private readonly paging = new Lane();
  private readonly variants = new Lane();
  private readonly lanes = [this.matching, this.others, this.bare, this.paging, this.variants];
  private readonly pages = new Map<string, PageState>();
  /** Pages refused for want of room, offered again by {@link giveBack} (at most `maxPages`, each once). */
  private readonly deferred: { page: QueuedPage; matches: boolean; key: string }[] = [];
  private readonly deferredIds = new Set<string>();
  private readonly ignoreQuery: boolean;
  private taken = 0;

  constructor(start: QueuedPage, private readonly options: DiscoveryQueueOptions) {
    this.ignoreQuery = options.ignoreQueryParameters ?? true;
    const key = dedupKey(start.url, { deduplicateSimilarURLs: options.deduplicateSimilarURLs ?? true, ignoreQueryParameters: this.ignoreQuery });
    this.offer(start, true, key);
    // The URL asked for is fetched as given, tracking parameters included.
    const first = this.lanes.find((l) => l.length > 0)?.pages[0];
    if (first) first.url = start.url;
  }

  /** Pages handed out by {@link take} and not given back. */
  get fetched(): number {
    return this.taken;
  }

  /** Pages waiting. */
  get length(): number {
    return this.lanes.reduce((n, l) => n + l.length, 0);
  }

  /** Pages waiting that the budget can still fetch. */
  get fetchable(): number {
    return Math.min(this.length, this.room);
  }

  /** Whether the page budget allows more fetches. */
  get withinBudget(): boolean {
    return this.taken < this.options.maxPages;
  }

  private get room(): number {
    return Math.max(0, this.options.maxPages - this.taken);
  }

  /**
   * Queues `page` (`key`: its listed URL's dedup key, crawl/map-listing.ts) unless robots.txt disallows it, it is
   * queued already, or there is no room; returns whether it was queued (or, when it is a waiting page's own URL, the
   * page moved to it).
   */
  offer(page: QueuedPage, matches: boolean, key: string): boolean {
    const main = this.options.searching && matches ? this.matching : this.others;
    const room = this.room;
    const v = queryVariant(page.url, key, this.ignoreQuery);
    // Without `ignoreQueryParameters` a page is what the listing keys (its query as written), so each is fetched.
    const mainKey = this.ignoreQuery ? v.pathKey : key;
    const state = this.pages.get(mainKey);
    // Robots.txt is asked last: a page of 300,000 links mostly offers pages there is no room for.
    const refused = state ? this.variantRefusal(state, v.queryKey, v.paging, room) : fits(main.known, main.length, room) ? undefined : "full";
    if (refused === "full") this.defer({ page, matches, key }, `${mainKey}?${v.queryKey}`);
    if (refused) return false;
    const verdict = this.options.robots ? this.options.robots(v.url) : true;
    if (verdict === false) return false;
    const fields = { ...page, url: v.url, robotsKnown: verdict === true, queryKey: v.queryKey, paging: v.paging };
    if (state) return this.queueVariant(state, { ...fields, page: state, variant: true }, room);
    const fresh: PageState = { queries: new Set([v.queryKey]), others: 0 };
    fresh.waiting = { ...fields, page: fresh, variant: false };
    this.pages.set(mainKey, fresh);
    main.push(fresh.waiting);
    return true;
  }

  /** The next pages to fetch, at most `n` and within the page budget: main lanes first, each in order. */
  take(n: number): QueuedPage[] {
    const batch: QueuedPage[] = [];
    while (batch.length < n && this.taken < this.options.maxPages) {
      const next = this.lanes.find((l) => l.length > 0)?.shift();
      if (!next) break;
      if (!next.variant) next.page.waiting = undefined;
      this.taken++;
      batch.push({ url: next.url, listed: next.listed, depth: next.depth });
    }
    return batch;
  }

  /**
   * Gives back the budget slot of a page {@link take} handed out and that is not fetched (robots.txt disallows it),
   * and offers again, with that room, the pages {@link offer} refused for want of room (kept by {@link defer}). A
   * variant displaced from a full lane (the page itself or pagination taking its place) is dropped, not kept: the
   * lanes stay full, and a page given back restores only the slot its own take used.
   */
  giveBack(): void {
    if (this.taken > 0) this.taken--;
    const again = this.deferred.splice(0);
    this.deferredIds.clear();
    for (const { page, matches, key } of again) this.offer(page, matches, key);
  }

  /** The listed URLs of the pages waiting. */
  waiting(): Set<string> {
    return new Set(this.lanes.flatMap((l) => l.pages.map((p) => p.listed)));
  }

  private variantCount(): number {
    return this.bare.length + this.paging.length + this.variants.length;
  }

  /** The lane of a variant: the page itself, pagination, or another query. */
  private laneOf(queryKey: string, paging: boolean): Lane {
    return queryKey === "" ? this.bare : paging ? this.paging : this.variants;
  }

  /** Keeps a page refused for want of room for {@link giveBack}. */
  private defer(offer: { page: QueuedPage; matches: boolean; key: string }, id: string): void {
    if (this.deferred.length >= this.options.maxPages || this.deferredIds.has(id)) return;
    this.deferredIds.add(id);
    this.deferred.push(offer);
  }

  /**
   * Why a variant of `state`'s page may not be queued (or take a waiting page's place: its own URL): `seen` already,
   * `capped` ({@link MAP_MAX_VARIANTS_PER_PAGE}), or the lanes are `full`; undefined when it may.
   */
  private variantRefusal(state: PageState, queryKey: string, paging: boolean, room: number): "seen" | "capped" | "full" | undefined {
    if (state.queries.has(queryKey)) return "seen";
    if (queryKey === "" && state.waiting) return undefined;
    const lane = this.laneOf(queryKey, paging);
    if (lane === this.variants && state.others >= MAP_MAX_VARIANTS_PER_PAGE) return "capped";
    // Full: the page itself and pagination take the place of the last other query.
    if (fits(this.bare.known + this.paging.known + this.variants.known, this.variantCount(), room)) return undefined;
    return lane !== this.variants && this.variants.length > 0 ? undefined : "full";
  }

  /** Queues a variant of a page already queued or fetched ({@link variantRefusal} has none; see the module comment for the order). */
  private queueVariant(state: PageState, variant: Waiting, room: number): boolean {
    const waiting = state.waiting;
    if (variant.queryKey === "" && waiting) {
      // The page itself, linked before it is fetched: fetched there, so that its title is the listed page's own;
      // the query it was first linked with becomes a variant.
      const first: Waiting = { ...waiting, variant: true };
      const lane = this.options.searching && this.matching.pages.includes(waiting) ? this.matching : this.others;
      if (waiting.robotsKnown !== variant.robotsKnown) lane.unknown += variant.robotsKnown ? -1 : 1;
      Object.assign(waiting, { url: variant.url, queryKey: "", paging: false, robotsKnown: variant.robotsKnown });
      state.queries.add("");
      state.queries.delete(first.queryKey);
      if (!this.variantRefusal(state, first.queryKey, first.paging, room)) this.queueVariant(state, first, room);
      return true;
    }
    const lane = this.laneOf(variant.queryKey, variant.paging);
    if (!fits(this.bare.known + this.paging.known + this.variants.known, this.variantCount(), room)) {
      const evicted = this.variants.pop()!;
      evicted.page.queries.delete(evicted.queryKey);
      evicted.page.others--;
    }
    state.queries.add(variant.queryKey);
    if (lane === this.variants) state.others++;
    lane.push(variant);
    return true;
  }
}
