/**
 * @module crawl/map-listing
 * The URLs a map has found so far (crawl/map.ts): judged by the map's scope (host or registrable domain, start path,
 * include/exclude patterns, asset types), deduplicated by key, kept in discovery order per group (start URL, sitemap,
 * discovered links), and counted as `search` would keep them, so discovery knows when `limit` is reached.
 *
 * The scope is built from the URL being mapped, and rebuilt by {@link MapListing.moveTo} when the start page lands
 * on another site: the map then covers that site, as a crawl does (api-v2.md §5.6, upstream's `originUrl`).
 */
import { createCrawlFilter, type CrawlFilter, type FilterOptions } from "./filter.ts";
import { relevance, words, type RankableLink } from "./search-rank.ts";

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
}

/** Whether rankBySearch keeps a link for `search`; undefined when it keeps every link (no `search`, or no words). */
function searchMatcher(search: string | undefined): ((link: RankableLink) => boolean) | undefined {
  const q = [...new Set(words(search ?? ""))];
  if (q.length === 0) return undefined;
  const phrase = q.join(" ");
  return (link) => relevance(link, q, phrase) > 0;
}

/** Accumulates a map's results in discovery order, one entry per dedup key, counting those `search` would keep. */
export class MapListing {
  private readonly byKey = new Map<string, MapLink & { group: MapGroup; seq: number; match: boolean }>();
  private readonly matcher: ((link: RankableLink) => boolean) | undefined;
  private readonly scope: FilterOptions;
  private seq = 0;
  private matches = 0;
  /** Entries per {@link MAP_GROUP}, by the group that listed them first. */
  private readonly perGroup = [0, 0, 0];
  /** What is listed. */
  private listed!: CrawlFilter;
  /** Whether a link, as found (before normalising), is on the mapped site and so may be fetched for more links. */
  onSite!: (raw: string) => boolean;

  constructor(startUrl: string, private readonly options: MapScopeOptions) {
    this.matcher = searchMatcher(options.search);
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
    return this.matcher !== undefined;
  }

  /** Entries that count towards `limit`: every one, or with `search` those it keeps (as known so far). */
  get matching(): number {
    return this.matches;
  }

  /** Entries a group listed first: a map that learnt nothing from the site has none but the start URL. */
  countOf(group: MapGroup): number {
    return this.perGroup[group]!;
  }

  /** Whether `raw` would be listed (on the site, under the start path, matching the patterns, not an asset). */
  accepts(raw: string): boolean {
    return this.listed.check(raw.replace(/#.*$/s, ""), { depth: 0 }).ok;
  }

  /** Adds `raw`; returns its normalised URL when it is listable. */
  add(raw: string, group: MapGroup, info: { title?: string; description?: string } = {}): string | undefined {
    const r = this.listed.check(raw.replace(/#.*$/s, ""), { depth: 0 });
    if (!r.ok) return undefined;
    const prev = this.byKey.get(r.key);
    if (prev) {
      prev.title ??= info.title;
      prev.description ??= info.description;
      // A title or description can make a link relevant; relevance only grows, so a match stays one.
      if (!prev.match && (info.title || info.description) && this.matcher?.(prev)) {
        prev.match = true;
        this.matches++;
      }
      return prev.url;
    }
    const entry = { url: r.url, ...info, group, seq: this.seq++, match: false };
    entry.match = this.matcher ? this.matcher(entry) : true;
    if (entry.match) this.matches++;
    this.perGroup[group]!++;
    this.byKey.set(r.key, entry);
    return r.url;
  }

  /** The results: by group, then in discovery order. */
  links(): MapLink[] {
    return [...this.byKey.values()]
      .sort((a, b) => a.group - b.group || a.seq - b.seq)
      .map(({ url, title, description }) => ({ url, ...(title ? { title } : {}), ...(description ? { description } : {}) }));
  }
}
