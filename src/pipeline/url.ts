/**
 * @module pipeline/url
 * URL helpers shared by the DOM stages. A page's relative links resolve against `<base href>` when it has one
 * (HTML §4.2.3), otherwise against the URL the page was finally served from.
 */
import { scanDocument } from "./document-scan.ts";

/** Resolves `href` against `base`; undefined when it is empty or cannot be parsed. */
export function absoluteUrl(href: string, base: string): string | undefined {
  const h = href.trim();
  if (h === "") return undefined;
  try {
    return new URL(h, base).href;
  } catch {
    return undefined;
  }
}

/**
 * The base URL for resolving a document's links (HTML §2.4.1 "document base URL"): the `href` of the first
 * `<base>` element that has one, in tree order (normally in `<head>`; browsers honour one in `<body>` too),
 * resolved against `pageUrl`; `pageUrl` when there is none or it cannot be parsed (an empty `href` also means
 * `pageUrl`). Every stage (links, images, metadata, the `html` and `markdown` formats) must use this one answer:
 * resolving a relative `<base href>` twice, once here and again against the result, moved `sub/` to `sub/sub/`.
 * The `<base>` comes from the document's one scan (document-scan.ts), which the metadata reuses.
 */
export function documentBaseUrl(doc: Document, pageUrl: string): string {
  const href = scanDocument(doc).baseHref;
  return (href && absoluteUrl(href, pageUrl)) || pageUrl;
}
