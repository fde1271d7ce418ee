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
 * Schemes a `<base href>` may not set: the HTML standard's "set the frozen base URL" step 3 falls back to the
 * document's own URL when the parsed href's scheme is `data` or `javascript`, as Chromium does (its
 * `document.baseURI` stays the page's URL). Honouring them resolved every relative link against an opaque URL,
 * which fails, and emptied `links` and `images` (a crawl found nothing to follow).
 */
const REFUSED_BASE_SCHEMES: ReadonlySet<string> = new Set(["data:", "javascript:"]);

/**
 * The base URL for resolving a document's links (HTML §2.4.1 "document base URL"): the frozen base URL of the first
 * `<base>` element that has an `href`, in tree order (normally in `<head>`; browsers honour one in `<body>` too):
 * its `href` resolved against `pageUrl`, or `pageUrl` itself when that cannot be parsed, is empty, or has a `data:`
 * or `javascript:` scheme ({@link REFUSED_BASE_SCHEMES}; a later `<base>` is not consulted, as the standard says);
 * `pageUrl` when there is none. Every stage (links, images, metadata, the `html` and `markdown` formats) must use
 * this one answer: resolving a relative `<base href>` twice, once here and again against the result, moved `sub/`
 * to `sub/sub/`. The `<base>` comes from the document's one scan (document-scan.ts), which the metadata reuses.
 * The standard's Content-Security-Policy `base-uri` check ("Is base allowed for Document?") is not applied.
 * @see https://html.spec.whatwg.org/multipage/semantics.html#set-the-frozen-base-url
 */
export function documentBaseUrl(doc: Document, pageUrl: string): string {
  const href = scanDocument(doc).baseHref;
  const frozen = href === undefined ? undefined : absoluteUrl(href, pageUrl);
  if (frozen === undefined || REFUSED_BASE_SCHEMES.has(new URL(frozen).protocol)) return pageUrl;
  return frozen;
}
