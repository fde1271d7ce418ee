/**
 * @module crawl/sitemap-parse
 * One sitemap file's text parsed (crawl/sitemap.ts): an XML `<urlset>` or `<sitemapindex>`, or one URL per line.
 * Only the `<loc>` of each `<url>` or `<sitemap>` entry counts (crawl/sitemap-entries.ts), entities and CDATA
 * decoded; `.xml` and `.xml.gz` entries of a `<urlset>` are nested sitemaps, as upstream treats them. A file cut
 * short gives its complete entries: an entry that is never closed is skipped.
 */
import { ownLocTexts } from "./sitemap-entries.ts";

/** What one sitemap file contained. */
export interface ParsedSitemap {
  kind: "urlset" | "sitemapindex" | "text" | "none";
  /** Page URLs. */
  urls: string[];
  /** Nested sitemap URLs. */
  sitemaps: string[];
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
function entryLocs(body: string, prefixes: ReadonlySet<string>): string[] {
  const locs: string[] = [];
  for (const text of ownLocTexts(body, prefixes)) {
    const loc = decodeXmlText(text);
    if (isHttpUrl(loc)) locs.push(loc);
  }
  return locs;
}

/** Characters of a large file parsed at once by {@link parseSitemapPieces}. */
export const SITEMAP_PIECE_CHARS = 1 << 20;
const NONE: ParsedSitemap = { kind: "none", urls: [], sitemaps: [] };

/** Which XML sitemap `body` is, if any. */
function xmlKind(body: string): "urlset" | "sitemapindex" | undefined {
  if (/<(?:[\w-]+:)?sitemapindex[\s>]/i.test(body)) return "sitemapindex";
  return /<(?:[\w-]+:)?urlset[\s>]/i.test(body) ? "urlset" : undefined;
}

function parseXml(body: string, prefixes: ReadonlySet<string>, kind: "urlset" | "sitemapindex"): ParsedSitemap {
  const locs = entryLocs(body, prefixes);
  if (kind === "sitemapindex") return { kind, urls: [], sitemaps: locs };
  const nested = (u: string) => /\.xml(\.gz)?$/i.test(new URL(u).pathname);
  return { kind, urls: locs.filter((u) => !nested(u)), sitemaps: locs.filter(nested) };
}

function parseText(body: string): ParsedSitemap {
  const urls = body
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(isHttpUrl);
  return { kind: urls.length > 0 ? "text" : "none", urls, sitemaps: [] };
}

/** Parses one sitemap file's text (XML urlset, XML index, or one URL per line). */
export function parseSitemap(text: string): ParsedSitemap {
  const body = text.replace(/^\uFEFF/, "").trimStart();
  if (!body.startsWith("<")) return parseText(body);
  const kind = xmlKind(body);
  return kind ? parseXml(body, sitemapPrefixes(body), kind) : NONE;
}

/**
 * {@link parseSitemap} a piece at a time, each piece ending after an entry's closing tag (or a line), for a reader
 * that stops at its bounds: parsed whole, a 50 MiB file held some 360 MB of entries and URLs at once, though a map
 * keeps a few thousand of them. Each piece's result is what the whole-file parse gives for those entries (the
 * namespace prefixes are the file's), on well-formed files; on malformed ones an entry left open does not reach
 * into the next piece.
 */
export function* parseSitemapPieces(text: string, pieceChars = SITEMAP_PIECE_CHARS): Generator<ParsedSitemap> {
  const body = text.replace(/^\uFEFF/, "").trimStart();
  if (body.length <= pieceChars) {
    yield parseSitemap(body);
    return;
  }
  const xml = body.startsWith("<");
  const kind = xml ? xmlKind(body) : undefined;
  if (xml && !kind) {
    yield NONE;
    return;
  }
  const prefixes = xml ? sitemapPrefixes(body) : undefined;
  const boundary = xml ? /<\/(?:[\w.-]+:)?(?:url|sitemap)\s*>/gi : /\n/g;
  for (let at = 0; at < body.length; ) {
    boundary.lastIndex = Math.min(body.length, at + pieceChars);
    const end = boundary.exec(body) ? boundary.lastIndex : body.length;
    const piece = body.slice(at, end);
    yield xml ? parseXml(piece, prefixes!, kind!) : parseText(piece);
    at = end;
  }
}
