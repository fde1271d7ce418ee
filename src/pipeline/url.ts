/**
 * @module pipeline/url
 * URL helpers shared by the DOM stages. A page's relative links resolve against `<base href>` when it has one
 * (HTML §4.2.3), otherwise against the URL the page was finally served from.
 */

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

/** Base URLs already worked out, per document and page URL: every DOM stage of a scrape asks for the same one. */
const bases = new WeakMap<Document, { pageUrl: string; base: string }>();

/**
 * The base URL for resolving a document's links (HTML §2.4.1 "document base URL"): the `href` of the first
 * `<base>` element that has one, in tree order, resolved against `pageUrl`; `pageUrl` when there is none or it
 * cannot be parsed (an empty `href` also means `pageUrl`). Every stage (links, images, metadata, the `html` and
 * `markdown` formats) must use this one answer: resolving a relative `<base href>` twice, once here and again
 * against the result, moved `sub/` to `sub/sub/`.
 *
 * `<base>` belongs in `<head>`, where a selector finds it cheaply; browsers also honour one in `<body>`, so when
 * the head has none the body is walked (a plain tree walk; a selector would run the CSS engine on every element).
 * Memoised per document, so it must be asked before a stage removes `<base>` elements (cleaning does).
 */
export function documentBaseUrl(doc: Document, pageUrl: string): string {
  const known = bases.get(doc);
  if (known && known.pageUrl === pageUrl) return known.base;
  const href = firstBaseHref(doc);
  const base = (href && absoluteUrl(href, pageUrl)) || pageUrl;
  bases.set(doc, { pageUrl, base });
  return base;
}

/** The `href` of the first `<base href>` in tree order, or undefined. */
function firstBaseHref(doc: Document): string | undefined {
  const inHead = doc.head?.querySelector("base[href]");
  if (inHead) return inHead.getAttribute("href") ?? undefined;
  const root = doc.body ?? doc.documentElement;
  if (!root) return undefined;
  for (const el of Array.from(root.getElementsByTagName("base"))) {
    const href = el.getAttribute("href");
    if (href !== null) return href;
  }
  return undefined;
}
