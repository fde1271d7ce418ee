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

/**
 * The base URL for resolving a document's links: its `<base href>` resolved against `pageUrl`, or `pageUrl`.
 * `<base>` belongs in `<head>` (HTML §4.2.3) and `parseHtml` always builds one, so only the head is searched:
 * a selector over the whole tree costs as much as the rest of the metadata.
 */
export function documentBaseUrl(doc: Document, pageUrl: string): string {
  const base = (doc.head ?? doc).querySelector("base[href]")?.getAttribute("href");
  return (base && absoluteUrl(base, pageUrl)) || pageUrl;
}
