/**
 * @module pipeline/unwrapped
 * Elements of a tag the `html` format removes (pipeline/clean.ts) whose content a browser shows all the same: a
 * declarative shadow root's `<template>` and a `<noscript>` that is the page's JavaScript-free rendering. They are
 * written, and scored for main content, as ordinary blocks with their tag left out.
 */
import { measure } from "./main-content/features.ts";

/**
 * A `<noscript>` with at least this much text, on a page whose other visible text is smaller, is the page's
 * JavaScript-free rendering (Discourse, some SPAs): without JavaScript, which is how we fetch, that *is* the page.
 */
const NOSCRIPT_FALLBACK_MIN_CHARS = 400;

/** Values of `shadowrootmode` (and of the older `shadowroot`) that make a `<template>` a declarative shadow root. */
const SHADOW_ROOT_MODES = new Set(["open", "closed"]);

/**
 * Elements of a removed tag whose content a browser shows, written (and scored) as ordinary blocks:
 * - a `<template shadowrootmode="open|closed">` (or the older `shadowroot`), a declarative shadow root: a browser
 *   renders its content as the host's (Lit and other SSR put a component's whole text there). The host's light DOM
 *   children are kept too, in place, though a browser shows only the ones a `<slot>` takes;
 * - `<noscript>` elements that hold the page's content; see {@link NOSCRIPT_FALLBACK_MIN_CHARS}.
 * Both are found in one walk of the body: a second one cost as much as the first (about 10% of cleanHtml's time).
 * linkedom's querySelectorAll does not look inside a `<template>` (nor does a browser's), so a shadow root's own
 * content is walked in turn: components nest, each with its shadow root (MDN's pages).
 */
export function unwrappedElements(body: Element): Set<Element> {
  const shadowRoots = new Set<Element>();
  const noscripts: Element[] = [];
  const roots: Element[] = [body];
  for (let root = roots.pop(); root; root = roots.pop()) {
    for (const el of Array.from(root.querySelectorAll("noscript, template"))) {
      if (el.localName === "noscript") noscripts.push(el);
      else if (isShadowRootTemplate(el)) {
        shadowRoots.add(el);
        roots.push(el);
      }
    }
  }
  const found = new Set<Element>();
  let noscriptChars = 0;
  for (const el of noscripts) {
    const chars = (el.textContent ?? "").replace(/\s+/g, "").length;
    if (chars >= NOSCRIPT_FALLBACK_MIN_CHARS) {
      found.add(el);
      noscriptChars += chars;
    }
  }
  if (found.size > 0) {
    const visible = measure(body, undefined, shadowRoots).get(body)?.chars ?? 0;
    if (visible >= noscriptChars) found.clear();
  }
  for (const el of shadowRoots) found.add(el);
  return found;
}

function isShadowRootTemplate(template: Element): boolean {
  const mode = template.getAttribute("shadowrootmode") ?? template.getAttribute("shadowroot");
  return mode !== null && SHADOW_ROOT_MODES.has(mode.trim().toLowerCase());
}

