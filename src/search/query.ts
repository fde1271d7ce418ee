/**
 * @module search/query
 * How a `POST /v2/search` request becomes SearXNG queries: safe search levels, the `site:` terms of
 * `includeDomains`/`excludeDomains` and the domain test that backs them up, the queries of each `categories` entry,
 * and the image size of a hit. Pure functions, apart from the search service that runs them (search/service.ts).
 */
import type { SearchCategory } from "../api/search.ts";
import type { BackendHit, BackendQuery } from "./searxng.ts";

/** SearXNG's `safesearch` level of the request's `safe` (0 off, 1 moderate, 2 strict); undefined: the instance's. */
export function safeSearch(safe: boolean | string | undefined): BackendQuery["safeSearch"] {
  if (safe === undefined) return undefined;
  if (safe === true || safe === "moderate" || safe === "active") return 1;
  if (safe === "strict") return 2;
  return 0;
}

/** The lower-case host of `url`, or "" when it is not one. */
export const hostOf = (url: string) => {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return "";
  }
};
/**
 * A domain as the caller wrote it, reduced to a host name: `example.com`, `*.example.com`, `www.example.com` and
 * `https://www.example.com/path` all name example.com (given as a URL, it matched nothing).
 */
export function domainOf(domain: string): string {
  let d = domain.trim().toLowerCase();
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(d)) d = hostOf(d);
  // Cut at the first path, query or fragment character by a search: `/[/?#].*$/` retried from each of them when a
  // line break followed (quadratic: 40k slashes took 0.5 s, 250 KB blocked the server 20 s).
  const rest = d.search(/[/?#]/);
  if (rest !== -1) d = d.slice(0, rest);
  return d.replace(/:\d+$/, "").replace(/^\*?\./, "").replace(/^www\./, "").replace(/\.$/, "");
}
/** Whether `host` is `d`, a domain already reduced by {@link domainOf}, or under it. */
export const inReducedDomain = (host: string, d: string) => d !== "" && (host === d || host.endsWith(`.${d}`));
/** Whether `host` is `domain` or under it (the caller's spelling of the domain, see {@link domainOf}). */
export const inDomain = (host: string, domain: string) => inReducedDomain(host, domainOf(domain));

/**
 * The query's `site:` terms for `includeDomains` / `excludeDomains`, as search engines read them: without them the
 * engines answered the whole web and the domain filter below, which keeps only hits in the domains, left little or
 * nothing (often "No search results found"). The filter stays: not every engine honours `site:`.
 */
export function siteTerms(include: readonly string[], exclude: readonly string[]): string {
  const inc = [...new Set(include.map(domainOf).filter(Boolean))];
  const exc = [...new Set(exclude.map(domainOf).filter(Boolean))];
  const parts: string[] = [];
  if (inc.length === 1) parts.push(`site:${inc[0]}`);
  else if (inc.length > 1) parts.push(`(${inc.map((d) => `site:${d}`).join(" OR ")})`);
  for (const d of exc) parts.push(`-site:${d}`);
  return parts.length > 0 ? ` ${parts.join(" ")}` : "";
}
const isPdf = (url: string) => /\.pdf$/i.test(new URL(url).pathname);

/**
 * How each category is searched: a query suffix and a SearXNG category, and which hits belong to it. Each
 * requested category is its own query; their results are interleaved, labelled with their category.
 */
export const CATEGORY_QUERIES: Record<SearchCategory, { suffix: string; category: string; keep: (hit: BackendHit) => boolean }> = {
  github: { suffix: " site:github.com", category: "general", keep: (hit) => inDomain(hostOf(hit.url), "github.com") },
  pdf: { suffix: " filetype:pdf", category: "general", keep: (hit) => isPdf(hit.url) },
  research: { suffix: "", category: "science", keep: () => true },
  developer: { suffix: "", category: "it", keep: () => true },
  // [LATEST] upstream's government index (US federal, state and local law and regulation): here a web query kept to
  // US government hosts, .gov and .mil, and the states' and localities' .us names (ca.gov, courts.state.ny.us).
  gov: { suffix: " site:.gov", category: "general", keep: (hit) => /\.(gov|mil)$|\.[a-z]{2}\.us$/.test(hostOf(hit.url)) },
};

/** The image size from SearXNG's `resolution` ("1920x1080" or "1920 x 1080"). */
export function imageSize(resolution: string | undefined): { imageWidth?: number; imageHeight?: number } {
  const m = /(\d+)\s*[x×]\s*(\d+)/i.exec(resolution ?? "");
  return m ? { imageWidth: Number(m[1]), imageHeight: Number(m[2]) } : {};
}
