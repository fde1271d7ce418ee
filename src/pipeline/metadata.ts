/**
 * @module pipeline/metadata
 * Page metadata as Firecrawl reports it (api-v2.md §3.1): the named fields (title, description, language,
 * og*, dc*, …) plus every other `<meta name|property|itemprop>` copied under its own name. A name that occurs
 * more than once becomes an array, as upstream does, so nothing the page said is lost; `description` and `robots`,
 * which the SDKs type as strings, are joined instead (JOINED_FIELDS).
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

function add(meta: PageMetadata, key: string, value: string): void {
  const prev = meta[key];
  if (prev === undefined) meta[key] = value;
  else if (Array.isArray(prev)) {
    if (!prev.includes(value)) prev.push(value);
  } else if (prev !== value) meta[key] = [prev, value];
}

/**
 * Extracts metadata from the original (uncleaned) document. `<meta>` names are the page's own, so the record has
 * no prototype: a `<meta name="constructor">` or `name="__proto__"` is an ordinary key, not an inherited member.
 */
export function extractMetadata(doc: Document, baseUrl: string): PageMetadata {
  const meta: PageMetadata = Object.create(null);
  const { metas, links, title: titleEl } = scanDocument(doc);
  const title = titleEl?.textContent?.trim();
  if (title) meta.title = title.replace(/\s+/g, " ");
  const lang = doc.documentElement?.getAttribute("lang")?.trim();
  if (lang) meta.language = lang;

  let httpLanguage: string | undefined;
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
      if (ARRAY_FIELDS.has(field)) add(meta, field, value);
      else if (meta[field] === undefined) meta[field] = value;
    }
    // Every <meta> is also reported under its own name (upstream's "custom metadata").
    if (name !== "title") add(meta, name.trim(), value);
  }
  if (!meta.language && httpLanguage) meta.language = httpLanguage;
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

function findFavicon(links: Element[], baseUrl: string): string | undefined {
  for (const link of links) {
    const rel = (link.getAttribute("rel") ?? "").toLowerCase().split(/\s+/);
    const href = link.getAttribute("href");
    if (href && (rel.includes("icon") || rel.includes("apple-touch-icon"))) {
      const abs = absoluteUrl(href, baseUrl);
      if (abs) return abs;
    }
  }
  return undefined;
}
