/**
 * @module pipeline/metadata
 * Page metadata as Firecrawl reports it (api-v2.md §3.1): the named fields (title, description, language,
 * og*, dc*, …) plus every other `<meta name|property|itemprop>` copied under its own name. A name that occurs
 * more than once becomes an array, as upstream does, so nothing the page said is lost.
 */
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

function add(meta: PageMetadata, key: string, value: string): void {
  const prev = meta[key];
  if (prev === undefined) meta[key] = value;
  else if (Array.isArray(prev)) {
    if (!prev.includes(value)) prev.push(value);
  } else if (prev !== value) meta[key] = [prev, value];
}

/** Extracts metadata from the original (uncleaned) document. */
export function extractMetadata(doc: Document, baseUrl: string): PageMetadata {
  const meta: PageMetadata = {};
  const title = doc.querySelector("title")?.textContent?.trim();
  if (title) meta.title = title.replace(/\s+/g, " ");
  const lang = doc.documentElement?.getAttribute("lang")?.trim();
  if (lang) meta.language = lang;

  for (const el of doc.querySelectorAll("meta")) {
    const name = el.getAttribute("name") ?? el.getAttribute("property") ?? el.getAttribute("itemprop");
    const content = el.getAttribute("content");
    if (!name || content === null) continue;
    const value = content.trim();
    const lower = name.trim().toLowerCase();
    if (lower === "") continue;
    const field = NAMED_META[lower];
    if (field) {
      if (ARRAY_FIELDS.has(field)) add(meta, field, value);
      else if (meta[field] === undefined) meta[field] = value;
    }
    // Every <meta> is also reported under its own name (upstream's "custom metadata").
    if (name !== "title") add(meta, name.trim(), value);
  }
  if (!meta.language) {
    const httpLang = doc.querySelector('meta[http-equiv="content-language" i]')?.getAttribute("content");
    if (httpLang) meta.language = httpLang.trim();
  }
  if (meta.ogLocaleAlternate !== undefined && !Array.isArray(meta.ogLocaleAlternate)) {
    meta.ogLocaleAlternate = [meta.ogLocaleAlternate];
  }
  const favicon = findFavicon(doc, baseUrl);
  if (favicon) meta.favicon = favicon;
  return meta;
}

function findFavicon(doc: Document, baseUrl: string): string | undefined {
  for (const link of doc.querySelectorAll("link[rel][href]")) {
    const rel = (link.getAttribute("rel") ?? "").toLowerCase().split(/\s+/);
    if (rel.includes("icon") || rel.includes("apple-touch-icon")) {
      const href = absoluteUrl(link.getAttribute("href") ?? "", baseUrl);
      if (href) return href;
    }
  }
  return undefined;
}
