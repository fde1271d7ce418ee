/**
 * @module crawl/filter
 * Which discovered URLs a crawl may enqueue: upstream's `filterURL` followed by `filterLinks`
 * (api-v2.md §5.4–5.5), as one synchronous check per URL that says why a URL was refused.
 *
 * Order of checks (first failing one is reported):
 * 1. `DEPTH_LIMIT` — the source's discovery depth has reached `maxDiscoveryDepth` (upstream's `filterLinks`
 *    returns nothing then), or the path has more than {@link MAX_PATH_DEPTH} segments (v2 fixes `maxDepth`).
 * 2. `URL_PARSE_ERROR` — not resolvable, or not http(s) (`mailto:` is `SOCIAL_MEDIA`, as upstream).
 * 3. Internal links (same host once `www.` is stripped): `SECTION_LINK` if the raw link has a `#`, unless the
 *    fragment is longer than one character and contains `/` (SPA routes).
 *    External links: `SOCIAL_MEDIA` (denylist by host), `EXCLUDE_PATTERN` (an exclude written as a domain,
 *    e.g. `other.com/blog`), then allowed by `allowExternalLinks` unless a bare external homepage, or by
 *    `allowSubdomains` when the PSL registrable domain matches; otherwise `EXTERNAL_LINK`.
 * 4. `EXCLUDE_PATTERN` / `INCLUDE_PATTERN` — regexes on the path (the full URL with `regexOnFullURL`).
 * 5. `BACKWARD_CRAWLING` — without `crawlEntireDomain`, the path must start with the start URL's path.
 * 6. `ROBOTS_TXT` — unless `ignoreRobotsTxt`; an oracle that knows nothing about the URL's origin allows it.
 * 7. `FILE_TYPE` — the asset-extension denylist (PDF and DOCX are crawled).
 *
 * `limit` and deduplication belong to the caller's store: an accepted URL comes with its normalised form
 * and its {@link dedupKey}.
 */
import { getDomain } from "tldts";
import type { CrawlerOptions } from "../api/crawl.ts";
import { robotsAgents, type RobotsOracle } from "./robots.ts";
import { dedupKey, normalizeUrl } from "./url-normalize.ts";
import { compilePathPattern, type PathPattern } from "./path-pattern.ts";

/** Why a URL was refused (upstream's codes). */
export type CrawlDenialReason =
  | "DEPTH_LIMIT"
  | "EXCLUDE_PATTERN"
  | "INCLUDE_PATTERN"
  | "ROBOTS_TXT"
  | "FILE_TYPE"
  | "URL_PARSE_ERROR"
  | "BACKWARD_CRAWLING"
  | "SOCIAL_MEDIA"
  | "EXTERNAL_LINK"
  | "SECTION_LINK";

/**
 * The outcome for one URL. `url` is normalised (no fragment; no query with `ignoreQueryParameters`); `href` is the
 * resolved URL as robots.txt rules are matched against it.
 */
export type FilterResult = { ok: true; url: string; key: string; href: string } | { ok: false; reason: CrawlDenialReason; url: string };

/** An accepted URL (see {@link FilterResult}). */
export interface AcceptedUrl {
  url: string;
  key: string;
  href: string;
}

/** Where a URL was found. */
export interface FilterContext {
  /** Discovery depth of the page (or sitemap: 0) the URL was found on; the URL itself gets `depth + 1`. */
  depth: number;
  /** Base for relative links (the page's final URL). @default the start URL */
  baseUrl?: string;
  /**
   * The URL is where a crawled page redirected to, judged as upstream's `filterURL` judges one: section links, the
   * external-link rules, `excludePaths` and robots.txt only. Not `includePaths`, the start path, depth or file type:
   * a page moved out of the crawled section (`/docs/moved` → `/guides/moved`, a shortlink `/?p=5` → `/2024/05/x`)
   * is the page that was linked, and it was lost.
   */
  redirect?: boolean;
}

/** The crawler options the filter reads (a full {@link CrawlerOptions} fits). */
export type FilterOptions = Partial<
  Pick<
    CrawlerOptions,
    | "includePaths"
    | "excludePaths"
    | "maxDiscoveryDepth"
    | "crawlEntireDomain"
    | "allowExternalLinks"
    | "allowSubdomains"
    | "ignoreRobotsTxt"
    | "robotsUserAgent"
    | "deduplicateSimilarURLs"
    | "ignoreQueryParameters"
    | "regexOnFullURL"
  >
>;

/** A crawl's link filter. */
export interface CrawlFilter {
  /** The start URL, normalised. */
  readonly startUrl: string;
  /** The agents robots.txt is asked about. */
  readonly robotsAgents: readonly string[];
  /** Checks one URL found at `ctx.depth`. */
  check(link: string, ctx: FilterContext): FilterResult;
  /** Checks many; accepted URLs are unique by key, in input order. */
  filterLinks(links: Iterable<string>, ctx: FilterContext): { accepted: AcceptedUrl[]; denied: { url: string; reason: CrawlDenialReason }[] };
  /**
   * Only the robots.txt rule of {@link check}, for a URL that passed every other rule (`href` of an accepted URL):
   * the crawl planner first filters by scope, loads robots.txt for the origins in scope, then asks this alone
   * instead of running every rule again.
   */
  robotsAllows(href: string): boolean;
  /**
   * The dedup key of an absolute URL, whatever the rules say of it: the start URL is crawled even when the
   * include/exclude patterns refuse it, and its variants (`/docs` and `/docs/`, `/` and `/index.html`) must still
   * be one page.
   */
  keyOf(url: string): string;
}

/** v2 fixes upstream's path-depth limit at 9999 (api-v2.md §5.1). */
export const MAX_PATH_DEPTH = 9999;

/** External hosts never followed (upstream's list; matched on the host and its subdomains). */
export const SOCIAL_MEDIA_HOSTS: readonly string[] = [
  "facebook.com",
  "twitter.com",
  "linkedin.com",
  "instagram.com",
  "pinterest.com",
  "github.com",
  "calendly.com",
  "discord.gg",
  "discord.com",
];

/** Asset extensions never crawled (upstream's list; PDF and DOCX are crawled). */
export const DENIED_FILE_EXTENSIONS: readonly string[] = [
  ".png", ".jpg", ".jpeg", ".gif", ".css", ".js", ".ico", ".svg", ".tiff", ".zip", ".exe", ".dmg", ".mp4", ".mp3",
  ".wav", ".pptx", ".xlsx", ".avi", ".flv", ".woff", ".ttf", ".woff2", ".webp", ".inc",
];

const stripWww = (host: string) => (host.startsWith("www.") ? host.slice(4) : host);

/** The PSL registrable domain (private suffixes included, like the `psl` package); IPs and bare names: none. */
export function registrableDomain(hostname: string): string | null {
  return getDomain(hostname, { allowPrivateDomains: true });
}

/** Whether `url` is on a denylisted social host, or a `mailto:` link. */
export function isSocialMediaOrEmail(url: URL): boolean {
  if (url.protocol === "mailto:") return true;
  const host = url.hostname;
  return SOCIAL_MEDIA_HOSTS.some((d) => host === d || host.endsWith(`.${d}`));
}

/** Whether the path ends with a denied asset extension. */
export function isDeniedFileType(url: URL): boolean {
  const path = url.pathname.toLowerCase();
  return DENIED_FILE_EXTENSIONS.some((ext) => path.endsWith(ext));
}

/**
 * Compiles patterns for linear-time matching (crawl/path-pattern.ts), dropping the ones RE2 cannot compile (look-around,
 * back-references), as upstream's Rust filter drops what its `regex` crate refuses.
 */
function compile(patterns: readonly string[] | undefined): PathPattern[] {
  const out: PathPattern[] = [];
  for (const p of patterns ?? []) {
    if (p === "") continue;
    const compiled = compilePathPattern(p);
    if (compiled) out.push(compiled);
  }
  return out;
}

/** Excludes that read as a domain (`other.com/blog`, `https://x.com`): host and path prefix. */
function domainExcludes(patterns: readonly string[] | undefined): { host: string; path: string }[] {
  const out: { host: string; path: string }[] = [];
  for (const p of patterns ?? []) {
    try {
      const u = new URL(`http://${p.replace(/^https?:\/\//, "")}`);
      if (u.hostname.includes(".")) out.push({ host: u.hostname, path: u.pathname });
    } catch {
      // a path regex, not a domain
    }
  }
  return out;
}

/** Index file names a start URL may end in: `/guide/index.html` names the section `/guide/`. */
const INDEX_FILE_RE = /\/index\.(?:html?|php|aspx?|jsp)$/i;

/** The path prefix a crawl's pages must share (without `crawlEntireDomain`): the start path less an index file name. */
function sectionPath(startPath: string): string {
  return startPath.replace(INDEX_FILE_RE, "/");
}

/**
 * Whether `pathname` is in the section: it starts with `section` (a plain prefix, as upstream: `/blog` admits
 * `/blog-archive`), or is the section itself without its trailing slash (`/kb` for `/kb/`, where a site without
 * trailing slashes sends the start page). A crawl started at `/guide/index.html` refused every page, the start page
 * redirected to `/guide/` included.
 */
function inSection(pathname: string, section: string): boolean {
  return pathname.startsWith(section) || (section.endsWith("/") && pathname === section.slice(0, -1));
}

/**
 * Creates the filter of a crawl started at `startUrl`. `robots` answers for the origins it knows (a
 * `RobotsEntry` for the start origin, or a `RobotsCache`); it is not consulted with `ignoreRobotsTxt`.
 * Throws a `TypeError` when `startUrl` is not an absolute http(s) URL.
 */
export function createCrawlFilter(startUrl: string, options: FilterOptions = {}, robots?: RobotsOracle): CrawlFilter {
  const start = new URL(startUrl);
  if (start.protocol !== "http:" && start.protocol !== "https:") throw new TypeError(`createCrawlFilter: not an http(s) URL: ${startUrl}`);
  start.hash = "";
  const startHost = stripWww(start.hostname);
  const scopePath = sectionPath(start.pathname);
  const startDomain = registrableDomain(start.hostname);
  const includes = compile(options.includePaths);
  const excludes = compile(options.excludePaths);
  const excludeDomains = domainExcludes(options.excludePaths);
  const agents = robotsAgents(options.robotsUserAgent);
  const maxDepth = options.maxDiscoveryDepth;
  const keyOptions = { deduplicateSimilarURLs: options.deduplicateSimilarURLs ?? true, ignoreQueryParameters: options.ignoreQueryParameters ?? false };

  function external(url: URL): CrawlDenialReason | undefined {
    if (isSocialMediaOrEmail(url)) return "SOCIAL_MEDIA";
    const host = url.hostname;
    if (excludeDomains.some((d) => (host === d.host || host.endsWith(`.${d.host}`)) && url.pathname.startsWith(d.path))) return "EXCLUDE_PATTERN";
    const bareHomepage = url.pathname === "/" && url.search === "";
    if (options.allowExternalLinks && !bareHomepage) return undefined;
    if (options.allowSubdomains && startDomain !== null && registrableDomain(host) === startDomain) return undefined;
    return "EXTERNAL_LINK";
  }

  function robotsAllows(href: string): boolean {
    return options.ignoreRobotsTxt === true || robots?.isAllowed(href, agents) !== false;
  }

  function check(link: string, ctx: FilterContext): FilterResult {
    const deny = (reason: CrawlDenialReason, url = link): FilterResult => ({ ok: false, reason, url });
    const redirect = ctx.redirect === true;
    if (!redirect && maxDepth !== undefined && ctx.depth >= maxDepth) return deny("DEPTH_LIMIT");
    let url: URL;
    try {
      url = new URL(link, ctx.baseUrl ?? start.href);
    } catch {
      return deny("URL_PARSE_ERROR");
    }
    if (url.protocol === "mailto:") return deny("SOCIAL_MEDIA");
    if (url.protocol !== "http:" && url.protocol !== "https:") return deny("URL_PARSE_ERROR");
    const normalized = normalizeUrl(url, keyOptions);
    const denyN = (reason: CrawlDenialReason) => deny(reason, normalized);
    if (!redirect && url.pathname.split("/").filter((s) => s !== "" && s !== "index.html" && s !== "index.php").length > MAX_PATH_DEPTH) return denyN("DEPTH_LIMIT");

    if (stripWww(url.hostname) === startHost) {
      const hash = link.indexOf("#");
      if (hash >= 0) {
        const fragment = link.slice(hash + 1);
        if (!(fragment.length > 1 && fragment.includes("/"))) return denyN("SECTION_LINK");
      }
    } else {
      const reason = external(url);
      if (reason) return denyN(reason);
    }

    const target = options.regexOnFullURL ? url.href : url.pathname;
    if (excludes.some((re) => re.test(target))) return denyN("EXCLUDE_PATTERN");
    if (!redirect && includes.length > 0 && !includes.some((re) => re.test(target))) return denyN("INCLUDE_PATTERN");
    if (!redirect && !options.crawlEntireDomain && !inSection(url.pathname, scopePath)) return denyN("BACKWARD_CRAWLING");
    if (!robotsAllows(url.href)) return denyN("ROBOTS_TXT");
    if (!redirect && isDeniedFileType(url)) return denyN("FILE_TYPE");
    return { ok: true, url: normalized, key: dedupKey(normalized, keyOptions), href: url.href };
  }

  return {
    startUrl: start.href,
    robotsAgents: agents,
    check,
    filterLinks(links, ctx) {
      const accepted: AcceptedUrl[] = [];
      const denied: { url: string; reason: CrawlDenialReason }[] = [];
      const keys = new Set<string>();
      for (const link of links) {
        const r = check(link, ctx);
        if (!r.ok) denied.push({ url: r.url, reason: r.reason });
        else if (!keys.has(r.key)) {
          keys.add(r.key);
          accepted.push({ url: r.url, key: r.key, href: r.href });
        }
      }
      return { accepted, denied };
    },
    robotsAllows,
    keyOf: (link) => dedupKey(normalizeUrl(new URL(link), keyOptions), keyOptions),
  };
}
