/**
 * @module crawl/map-query
 * A link's query string as a map's link discovery sees it (crawl/map-queue.ts): which page it is, which variant of
 * that page, and at which URL to fetch it.
 *
 * - **Tracking parameters are no part of a page** ({@link MAP_TRACKING_PARAMS}, any `utm_*`) when results are listed
 *   without their query (`ignoreQueryParameters`, the default): they are dropped from the URL fetched and from its
 *   identity. A shop's header, footer and share links carry `?ref=nav`, `?utm_source=share`, …, and each was fetched
 *   as a page of its own: a 10×10×5 product tree gave 105 of its products for 195 before such links were followed.
 *   With `ignoreQueryParameters: false` every query is a result of its own (as upstream), so nothing is dropped:
 *   `/docs?ref=v1` was fetched as `/docs`, listed without a title beside an invented `/docs` holding its title.
 * - **A page's variants** are its URL with another query (`/events?date=2026-11-01`, `/shop?color=red`,
 *   `/blog/?page=2`). Their key has the query's parameters sorted (`?b=2&a=1` is `?a=1&b=2`) and percent-encoding
 *   normalised as crawl/url-normalize.ts `dedupKey` does.
 * - **Pagination** ({@link MAP_PAGING_PARAMS}: a query of such parameters only) is the variant worth fetching
 *   first: its pages list what the first page does not (a blog's older posts), where a date or a facet mostly
 *   lists again what is known.
 */
import { normalizePercentEncoding } from "./url-normalize.ts";

/** Query parameters that track a visit and never change the page (compared lower-cased; any `utm_*` too). */
export const MAP_TRACKING_PARAMS: ReadonlySet<string> = new Set(["ref", "ref_src", "fbclid", "gclid", "mc_cid", "mc_eid", "_ga", "igshid", "si"]);
/** Query parameters that page through a listing: a query of these only is pagination. */
export const MAP_PAGING_PARAMS: ReadonlySet<string> = new Set(["page", "p", "pg", "offset", "start", "paged", "cursor"]);

/** One link as discovery keys and fetches it ({@link queryVariant}). */
export interface QueryVariant {
  /** The URL to fetch: the link without tracking parameters. */
  url: string;
  /** The page's identity without its query. */
  pathKey: string;
  /** The query's identity: its parameters sorted, `""` for none. */
  queryKey: string;
  /** Whether every parameter is a paging one ({@link MAP_PAGING_PARAMS}); false for no query. */
  paging: boolean;
}

/** Whether `name` is a tracking parameter ({@link MAP_TRACKING_PARAMS} or `utm_*`). */
export function isTrackingParam(name: string): boolean {
  const n = name.toLowerCase();
  return n.startsWith("utm_") || MAP_TRACKING_PARAMS.has(n);
}

/**
 * `href` (absolute, without fragment) as discovery sees it, given `key`, its dedup key (crawl/url-normalize.ts
 * `dedupKey`, with or without the query: the part before the first `?` is the page's); tracking parameters are kept
 * when `dropTracking` is false. String work only: a page may have 300,000 links, and three URL parses each doubled
 * the time to judge them.
 *
 * @example queryVariant("https://a.com/x/?utm_source=t&b=2&a=1", "a.com/x").url // "https://a.com/x/?b=2&a=1"
 * @example queryVariant("https://a.com/x/?utm_source=t&b=2&a=1", "a.com/x").queryKey // "a=1&b=2"
 */
export function queryVariant(href: string, key: string, dropTracking = true): QueryVariant {
  const q = key.indexOf("?");
  const pathKey = q < 0 ? key : key.slice(0, q);
  const start = href.indexOf("?");
  if (start < 0) return { url: href, pathKey, queryKey: "", paging: false };
  const kept: string[] = [];
  let dropped = false;
  let paging = true;
  // Split by hand rather than with URLSearchParams, which would re-encode the parameters kept.
  for (const part of href.slice(start + 1).split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const name = decodeName(eq < 0 ? part : part.slice(0, eq));
    if (dropTracking && isTrackingParam(name)) {
      dropped = true;
      continue;
    }
    if (!MAP_PAGING_PARAMS.has(name.toLowerCase())) paging = false;
    kept.push(part);
  }
  const url = dropped || kept.length === 0 ? href.slice(0, kept.length === 0 ? start : start + 1) + kept.join("&") : href;
  const queryKey = kept.map(normalizePercentEncoding).sort().join("&");
  return { url, pathKey, queryKey, paging: paging && kept.length > 0 };
}

/** A parameter's name decoded (`utm%5Fsource` is `utm_source`), as written when it does not decode. */
function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return raw;
  }
}
