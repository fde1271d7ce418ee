/**
 * @module crawl/url-normalize
 * URL identity for crawls and maps (api-v2.md §5.6): what counts as "the same page".
 *
 * - {@link normalizeUrl} is upstream's `normalizeURL`: the fragment goes, the query goes too when
 *   `ignoreQueryParameters` is set.
 * - {@link urlPermutations} is upstream's `generateURLPermutations`: www/non-www × http/https ×
 *   {`/index.html`, `/index.php`, trailing slash, bare}. Upstream locks every permutation in Redis so that any
 *   variant of a visited URL is refused.
 * - {@link dedupKey} replaces that set of locks with one string: a canonical key that every permutation of a URL
 *   maps to, so a store needs one row per page instead of up to 16. Its path and query are percent-encoding
 *   normalised first (RFC 3986 §6.2.2.1–2): `/caf%c3%a9` and `/caf%C3%A9`, `/%7Eu` and `/~u` are one page.
 */

/** Options shared by the crawl and map callers. */
export interface NormalizeOptions {
  /** Drop the query string. @default false (crawl); map defaults it to true. */
  ignoreQueryParameters?: boolean;
}

/** Options of {@link dedupKey}. */
export interface DedupOptions extends NormalizeOptions {
  /** Treat www/scheme/trailing-slash/index-file variants as one URL. @default true */
  deduplicateSimilarURLs?: boolean;
}

/** Directory-index file names that upstream's permutations treat as the directory itself. */
const INDEX_FILES = ["index.html", "index.php"] as const;

/**
 * The URL with its fragment removed, and its query too when `ignoreQueryParameters`. Throws a `TypeError`
 * (from `new URL`) when `url` is not an absolute URL.
 *
 * @example normalizeUrl("https://a.com/x?y=1#z", { ignoreQueryParameters: true }) // "https://a.com/x"
 */
export function normalizeUrl(url: string | URL, options: NormalizeOptions = {}): string {
  const u = new URL(url);
  u.hash = "";
  if (options.ignoreQueryParameters) u.search = "";
  return u.href;
}

/** The four path forms of one path: `/index.html`, `/index.php`, trailing slash, bare (upstream's order). */
function pathVariants(pathname: string): string[] {
  for (const file of INDEX_FILES) {
    if (pathname.endsWith(`/${file}`)) {
      const dir = pathname.slice(0, -file.length); // keeps the slash
      const bare = dir.length > 1 ? dir.slice(0, -1) : dir;
      return INDEX_FILES.map((f) => dir + f).concat([dir, bare]);
    }
  }
  if (pathname.endsWith("/")) {
    const bare = pathname.length > 1 ? pathname.slice(0, -1) : pathname;
    return INDEX_FILES.map((f) => pathname + f).concat([pathname, bare]);
  }
  return INDEX_FILES.map((f) => `${pathname}/${f}`).concat([`${pathname}/`, pathname]);
}

/**
 * Every variant of `url` that upstream considers the same page, as absolute hrefs (deduplicated, the input's
 * own form included). Only http(s) URLs get the scheme variants. The fragment is kept as given; callers
 * normalise first.
 */
export function urlPermutations(url: string | URL): string[] {
  const base = new URL(url);
  const hosts = base.hostname.startsWith("www.") ? [base.hostname, base.hostname.slice(4)] : [`www.${base.hostname}`, base.hostname];
  const schemes = base.protocol === "http:" || base.protocol === "https:" ? ["http:", "https:"] : [base.protocol];
  const out = new Set<string>();
  for (const host of hosts) {
    for (const scheme of schemes) {
      for (const path of pathVariants(base.pathname)) {
        const u = new URL(base);
        u.protocol = scheme;
        u.hostname = host;
        u.pathname = path;
        out.add(u.href);
      }
    }
  }
  return [...out];
}

/** RFC 3986 §2.3 unreserved characters: an escape of one of these means the character itself (§6.2.2.2). */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * `s` (a path or query as WHATWG URL serialises it) with each percent-escape in one spelling, as RFC 3986 §6.2.2
 * compares URIs: escapes of unreserved characters decoded (`%7E` → `~`, `%2D` → `-`), the others' hex digits
 * upper-cased (`%c3%a9` → `%C3%A9`). Reserved characters stay escaped: `%2F` is not `/`, `%3D` not `=`. Sites link
 * to one page in several spellings (a CMS writing lower-case escapes, a sitemap upper-case ones), and the WHATWG
 * parser leaves escapes as written, so without this one page was listed and crawled twice.
 */
export function normalizePercentEncoding(s: string): string {
  if (!s.includes("%")) return s;
  return s.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const c = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(c) ? c : `%${hex.toUpperCase()}`;
  });
}

/** `pathname` with one `/index.html`-style file name and then one trailing slash removed (root becomes ""). */
function canonicalPath(pathname: string): string {
  let p = pathname;
  for (const file of INDEX_FILES) {
    if (p.endsWith(`/${file}`)) {
      p = p.slice(0, -file.length);
      break;
    }
  }
  return p.endsWith("/") ? p.slice(0, -1) : p;
}

/**
 * The identity of a URL in a crawl's visited set. With `deduplicateSimilarURLs` (the default) it is
 * `host-without-www[:port] + path-without-index-file-or-trailing-slash + query`, with no scheme, so every
 * {@link urlPermutations} variant of a URL has the same key. Without it, the key is {@link normalizeUrl}.
 * Either way path and query are {@link normalizePercentEncoding normalised}: RFC 3986 says the spellings are one
 * URI, which is not a matter of "similar" URLs. Throws a `TypeError` when `url` is not absolute.
 *
 * Ports: `http://a:8080/` and `https://a:8080/` share a key (upstream's permutations keep the port); ports 80
 * and 443 count as absent, since switching the scheme of `http://a:443/` makes the port vanish.
 *
 * @example dedupKey("https://www.a.com/docs/index.html") === dedupKey("http://a.com/docs") // true
 */
export function dedupKey(url: string | URL, options: DedupOptions = {}): string {
  const u = new URL(normalizeUrl(url, options));
  const path = normalizePercentEncoding(u.pathname);
  const query = normalizePercentEncoding(u.search);
  if (options.deduplicateSimilarURLs === false || (u.protocol !== "http:" && u.protocol !== "https:")) {
    // Only unreserved characters were decoded, so these setters keep the strings as they are.
    if (path !== u.pathname) u.pathname = path;
    if (query !== u.search) u.search = query;
    return u.href;
  }
  const host = u.hostname.startsWith("www.") ? u.hostname.slice(4) : u.hostname;
  // 80 and 443 are each the default of one of the two schemes, so a permutation may drop them.
  const port = u.port === "" || u.port === "80" || u.port === "443" ? "" : `:${u.port}`;
  return `${host}${port}${canonicalPath(path)}${query}`;
}
