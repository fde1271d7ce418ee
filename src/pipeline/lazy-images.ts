/**
 * @module pipeline/lazy-images
 * Where a lazy-loaded image keeps its real URL. Lazy-loading scripts leave `src` (or `srcset`) empty or a tiny
 * `data:` placeholder and put the picture in a `data-*` attribute that their JavaScript copies over on scroll;
 * crawlbox reads the page without that script, so the `html` and `markdown` formats (clean.ts) and the `images`
 * format (links.ts) all take the URL from these attributes, in this order of precedence. lazysizes, the most used
 * of them, keeps responsive images in `data-srcset` (`<img data-srcset>`, `<picture><source data-srcset>`), which
 * it copies to `srcset`; an `<img>` with only that attribute has no `src` at all.
 */
import { parseSrcset } from "./srcset.ts";

/** Attributes lazy-loading libraries keep an image's URL in (lazysizes, jQuery Lazy, lozad, WordPress plugins…). */
export const LAZY_SRC_ATTRIBUTES: readonly string[] = ["data-src", "data-lazy-src", "data-original", "data-lazy", "data-url"];

/** Attributes lazy-loading libraries keep an image's `srcset` in (lazysizes, WP Rocket and other WordPress plugins). */
export const LAZY_SRCSET_ATTRIBUTES: readonly string[] = ["data-srcset", "data-lazy-srcset"];

/**
 * Whether a lazy `src` attribute's value is a URL: sites reuse `data-src` for other things (MSN's JSON
 * `{"default":"//img…"}`, a widget's `data-src="Facebook"`), which resolved into garbage image URLs. A URL has no
 * whitespace, quotes or braces, and has a `/` or a `.` (a path, a host, a file name).
 */
export function isLazyUrl(value: string): boolean {
  return !/[\s{}"'<>]/.test(value) && /[./]/.test(value);
}

/** A `data:` source shorter than this is a lazy-loading stand-in (a 1×1 GIF, a blurred SVG), not the image. */
export const PLACEHOLDER_DATA_URI_MAX = 400;

/** Whether every candidate of `srcset` is a `data:` URL (lazysizes' `srcset="data:image/gif;…"` stand-in). */
function placeholderSrcset(srcset: string): boolean {
  return parseSrcset(srcset).every((c) => c.url.startsWith("data:"));
}

/**
 * The `srcset` an `<img>` or `<source>` shows once its lazy loader has run, when it differs from its own: the first
 * lazy srcset attribute holding a URL, if the element's `srcset` is absent or only `data:` stand-ins; else null.
 */
export function lazySrcset(el: Element): string | null {
  const own = el.getAttribute("srcset");
  if (own !== null && own.trim() !== "" && !placeholderSrcset(own)) return null;
  for (const name of LAZY_SRCSET_ATTRIBUTES) {
    const lazy = el.getAttribute(name);
    if (lazy && !placeholderSrcset(lazy)) return lazy;
  }
  return null;
}

/**
 * The largest candidate of `srcset` that is not a `data:` URL: the widest (`640w`) or densest (`2x`, no descriptor
 * = `1x`), the first of equals; undefined when there is none. As upstream, which sets an image's `src` to its
 * biggest `srcset` candidate: the document is read, not displayed on a small screen.
 */
export function largestCandidate(srcset: string): string | undefined {
  let best: string | undefined;
  let bestSize = -Infinity;
  for (const { url, descriptors } of parseSrcset(srcset)) {
    if (url === "" || url.startsWith("data:")) continue;
    const size = Number.parseFloat(descriptors.find((d) => /^\d*\.?\d+[wx]$/i.test(d)) ?? "1x");
    if (size > bestSize) {
      best = url;
      bestSize = size;
    }
  }
  return best;
}

/** The largest real candidate of the `srcset` (or lazy `srcset`) an `<img>` or `<source>` shows, if any. */
function srcsetSource(el: Element): string | undefined {
  const srcset = lazySrcset(el) ?? el.getAttribute("srcset");
  return srcset ? largestCandidate(srcset) : undefined;
}

/**
 * The URL an `<img>` shows once its lazy loader has run: its `src`, unless that is empty or a placeholder; then a
 * lazy `src` attribute; then the largest candidate of its (lazy) `srcset`; then, in a `<picture>`, of the first
 * `<source>` that has one. Else the `src` as written (possibly null). An `<img srcset>` without `src` is valid HTML
 * (the browser picks a candidate), and so is a `<picture>` whose `<img>` has none: such images were left without
 * a URL, their alt text alone in the markdown.
 */
export function imageSource(el: Element): string | null {
  const src = el.getAttribute("src");
  if (src && !(src.startsWith("data:") && src.length < PLACEHOLDER_DATA_URI_MAX)) return src;
  for (const name of LAZY_SRC_ATTRIBUTES) {
    const lazy = el.getAttribute(name)?.trim();
    if (lazy && !lazy.startsWith("data:") && isLazyUrl(lazy)) return lazy;
  }
  const own = srcsetSource(el);
  if (own) return own;
  const picture = el.parentElement;
  if (picture?.localName === "picture") {
    // The first source without a `media` condition (what a desktop browser shows), else the first with a URL.
    let conditional: string | undefined;
    for (let sib = picture.firstElementChild; sib && sib !== el; sib = sib.nextElementSibling) {
      if (sib.localName !== "source") continue;
      const fromSource = srcsetSource(sib);
      if (!fromSource) continue;
      if (!sib.getAttribute("media")?.trim()) return fromSource;
      conditional ??= fromSource;
    }
    if (conditional) return conditional;
  }
  return src;
}
