/**
 * @module pipeline/links
 * The `links` and `images` formats: every link or image of the page, absolute and deduplicated (a URL keeps its first
 * place). Links are in document order. Images are grouped by kind, each kind in document order: every `<img>` (its
 * `src`, lazy-loading copies, then `srcset` candidates), then `<picture>` sources, video posters, and last the share
 * images (og:image, twitter:image and their variants). Upstream gives no order at all (its html-transformer collects images into a hash set; its
 * cheerio fallback groups them by kind, as here), so this fixed one is kept. Links keep http(s) and mailto targets
 * (as upstream); `javascript:` and same-page `#fragment` links are dropped because a client cannot follow them.
 * Links inside `<iframe src="data:text/html,…">` documents count as the page's (upstream's crawler follows them
 * too), at the iframe's place, resolved against the page's base; such a document is read up to
 * {@link MAX_DATA_IFRAME_CHARS}, and an iframe inside it is not.
 */
import { parseHtml } from "./parse.ts";
import { isLazyUrl, LAZY_SRC_ATTRIBUTES, LAZY_SRCSET_ATTRIBUTES } from "./lazy-images.ts";
import { srcsetUrls } from "./srcset.ts";
import { absoluteUrl } from "./url.ts";

/** Characters of a `data:text/html` iframe's document read for links. */
export const MAX_DATA_IFRAME_CHARS = 1_000_000;

/** The HTML of a `data:text/html[;charset=…][;base64],…` URL; undefined for another type, or one too large. */
export function dataHtml(src: string): string | undefined {
  const m = /^data:text\/html((?:;[^,]*)?),(.*)$/is.exec(src.trim());
  if (!m) return undefined;
  const payload = m[2]!;
  if (payload.length > MAX_DATA_IFRAME_CHARS * 2) return undefined;
  try {
    const html = /;base64/i.test(m[1]!) ? Buffer.from(payload, "base64").toString("utf8") : decodeURIComponent(payload);
    return html.length <= MAX_DATA_IFRAME_CHARS ? html : undefined;
  } catch {
    return undefined; // a malformed percent-escape: nothing to read
  }
}

/** Absolute, deduplicated link targets of `doc` (and of its `data:text/html` iframes, unless `nested`). */
export function extractLinks(doc: Document, baseUrl: string, nested = false): string[] {
  const out = new Set<string>();
  for (const a of doc.querySelectorAll("a[href], area[href], iframe[src]")) {
    if (a.tagName === "IFRAME") {
      const html = nested ? undefined : dataHtml(a.getAttribute("src") ?? "");
      if (html !== undefined) for (const link of extractLinks(parseHtml(html), baseUrl, true)) out.add(link);
      continue;
    }
    const href = (a.getAttribute("href") ?? "").trim();
    if (href === "" || href.startsWith("#")) continue;
    if (/^mailto:/i.test(href)) {
      // Line breaks and other controls inside an href are dropped, as a browser drops them from a URL.
      out.add(href.replace(/[\x00-\x1f\x7f]/g, ""));
      continue;
    }
    const abs = absoluteUrl(href, baseUrl);
    if (abs && /^https?:/i.test(abs)) out.add(withoutCredentials(abs, baseUrl));
  }
  return [...out];
}

/**
 * A link without the `user:password@` a page wrote into it (as upstream lists links): a page's credentials are not
 * handed on to a client, nor sent by a crawl that follows the link. Those of the URL the user asked for (and that
 * relative links inherit from it, an intranet crawled with its basic-auth credentials) stay.
 */
function withoutCredentials(url: string, baseUrl: string): string {
  if (!url.includes("@")) return url;
  const u = new URL(url);
  if (!u.username && !u.password) return url;
  const base = URL.parse(baseUrl);
  if (base && base.host === u.host && base.username === u.username && base.password === u.password) return url;
  u.username = "";
  u.password = "";
  return u.href;
}

/** A `data:` URL, the scheme in any case. */
const DATA_URL_RE = /^data:/i;

/** `<meta>` elements naming a page's share image: Open Graph, Twitter and schema.org. */
const SHARE_IMAGE_METAS =
  'meta[property="og:image"], meta[property="og:image:secure_url"], meta[property="og:image:url"], meta[name="twitter:image"], ' +
  'meta[property="twitter:image"], meta[name="twitter:image:src"], meta[itemprop="image"]';

/**
 * Absolute, deduplicated image URLs of `doc`, in this order (see the module's comment): img src, srcset and their
 * lazy-loading copies (data-src, data-srcset…), picture sources (srcset or data-srcset), video posters, and the share
 * images (og:image and its secure_url/url, twitter:image and twitter:image:src, itemprop=image).
 */
export function extractImages(doc: Document, baseUrl: string, includeDataUrls: boolean): string[] {
  const out = new Set<string>();
  const push = (raw: string | null | undefined) => {
    if (!raw) return;
    const v = raw.trim();
    // `src="#"` (a placeholder) is the page itself, not an image.
    if (v === "" || v.startsWith("#")) return;
    // A scheme is case-insensitive: `DATA:IMAGE/PNG;…` is a data URL too (URL parsing made it no http(s) image).
    if (DATA_URL_RE.test(v)) {
      if (includeDataUrls) out.add(v);
      return;
    }
    const abs = absoluteUrl(v, baseUrl);
    if (abs && /^https?:/i.test(abs)) out.add(abs);
  };
  // An element's `srcset` and the lazy loaders' copies of it (`data-srcset`, `data-lazy-srcset`; lazy-images.ts).
  const pushSrcsets = (el: Element) => {
    for (const name of ["srcset", ...LAZY_SRCSET_ATTRIBUTES]) {
      const srcset = el.getAttribute(name);
      if (srcset) for (const u of srcsetUrls(srcset)) push(u);
    }
  };
  for (const img of doc.querySelectorAll("img")) {
    push(img.getAttribute("src"));
    // Every lazy-loading attribute, as the html format resolves them (lazy-images.ts): `data-src` alone missed
    // `data-lazy-src` and `data-original`, which the html of the same scrape showed as the image's src.
    for (const name of LAZY_SRC_ATTRIBUTES) {
      const lazy = img.getAttribute(name)?.trim();
      if (lazy && isLazyUrl(lazy)) push(lazy);
    }
    pushSrcsets(img);
  }
  // lazysizes' `<picture><source data-srcset>` as well as `srcset`: the html format shows both as the source's srcset.
  for (const source of doc.querySelectorAll("picture source")) pushSrcsets(source);
  for (const video of doc.querySelectorAll("video[poster]")) push(video.getAttribute("poster"));
  // The page's share images under every name upstream reads (Shopify writes og:image:secure_url, schema.org itemprop).
  for (const m of doc.querySelectorAll(SHARE_IMAGE_METAS)) push(m.getAttribute("content"));
  return [...out];
}
