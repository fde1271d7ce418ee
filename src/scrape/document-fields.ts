/**
 * @module scrape/document-fields
 * Small rules of document assembly (scrape/service.ts): how renderers' fields merge into one document, which
 * metadata fields only the service may set, and the `metadata.error` of a page that answered an error status.
 */
import type { ScrapeDocument } from "./document.ts";

/**
 * Adds one renderer's fields to the document. A document has a single `warning` (api-v2.md §3.1), so warnings of
 * several formats are joined rather than the last one replacing the others (a PDF asked for a screenshot and
 * branding must say that neither was made).
 */
export function mergeRendered(doc: ScrapeDocument, rendered: Partial<ScrapeDocument>): void {
  const previous = doc.warning;
  Object.assign(doc, rendered);
  if (previous !== undefined && rendered.warning !== undefined && rendered.warning !== previous) doc.warning = `${previous} ${rendered.warning}`;
}

/**
 * Metadata fields only the service sets. A page's own `<meta name="error">` (or `concurrencyLimited`, …) must not
 * reach the document: clients read `metadata.error` as "this page failed". The other service fields are
 * overwritten anyway; these can be absent, so they are removed from what the page's `<meta>` tags gave.
 */
const SERVICE_ONLY_FIELDS = ["error", "cachedAt", "concurrencyLimited", "concurrencyQueueDurationMs"];

/** `meta` without {@link SERVICE_ONLY_FIELDS} (the same object when it has none). */
export function withoutServiceFields(meta: Record<string, unknown>): Record<string, unknown> {
  if (!SERVICE_ONLY_FIELDS.some((k) => Object.hasOwn(meta, k))) return meta;
  const out = { ...meta };
  for (const k of SERVICE_ONLY_FIELDS) delete out[k];
  return out;
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  410: "Gone",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** `metadata.error` of a page that answered `status` (e.g. `HTTP 404 Not Found`). */
export function statusError(status: number): string {
  return `HTTP ${status}${STATUS_TEXT[status] ? ` ${STATUS_TEXT[status]}` : ""}`;
}
