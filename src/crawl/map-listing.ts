/**
 * @module crawl/map-listing
 * The URLs a map has found so far (crawl/map.ts): judged by the map's scope (host or registrable domain, start path,
 * include/exclude patterns, asset types), deduplicated by key, ordered, and counted as `search` would keep them, so
 * discovery knows when `limit` is reached.
 *
 * Order: by the best source that saw a URL (the start URL, then the sitemaps, then links found on pages), then in
 * the order that source gave it. A URL's place is the best of the sources that saw it: the start page's links are
 * listed before the sitemaps are read, and a page it links to that is the sitemap's 2nd entry kept its "discovered"
 * place behind the whole sitemap (a 60,000-URL sitemap's `/big/item-1` was missing from the 5000 results of
 * `sitemap:"include"`, though `"only"` had it). With `search`, the links it keeps, best first (crawl/search-rank.ts),
 * ties in that order.
 *
 * Bounded: discovered links are kept only while they can still be listed: without `search`, until `limit` URLs are
 * known (later ones would be cut); with `search`, the matching ones up to {@link MAP_MAX_SEARCH_DISCOVERED}, and the
 * others only when queued for fetching (their title may make them match). Before, a hub of four pages of 306k links
 * each kept 1.2M entries for a limit of 5000 (1.6 GB). Sitemap URLs are bounded by the sitemap read.
 *
 * The scope is built from the URL being mapped, and rebuilt by {@link MapListing.moveTo} when the start page lands
 * on another site: the map then covers that site, as a crawl does (api-v2.md §5.6, upstream's `originUrl`).
 */
import { createCrawlFilter, type CrawlFilter, type FilterOptions } from "./filter.ts";
import { compareRanks, searchQuery, searchRank, type SearchQuery, type SearchRank } from "./search-rank.ts";

/** One map result. */
export interface MapLink {
  url: string;
  title?: string;
  description?: string;
}

/** Where a URL was found; results are listed in this order. */
export const MAP_GROUP = { start: 0, sitemap: 1, discovered: 2 } as const;
/** One of {@link MAP_GROUP}. */
export type MapGroup = (typeof MAP_GROUP)[keyof typeof MAP_GROUP];

/** Most matching links found on pages a map keeps with `search` (as many as it keeps from sitemaps). */
export const MAP_MAX_SEARCH_DISCOVERED = 200_000;

/** The request fields that decide what a map lists. */
export interface MapScopeOptions {
  includePaths?: string[];
  excludePaths?: string[];
  regexOnFullURL?: boolean;
  crawlEntireDomain?: boolean;
  /** `false` is as `crawlEntireDomain`. @default true */
  filterByPath?: boolean;
  /** @default true */
  includeSubdomains?: boolean;
  /** @default true */
  deduplicateSimilarURLs?: boolean;
  /** @default true (unlike crawl) */
  ignoreQueryParameters?: boolean;
  /** Links to other sites are listed too (never fetched). @default false */
  allowExternalLinks?: boolean;
  search?: string;
  /** Results wanted: without `search`, no more discovered links are kept once this many URLs are. @default 5000 */
  limit?: number;
}

/** A link the listing accepts, judged by {@link MapListing.judge}, not yet kept. */
export interface JudgedLink {
  /** As listed (normalised; no query with `ignoreQueryParameters`). */
  url: string;
  key: string;
  /** As found, absolute, without its fragment (its query kept): the URL to fetch. */
  href: string;
  /** `search` keeps it (always, without `search`). */
  match: boolean;
  rank?: SearchRank;
  /** It is the listed URL itself, not one of its query variants (`/events` for `/events?date=…`). */
  itself: boolean;
}

interface Entry extends MapLink {
  group: MapGroup;
  seq: number;
  rank?: SearchRank;
  /** Its title and description are those of the page at its own URL, not of one of its query variants. */
  ownInfo?: boolean;
}

/** A fetched page's title and description. */
type PageInfo = { title?: string; description?: string };

/** Accumulates a map's results (see the module comment for their order and bounds). */
export class MapListing {
  private readonly byKey = new Map<string, Entry>();
  private readonly query: SearchQuery | undefined;
  private readonly scope: FilterOptions;
  private readonly limit: number;
  private seq = 0;
  private matches = 0;
  private discoveredMatches = 0;
  /** Entries per {@link MAP_GROUP}, by the group that listed them first. */
  private readonly perGroup = [0, 0, 0];
  /** What is listed. */
  private listed!: CrawlFilter;
  /** Whether a link, as found (before normalising), is on the mapped site and so may be fetched for more links. */
  onSite!: (raw: string) => boolean;

  constructor(startUrl: string, private readonly options: MapScopeOptions) {
    this.query = searchQuery(options.search ?? "");
    this.limit = options.limit ?? 5000;
    this.scope = {
      includePaths: options.includePaths,
      excludePaths: options.excludePaths,
      regexOnFullURL: options.regexOnFullURL,
      crawlEntireDomain: options.crawlEntireDomain || options.filterByPath === false,
      allowSubdomains: options.includeSubdomains ?? true,
      ignoreRobotsTxt: true,
      deduplicateSimilarURLs: options.deduplicateSimilarURLs ?? true,
      ignoreQueryParameters: options.ignoreQueryParameters ?? true,
    };
    this.moveTo(startUrl);
  }

  /**
   * Judges what is found from now on from `siteUrl` (its host, and its path unless `crawlEntireDomain` or
   * `filterByPath: false`). What was listed before stays listed.
   */
  moveTo(siteUrl: string): void {
    // The site's own pages are the ones discovery fetches; other sites' links are only listed (allowExternalLinks).
    const site = createCrawlFilter(siteUrl, this.scope);
    this.listed = this.options.allowExternalLinks ? createCrawlFilter(siteUrl, { ...this.scope, allowExternalLinks: true }) : site;
    // Without external links every listed link is on the site: no second check. With them, the link as found is
    // judged (as `add` judged it), not its listed form, whose query `ignoreQueryParameters` may have dropped.
    this.onSite = this.listed === site ? () => true : (raw) => site.check(raw.replace(/#.*$/s, ""), { depth: 0 }).ok;
  }

  /** Whether `search` filters the list (a query without words keeps every link, as rankBySearch does). */
  get searching(): boolean {
    return this.query !== undefined;
  }

  /** Entries that count towards `limit`: every one, or with `search` those it keeps (as known so far). */
  get matching(): number {
    return this.matches;
  }

  /** Whether no link found on a page can be listed any more: without `search`, `limit` URLs are known. */
  get full(): boolean {
    return this.query === undefined && this.matches >= this.limit;
  }

  /** Entries a group listed first: a map that learnt nothing from the site has none but the start URL. */
  countOf(group: MapGroup): number {
    return this.perGroup[group]!;
  }

  /** Whether `raw` would be listed (on the site, under the start path, matching the patterns, not an asset). */
  accepts(raw: string): boolean {
    return this.listed.check(raw.replace(/#.*$/s, ""), { depth: 0 }).ok;
  }

  /** `raw` as the listing sees it; undefined when it is not listable. */
  judge(raw: string): JudgedLink | undefined {
    const r = this.listed.check(raw.replace(/#.*$/s, ""), { depth: 0 });
    if (!r.ok) return undefined;
    const itself = r.url === r.href;
    const prev = this.byKey.get(r.key);
    if (prev) return { url: prev.url, key: r.key, href: r.href, match: this.isMatch(prev), rank: prev.rank, itself };
    const rank = this.query ? searchRank({ url: r.url }, this.query) : undefined;
    return { url: r.url, key: r.key, href: r.href, match: !rank || rank.score > 0, rank, itself };
  }

  /**
   * Keeps a link found on a page (`judged` by {@link judge}) if it can still be listed, or whatever the bounds when
   * `queued` (discovery will fetch it: its title and place are wanted). Returns whether it is listed.
   */
  keep(judged: JudgedLink, queued: boolean): boolean {
    if (this.byKey.has(judged.key)) return true;
    const room = this.query ? judged.match && this.discoveredMatches < MAP_MAX_SEARCH_DISCOVERED : this.matches < this.limit;
    if (!room && !queued) return false;
    this.insert(judged, MAP_GROUP.discovered, {});
    return true;
  }

  /**
   * Adds `raw` (the start URL, a sitemap URL, a page fetched at `raw` with its title and description); returns its
   * listed URL when it is listable. A page's title fills a listed URL's missing one, and the page fetched at the
   * listed URL itself replaces one a query variant gave: `/events` was listed as "Events on 2026-11-01", the title
   * of `/events?date=2026-11-01`, fetched first.
   */
  add(raw: string, group: MapGroup, info: PageInfo = {}): string | undefined {
    const judged = this.judge(raw);
    if (!judged) return undefined;
    const prev = this.byKey.get(judged.key);
    if (!prev) return this.insert(judged, group, info).url;
    if (group < prev.group) {
      // The best source decides the place: the sitemap's order for a page the start page linked to first.
      if (prev.group === MAP_GROUP.discovered && this.isMatch(prev)) this.discoveredMatches--;
      prev.group = group;
      prev.seq = this.seq++;
    }
    if (!info.title && !info.description) return prev.url;
    const replace = judged.itself && !prev.ownInfo;
    if (!replace && (prev.title || !info.title) && (prev.description || !info.description)) return prev.url;
    const wasMatch = this.isMatch(prev);
    if (replace) {
      prev.title = info.title ?? prev.title;
      prev.description = info.description ?? prev.description;
      prev.ownInfo = true;
    } else {
      prev.title ??= info.title;
      prev.description ??= info.description;
    }
    // A title or description can make a link relevant, and a variant's that is replaced may have made it so.
    if (this.query) prev.rank = searchRank(prev, this.query);
    const isMatch = this.isMatch(prev);
    if (wasMatch !== isMatch) {
      const step = isMatch ? 1 : -1;
      this.matches += step;
      if (prev.group === MAP_GROUP.discovered) this.discoveredMatches += step;
    }
    return prev.url;
  }

  /** The listed URLs of the best `n` matches known (without `search`: the first `n`), best first. */
  best(n: number): string[] {
    const top: Entry[] = [];
    for (const e of this.byKey.values()) {
      if (!this.isMatch(e)) continue;
      if (top.length === n && this.compare(e, top[n - 1]!) >= 0) continue;
      let i = Math.min(top.length, n - 1);
      while (i > 0 && this.compare(e, top[i - 1]!) < 0) i--;
      top.splice(i, 0, e);
      if (top.length > n) top.pop();
    }
    return top.map((e) => e.url);
  }

  /** The results, in order (see the module comment); with `search`, only those it keeps. */
  links(): MapLink[] {
    const entries = [...this.byKey.values()].filter((e) => this.isMatch(e)).sort((a, b) => this.compare(a, b));
    return entries.map(({ url, title, description }) => ({ url, ...(title ? { title } : {}), ...(description ? { description } : {}) }));
  }

  private insert(judged: JudgedLink, group: MapGroup, info: PageInfo): Entry {
    const entry: Entry = { url: judged.url, ...info, group, seq: this.seq++ };
    if ((info.title || info.description) && judged.itself) entry.ownInfo = true;
    if (this.query) entry.rank = info.title || info.description ? searchRank(entry, this.query) : (judged.rank ?? searchRank(entry, this.query));
    if (this.isMatch(entry)) {
      this.matches++;
      if (group === MAP_GROUP.discovered) this.discoveredMatches++;
    }
    this.perGroup[group]!++;
    this.byKey.set(judged.key, entry);
    return entry;
  }

  private isMatch(e: { rank?: SearchRank }): boolean {
    return !e.rank || e.rank.score > 0;
  }

  /** Negative when `a` is listed before `b`. */
  private compare(a: Entry, b: Entry): number {
    return (a.rank && b.rank ? compareRanks(a.rank, b.rank) : 0) || a.group - b.group || a.seq - b.seq;
  }
}
