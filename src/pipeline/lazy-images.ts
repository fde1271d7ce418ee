/**
 * @module pipeline/lazy-images
 * Where a lazy-loaded image keeps its real URL. Lazy-loading scripts leave `src` empty or a tiny `data:`
 * placeholder and put the picture in a `data-*` attribute that their JavaScript copies over on scroll; crawlbox
 * reads the page without that script, so the `html` and `markdown` formats (clean.ts) and the `images` format
 * (links.ts) both take the URL from these attributes, in this order of precedence.
 */

/** Attributes lazy-loading libraries keep an image's URL in (lazysizes, jQuery Lazy, lozad, WordPress plugins…). */
export const LAZY_SRC_ATTRIBUTES: readonly string[] = ["data-src", "data-lazy-src", "data-original", "data-lazy", "data-url"];

/** A `data:` source shorter than this is a lazy-loading stand-in (a 1×1 GIF, a blurred SVG), not the image. */
export const PLACEHOLDER_DATA_URI_MAX = 400;

/** The URL an `<img>` shows once its lazy loader has run: its `src`, unless that is empty or a placeholder. */
export function imageSource(el: Element): string | null {
  const src = el.getAttribute("src");
  if (src && !(src.startsWith("data:") && src.length < PLACEHOLDER_DATA_URI_MAX)) return src;
  for (const name of LAZY_SRC_ATTRIBUTES) {
    const lazy = el.getAttribute(name);
    if (lazy && !lazy.startsWith("data:")) return lazy;
  }
  return src;
}
