/**
 * @module pipeline/document-scan
 * One walk over a parsed document that gathers the elements the page-level readers need: every `<meta>` and
 * `<link>`, the first `<title>`, and the first `<base>` with an `href` (its document base URL, pipeline/url.ts).
 * The base URL and the metadata of a scrape both read it, so a scrape walks the tree once for both instead of
 * once each. Memoised per document: ask before a stage removes elements (cleaning removes `<meta>`, `<link>`
 * and `<base>`); a scan taken earlier still describes the original tree.
 *
 * Subtrees of `<svg>`, `<script>`, `<style>` and `<template>` are skipped: an SVG `<title>` is not the page's, an
 * element named `base` inside SVG is not an HTML `<base>`, and a template's content is inert to a browser. A
 * `<base>` inside `<noscript>` does not count either: a browser with scripting on (the one a page's links are
 * written for) reads a noscript's content as text. Its `<meta>` and `<link>` tags are still reported, as upstream
 * reports them.
 */

/** What {@link scanDocument} found, in tree order. */
export interface DocumentScan {
  metas: Element[];
  links: Element[];
  title?: Element;
  /** The `href` attribute of the first `<base>` that has one (possibly empty). */
  baseHref?: string;
}

const scans = new WeakMap<Document, DocumentScan>();

/** The scan of `doc`, walking it on the first call only. */
export function scanDocument(doc: Document): DocumentScan {
  let scan = scans.get(doc);
  if (!scan) scans.set(doc, (scan = walk(doc)));
  return scan;
}

/** Depth-first, in document order (children pushed last-first); cheaper than one selector per element kind. */
function walk(doc: Document): DocumentScan {
  const scan: DocumentScan = { metas: [], links: [] };
  const stack: Element[] = doc.documentElement ? [doc.documentElement] : [];
  // Elements below a <noscript>: pushed after this marker's position, so `stack.length > noscriptFloor` says so.
  let noscriptFloor = Infinity;
  while (stack.length > 0) {
    if (stack.length <= noscriptFloor) noscriptFloor = Infinity;
    const el = stack.pop()!;
    const tag = el.localName;
    if (tag === "meta") scan.metas.push(el);
    else if (tag === "link") scan.links.push(el);
    else if (tag === "title") scan.title ??= el;
    else if (tag === "base") {
      if (scan.baseHref === undefined && noscriptFloor === Infinity) {
        const href = el.getAttribute("href");
        if (href !== null) scan.baseHref = href;
      }
    } else if (tag === "svg" || tag === "script" || tag === "style" || tag === "template") continue;
    else if (tag === "noscript" && noscriptFloor === Infinity) noscriptFloor = stack.length;
    for (let c = el.lastElementChild; c; c = c.previousElementSibling) stack.push(c);
  }
  return scan;
}
