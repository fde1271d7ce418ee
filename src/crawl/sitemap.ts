/**
 * @module crawl/sitemap
 * Sitemap discovery and reading (api-v2.md §5.2), through an {@link Engine}:
 *
 * - {@link sitemapCandidates}: `<url>/sitemap.xml` (or the URL itself when it ends in `.xml`), every robots.txt
 *   `Sitemap:` line, the parent domain's `/sitemap.xml` when the start URL is on a subdomain (its URLs kept only
 *   when their host ends with the subdomain), and `<origin>/sitemap.xml` as a last resort, read only when
 *   nothing else produced a URL.
 * - {@link readSitemaps}: breadth-first over `<urlset>`, `<sitemapindex>` and plain-text sitemaps, gzip
 *   (`.gz` or the gzip magic bytes, inflated with a size cap), at most `maxSitemaps` fetches (20, upstream's
 *   bound), at most `maxUrls` URLs kept (with `keep`, only the URLs it keeps count: a crawl of `/blog` must not
 *   stop reading because of the site's other sections) and at most `maxUrlsScanned` URLs looked at in all, one
 *   overall deadline (120 s upstream). `<loc>` values ending in `.xml` or
 *   `.xml.gz` inside a `<urlset>` are nested sitemaps, as upstream treats them. An HTML answer (a soft 404) is
 *   not a sitemap. Failures are collected, never thrown, except when the caller's signal aborts.
 */
import { gunzipSync } from "node:zlib";
import { getDomain } from "tldts";
import type { Engine } from "../engines/types.ts";
import { CrawlboxError } from "../errors.ts";
import { DISCOVERY_SKIPS_TLS_VERIFICATION } from "./robots-cache.ts";
import { createYielder } from "./filter-yielding.ts";
import { ownLocTexts } from "./sitemap-entries.ts";

/** Sitemaps fetched per read (upstream's bound). */
export const MAX_SITEMAPS = 20;
/** URLs kept per read unless the caller says otherwise. */
export const DEFAULT_MAX_SITEMAP_URLS = 100_000;
/**
 * URLs looked at per read, kept or not, unless the caller says otherwise: with a `keep` that refuses most of a huge
 * sitemap, `maxUrls` alone would never stop the read.
 */
export const DEFAULT_MAX_SITEMAP_URLS_SCANNED = 100_000;
/** Overall deadline of a read (upstream: 120 s). */
export const DEFAULT_SITEMAP_TIMEOUT_MS = 120_000;
/** Largest sitemap file, decoded (sitemaps.org: 50 MiB uncompressed). */
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;

/** One sitemap to read; `hostSuffix` keeps only URLs whose host ends with it (parent-domain sitemaps). */
export interface SitemapCandidate {
  url: string;
  hostSuffix?: string;
  /** Read only when no earlier candidate produced a URL. */
  lastResort?: boolean;
}

/** What one sitemap file contained. */
export interface ParsedSitemap {
  kind: "urlset" | "sitemapindex" | "text" | "none";
  /** Page URLs. */
  urls: string[];
  /** Nested sitemap URLs. */
  sitemaps: string[];
}

/** Options of {@link readSitemaps}. */
export interface ReadSitemapsOptions {
  engine: Pick<Engine, "fetch">;
  /** @default MAX_SITEMAPS */
  maxSitemaps?: number;
  /** URLs kept (those `keep` accepts). @default DEFAULT_MAX_SITEMAP_URLS */
  maxUrls?: number;
  /** URLs looked at, kept or not: the hard bound on a read's work. @default max(DEFAULT_MAX_SITEMAP_URLS_SCANNED, maxUrls) */
  maxUrlsScanned?: number;
  /**
   * Which URLs the caller wants (a crawl's scope: start path, `includePaths`, …). Refused URLs are neither returned
   * nor counted towards `maxUrls`, so in-scope URLs listed after many others are still found. @default keep all
   */
  keep?: (url: string) => boolean;
  /** @default DEFAULT_SITEMAP_TIMEOUT_MS */
  timeoutMs?: number;
  headers?: Record<string, string>;
  /** The URL `headers` belong to: sitemaps on other origins get only the cross-origin-safe ones. */
  headersOrigin?: string;
  signal?: AbortSignal;
  /** Called with each file's new URLs as they arrive (a crawl can enqueue before the read ends). */
  onUrls?: (urls: string[], sitemapUrl: string) => void | Promise<void>;
}

/** The outcome of {@link readSitemaps}. */
export interface SitemapResult {
  /** Unique page URLs in discovery order (those `keep` accepts). */
  urls: string[];
  /** URLs looked at, kept or not (duplicates and other hosts' URLs of a parent-domain sitemap included). */
  scanned: number;
  /** Sitemap URLs fetched, in order. */
  fetched: string[];
  errors: { url: string; code: string; message: string }[];
  /** A bound (sitemaps, URLs or time) stopped the read early. */
  truncated: boolean;
  timedOut: boolean;
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

const XML_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeXmlText(s: string): string {
  return s
    .replace(/^\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*$/, "$1")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] === "#") {
        const cp = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
        return Number.isFinite(cp) && cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
      }
      return XML_ENTITIES[e.toLowerCase()] ?? m;
    })
    .trim();
}

function isHttpUrl(s: string): boolean {
  return /^https?:\/\/[^\s]+$/i.test(s) && URL.canParse(s);
}

/** The sitemap protocol's namespace (sitemaps.org); other namespaces (image, video, xhtml, news) extend entries. */
const SITEMAP_NAMESPACE = "sitemaps.org/schemas/sitemap";

/**
 * The prefixes the sitemap protocol's own elements may carry in `body`: none, the root element's, and any bound to
 * the sitemaps.org namespace.
 */
function sitemapPrefixes(body: string): Set<string> {
  const prefixes = new Set<string>([""]);
  const root = /<(?:([\w.-]+):)?(?:urlset|sitemapindex)[\s>]/i.exec(body);
  if (root?.[1]) prefixes.add(root[1].toLowerCase());
  for (const m of body.matchAll(/\bxmlns:([\w.-]+)\s*=\s*["']([^"']*)["']/gi)) {
    if (m[2]!.includes(SITEMAP_NAMESPACE)) prefixes.add(m[1]!.toLowerCase());
  }
  return prefixes;
}

/**
 * The `<loc>` of each `<url>` or `<sitemap>` entry, in order. Only the entry's own `<loc>` (un-prefixed, or with a
 * sitemap-namespace prefix): an image sitemap's `<image:loc>` (and any element of another namespace, with what it
 * holds) names a picture of the page, not a page, and was crawled as one.
 */
function entryLocs(body: string): string[] {
  const locs: string[] = [];
  for (const text of ownLocTexts(body, sitemapPrefixes(body))) {
    const loc = decodeXmlText(text);
    if (isHttpUrl(loc)) locs.push(loc);
  }
  return locs;
}

/** Parses one sitemap file's text (XML urlset, XML index, or one URL per line). */
export function parseSitemap(text: string): ParsedSitemap {
  const body = text.replace(/^\uFEFF/, "").trimStart();
  if (body.startsWith("<")) {
    const index = /<(?:[\w-]+:)?sitemapindex[\s>]/i.test(body);
    const urlset = /<(?:[\w-]+:)?urlset[\s>]/i.test(body);
    if (!index && !urlset) return { kind: "none", urls: [], sitemaps: [] };
    const locs = entryLocs(body);
    if (index) return { kind: "sitemapindex", urls: [], sitemaps: locs };
    const nested = (u: string) => /\.xml(\.gz)?$/i.test(new URL(u).pathname);
    return { kind: "urlset", urls: locs.filter((u) => !nested(u)), sitemaps: locs.filter(nested) };
  }
  const urls = body
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(isHttpUrl);
  return { kind: urls.length > 0 ? "text" : "none", urls, sitemaps: [] };
}

/** The text of a fetched sitemap: gunzipped when gzip (by magic bytes), with a decoded-size cap. */
function sitemapText(body: Uint8Array, contentType: string): string | undefined {
  let bytes = body;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes, { maxOutputLength: MAX_SITEMAP_BYTES });
  const head = new TextDecoder().decode(bytes.subarray(0, 512)).toLowerCase();
  if (contentType === "text/html" || /<html[\s>]|<!doctype html/.test(head)) return undefined;
  return new TextDecoder().decode(bytes);
}

/** Reads `candidates` and every sitemap they point to, within the bounds. */
export async function readSitemaps(candidates: readonly SitemapCandidate[], options: ReadSitemapsOptions): Promise<SitemapResult> {
  const maxSitemaps = options.maxSitemaps ?? MAX_SITEMAPS;
  const maxUrls = options.maxUrls ?? DEFAULT_MAX_SITEMAP_URLS;
  const maxUrlsScanned = options.maxUrlsScanned ?? Math.max(DEFAULT_MAX_SITEMAP_URLS_SCANNED, maxUrls);
  const timeoutMs = options.timeoutMs ?? DEFAULT_SITEMAP_TIMEOUT_MS;
  const startedAt = performance.now();
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const result: SitemapResult = { urls: [], scanned: 0, fetched: [], errors: [], truncated: false, timedOut: false };
  const seenUrls = new Set<string>();
  const seenSitemaps = new Set<string>();
  const queue: SitemapCandidate[] = [];
  const enqueue = (c: SitemapCandidate) => {
    if (!seenSitemaps.has(c.url)) {
      seenSitemaps.add(c.url);
      queue.push(c);
    }
  };
  candidates.filter((c) => !c.lastResort).forEach(enqueue);
  const lastResorts = candidates.filter((c) => c.lastResort);

  for (;;) {
    if (queue.length === 0 && result.urls.length === 0 && lastResorts.length > 0) enqueue(lastResorts.shift()!);
    const next = queue.shift();
    if (!next) break;
    if (result.fetched.length >= maxSitemaps || result.urls.length >= maxUrls || result.scanned >= maxUrlsScanned) {
      result.truncated = true;
      break;
    }
    if (signal.aborted) {
      if (options.signal?.aborted) throw options.signal.reason;
      result.timedOut = result.truncated = true;
      break;
    }
    result.fetched.push(next.url);
    let parsed: ParsedSitemap;
    try {
      const page = await options.engine.fetch({ url: next.url, headers: options.headers, ...(options.headersOrigin ? { headersOrigin: options.headersOrigin } : {}), timeoutMs: Math.max(1, Math.round(timeoutMs - (performance.now() - startedAt))), maxBodyBytes: MAX_SITEMAP_BYTES, skipTlsVerification: DISCOVERY_SKIPS_TLS_VERIFICATION }, signal);
      if (page.statusCode < 200 || page.statusCode >= 300) {
        result.errors.push({ url: next.url, code: "HTTP_STATUS", message: `HTTP ${page.statusCode}` });
        continue;
      }
      const text = sitemapText(page.body, page.contentType);
      parsed = text === undefined ? { kind: "none", urls: [], sitemaps: [] } : parseSitemap(text);
    } catch (err) {
      if (options.signal?.aborted) throw options.signal.reason;
      // The fetch's own deadline is the remaining time, so it can fire a moment before `deadline` does.
      if (deadline.aborted || performance.now() - startedAt >= timeoutMs - 2) {
        result.timedOut = result.truncated = true;
        break;
      }
      const e = err as Partial<CrawlboxError> & { code?: string; message?: string };
      result.errors.push({ url: next.url, code: e.code ?? "SITEMAP_ERROR", message: String(e.message ?? err) });
      continue;
    }
    for (const s of parsed.sitemaps) enqueue({ url: s, hostSuffix: next.hostSuffix });
    const fresh: string[] = [];
    // `keep` runs the caller's patterns: 50,000 URLs of a sitemap must not hold every other request.
    const pause = createYielder();
    for (const u of parsed.urls) {
      await pause();
      if (result.urls.length >= maxUrls || result.scanned >= maxUrlsScanned) {
        result.truncated = true;
        break;
      }
      result.scanned++;
      if (next.hostSuffix && !hostEndsWith(u, next.hostSuffix)) continue;
      if (seenUrls.has(u)) continue;
      // Remembered whether kept or not: a URL listed twice is judged once.
      seenUrls.add(u);
      if (options.keep && !options.keep(u)) continue;
      result.urls.push(u);
      fresh.push(u);
    }
    if (fresh.length > 0) await options.onUrls?.(fresh, next.url);
  }
  return result;
}

function hostEndsWith(url: string, suffix: string): boolean {
  const host = new URL(url).hostname;
  return host === suffix || host.endsWith(`.${suffix}`);
}
