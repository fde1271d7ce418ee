/**
 * @module scrape/document
 * The Document a scrape returns (api-v2.md §3.1). Renderers each fill their own fields; the service assembles
 * metadata last, because transport facts (status, cache state, credits) are known only at the end.
 */

/** Metadata of a scraped page: page `<meta>` fields plus transport and accounting fields. */
export interface DocumentMetadata {
  title?: string;
  description?: string;
  language?: string;
  url: string;
  sourceURL: string;
  statusCode: number;
  contentType?: string;
  scrapeId: string;
  proxyUsed: "basic" | "stealth";
  cacheState?: "hit" | "miss";
  cachedAt?: string;
  creditsUsed: number;
  /** Which engine produced the page: `http`, `browser` or `cache`. */
  engine?: string;
  error?: string;
  [meta: string]: unknown;
}

/** A scraped document as returned by `/v2/scrape` and in crawl results. */
export interface ScrapeDocument {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  images?: string[];
  attributes?: { selector: string; attribute: string; values: string[] }[];
  warning?: string;
  metadata: DocumentMetadata;
  [format: string]: unknown;
}
