/**
 * @module pipeline/metadata
 * Page metadata as Firecrawl reports it (api-v2.md §3.1): the named fields (title, description, language,
 * og*, dc*, …) plus every other `<meta name|property|itemprop>` copied under its own name. A name that occurs
 * more than once becomes an array, as upstream does, so nothing the page said is lost; `description` and `robots`,
 * which the SDKs type as strings, are joined instead (JOINED_FIELDS), and `title`, `language` and `favicon` come
 * from the page's structure, falling back on its metas (`og:title`, then `twitter:title`, then `title`, as
 * upstream; `content-language`, then `language`).
 */
import { scanDocument } from "./document-scan.ts";
import { absoluteUrl } from "./url.ts";

/** Metadata extracted from the page itself (transport fields are added by the scrape layer). */
export type PageMetadata = Record<string, string | string[]>;

/** `<meta>` name (lower-cased) → the camelCase field Firecrawl reports it under. */
const NAMED_META: Record<string, string> = {
  description: "description",
  keywords: "keywords",
  robots: "robots",
  "og:title": "ogTitle",
  "og:description": "ogDescription",
  "og:url": "ogUrl",
  "og:image": "ogImage",
  "og:audio": "ogAudio",
  "og:determiner": "ogDeterminer",
  "og:locale": "ogLocale",
  "og:locale:alternate": "ogLocaleAlternate",
  "og:site_name": "ogSiteName",
  "og:video": "ogVideo",
  "dcterms.created": "dcTermsCreated",
  "dc.date.created": "dcDateCreated",
  "dc.date": "dcDate",
  "dcterms.type": "dcTermsType",
  "dc.type": "dcType",
  "dcterms.audience": "dcTermsAudience",
  "dcterms.subject": "dcTermsSubject",
  "dc.subject": "dcSubject",
  "dc.description": "dcDescription",
  "dcterms.keywords": "dcTermsKeywords",
  "article:modified_time": "modifiedTime",
  "article:published_time": "publishedTime",
  "article:tag": "articleTag",
  "article:section": "articleSection",
};

/** Fields that are always arrays, as in upstream's type. */
const ARRAY_FIELDS = new Set(["ogLocaleAlternate"]);

/**
 * Fields the SDKs type as one string that a page may repeat (a theme's description and an SEO plugin's): their values
 * joined with ", ", as upstream's extract_metadata joins them. As arrays they broke a JS caller's string operations.
 */
const JOINED_FIELDS = ["description", "robots"] as const;

/**
 * Fields crawlbox sets from the page's structure, typed as one string by the SDKs: a `<meta name="language">` (or
 * `title`, `favicon`) is not copied over them, which made `language` an array (`["en", "English"]`).
 */
const STRUCTURAL_FIELDS = new Set(["title", "language", "favicon"]);
/** Where no `<title>` names the page, what does, in order (as upstream falls back). */
const TITLE_FALLBACKS = ["og:title", "twitter:title", "title"] as const;
/** The `<meta>` names a missing structural field may fall back on. */
const FALLBACK_NAMES: ReadonlySet<string> = new Set([...TITLE_FALLBACKS, "language"]);

/**
 * Adds `value` under `key`: a second distinct value makes an array. `seen` holds each array key's values, so that
 * a page repeating one name 40,000 times is not quadratic (`includes` on the array took 3 to 8 s).
 */
function add(meta: PageMetadata, seen: Map<string, Set<string>>, key: string, value: string): void {
  const prev = meta[key];
  if (prev === undefined) meta[key] = value;
  else if (Array.isArray(prev)) {
    let values = seen.get(key);
    if (!values) seen.set(key, (values = new Set(prev)));
    if (!values.has(value)) {
      values.add(value);
      prev.push(value);
    }
  } else if (prev !== value) meta[key] = [prev, value];
}

/**
 * Extracts metadata from the original (uncleaned) document. `<meta>` names are the page's own, so the record has
 * no prototype: a `<meta name="constructor">` or `name="__proto__"` is an ordinary key, not an inherited member.
 */
export function extractMetadata(doc: Document, baseUrl: string): PageMetadata {
  const meta: PageMetadata = Object.create(null);
  const seen = new Map<string, Set<string>>();
  const { metas, links, title: titleEl } = scanDocument(doc);
  const title = titleEl?.textContent?.trim();
  if (title) meta.title = title.replace(/\s+/g, " ");
  const lang = doc.documentElement?.getAttribute("lang")?.trim();
  if (lang) meta.language = lang;

  let httpLanguage: string | undefined;
  // The first value of each name a missing structural field may fall back on.
  const fallbacks = new Map<string, string>();
  for (const el of metas) {
    const content = el.getAttribute("content");
    if (content === null) continue;
    if (httpLanguage === undefined && el.getAttribute("http-equiv")?.toLowerCase() === "content-language") httpLanguage = content.trim();
    const name = el.getAttribute("name") ?? el.getAttribute("property") ?? el.getAttribute("itemprop");
    if (!name) continue;
    const value = content.trim();
    const lower = name.trim().toLowerCase();
    if (lower === "") continue;
    const field = Object.hasOwn(NAMED_META, lower) ? NAMED_META[lower] : undefined;
    if (field) {
      if (ARRAY_FIELDS.has(field)) add(meta, seen, field, value);
      else if (meta[field] === undefined) meta[field] = value;
    }
    if (value && FALLBACK_NAMES.has(lower) && !fallbacks.has(lower)) fallbacks.set(lower, value);
    // Every <meta> is also reported under its own name (upstream's "custom metadata").
    if (!STRUCTURAL_FIELDS.has(name.trim())) add(meta, seen, name.trim(), value);
  }
  if (!meta.language) {
    const language = httpLanguage || fallbacks.get("language");
    if (language) meta.language = language;
  }
  if (!meta.title) {
    const name = TITLE_FALLBACKS.find((n) => fallbacks.has(n));
    if (name) meta.title = fallbacks.get(name)!.replace(/\s+/g, " ");
  }
  for (const field of JOINED_FIELDS) {
    const value = meta[field];
    if (Array.isArray(value)) meta[field] = value.join(", ");
  }
  if (meta.ogLocaleAlternate !== undefined && !Array.isArray(meta.ogLocaleAlternate)) {
    meta.ogLocaleAlternate = [meta.ogLocaleAlternate];
  }
  const favicon = findFavicon(links, baseUrl);
  if (favicon) meta.favicon = favicon;
  return meta;
}

/**
 * The page's icon: the first `rel="icon"` (`shortcut icon` included), else the first `apple-touch-icon` (a 180 px
 * home-screen picture, which was taken when it came first in the head).
 */
function findFavicon(links: Element[], baseUrl: string): string | undefined {
  let touchIcon: string | undefined;
  for (const link of links) {
    const rel = (link.getAttribute("rel") ?? "").toLowerCase().split(/\s+/);
    const href = link.getAttribute("href");
    if (!href) continue;
    if (rel.includes("icon")) {
      const abs = absoluteUrl(href, baseUrl);
      if (abs) return abs;
    } else if (!touchIcon && (rel.includes("apple-touch-icon") || rel.includes("apple-touch-icon-precomposed"))) {
      touchIcon = absoluteUrl(href, baseUrl);
    }
  }
  return touchIcon;
}
