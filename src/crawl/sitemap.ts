/**
 * @module crawl/sitemap
 * Sitemaps (api-v2.md §5.2): which to read, here; parsing and reading, re-exported from their modules:
 *
 * - {@link sitemapCandidates}: `<url>/sitemap.xml` (or the URL itself when it ends in `.xml`), every robots.txt
 *   `Sitemap:` line, the parent domain's `/sitemap.xml` when the start URL is on a subdomain (its URLs kept only
 *   when their host ends with the subdomain), and `<origin>/sitemap.xml` as a last resort, read only when
 *   nothing else produced a URL.
 * - `parseSitemap` (crawl/sitemap-parse.ts): `<urlset>`, `<sitemapindex>` and plain-text sitemaps.
 * - `readSitemaps` (crawl/sitemap-read.ts): breadth-first, a few files at a time, within bounds; each file fetched
 *   and decoded by crawl/sitemap-fetch.ts and crawl/sitemap-body.ts.
 */
import { getDomain } from "tldts";

export { MAX_SITEMAP_BYTES } from "./sitemap-body.ts";
export { parseSitemap, type ParsedSitemap } from "./sitemap-parse.ts";
export {
  DEFAULT_MAX_SITEMAP_URLS,
  DEFAULT_MAX_SITEMAP_URLS_SCANNED,
  DEFAULT_SITEMAP_TIMEOUT_MS,
  MAX_SITEMAPS,
  readSitemaps,
  SITEMAP_CONCURRENCY,
  type ReadSitemapsOptions,
  type SitemapFailure,
  type SitemapResult,
} from "./sitemap-read.ts";

/** One sitemap to read; `hostSuffix` keeps only URLs whose host ends with it (parent-domain sitemaps). */
export interface SitemapCandidate {
  url: string;
  hostSuffix?: string;
  /** Read only when no earlier candidate produced a URL. */
  lastResort?: boolean;
}

/** The candidate sitemaps for a crawl or map of `startUrl`, in upstream's order. */
export function sitemapCandidates(startUrl: string, robotsSitemaps: readonly string[] = []): SitemapCandidate[] {
  const start = new URL(startUrl);
  start.hash = "";
  start.search = "";
  const out: SitemapCandidate[] = [];
  const seen = new Set<string>();
  const push = (c: SitemapCandidate) => {
    if (!seen.has(c.url)) {
      seen.add(c.url);
      out.push(c);
    }
  };
  const path = start.pathname;
  push({ url: /\.xml$/i.test(path) ? start.href : `${start.origin}${path.endsWith("/") ? path : `${path}/`}sitemap.xml` });
  for (const s of robotsSitemaps) push({ url: s });
  const host = start.hostname.replace(/^www\./, "");
  const parent = getDomain(start.hostname, { allowPrivateDomains: true });
  if (parent && parent !== host) push({ url: `${start.protocol}//${parent}${start.port ? `:${start.port}` : ""}/sitemap.xml`, hostSuffix: host });
  push({ url: `${start.origin}/sitemap.xml`, lastResort: true });
  return out;
}

