/**
 * @module crawl/base-domain
 * Whether a crawl's or map's start URL is a site's root, and the root to suggest instead: the source of upstream's
 * "Only N result(s) found…" hints (api-v2.md §3.2), which tell a user whose start URL sat below the root (a path,
 * or a subdomain) why so little came back.
 */
import { registrableDomain } from "./filter.ts";

/**
 * The root to suggest for `url`: its registrable domain (`example.com` for `https://blog.example.com/a`), as
 * upstream; for a host without one (an IP, an intranet name) its origin with `/`, so self-hosted sites get a
 * hint too. Undefined for a URL that does not parse.
 */
export function baseDomainOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return registrableDomain(u.hostname) ?? `${u.origin}/`;
  } catch {
    return undefined;
  }
}

/** Whether `url` is a site's root: no path, and no subdomain but `www.` under its registrable domain. */
export function isBaseDomain(url: string): boolean {
  try {
    const u = new URL(url);
    if (u.pathname !== "/" && u.pathname.trim() !== "") return false;
    const domain = registrableDomain(u.hostname);
    const host = u.hostname.startsWith("www.") ? u.hostname.slice(4) : u.hostname;
    return domain === null || host === domain;
  } catch {
    return false;
  }
}

/**
 * Upstream's hint when a finished crawl found at most one page, started below the site's root, without
 * `crawlEntireDomain` (api-v2.md §3.2): the usual reason is that links outside the start path were not followed.
 * `results`: the crawl's documents (its pages that did not fail; `completed` counts failed ones too, and a crawl
 * of one result and five failures had no hint).
 */
export function fewCrawlResultsWarning(job: { url: string | null; options: { crawlerOptions?: Record<string, unknown> } }, results: number): string | undefined {
  if (!job.url || results > 1 || job.options.crawlerOptions?.crawlEntireDomain === true || isBaseDomain(job.url)) return undefined;
  const base = baseDomainOf(job.url);
  return base ? `Only ${results} result(s) found. For broader coverage, try crawling with crawlEntireDomain=true or start from a higher-level path like ${base}` : undefined;
}

/** Upstream's hint for a map of at most one URL from below a site's root (not when the caller asked for one). */
export function fewMapResultsWarning(url: string, found: number, limit: number | undefined): string | undefined {
  if (found > 1 || limit === 1 || isBaseDomain(url)) return undefined;
  const base = baseDomainOf(url);
  return base ? `Only ${found} result(s) found. For broader coverage, try mapping the base domain: ${base}` : undefined;
}
