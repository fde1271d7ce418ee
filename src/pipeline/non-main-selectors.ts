/**
 * @module pipeline/non-main-selectors
 * Upstream's list of page furniture (`excludeNonMainTags`, api-v2.md §2.2): what `onlyMainContent` removes from the
 * elements `includeTags` kept. Without `includeTags` crawlbox finds the main content with its scorer (main-content/)
 * instead; with them the caller already chose the content, and upstream still strips this furniture inside it, so a
 * `includeTags: ["article"]` answer carried the article's share bar, breadcrumbs and footer where upstream's did not.
 */

/** Elements that are furniture, not content, wherever they sit. */
export const NON_MAIN_SELECTORS: readonly string[] = [
  "header", "footer", "nav", "aside", ".header", ".top", ".navbar", "#header", ".footer", ".bottom", "#footer",
  ".sidebar", ".side", ".aside", "#sidebar", ".modal", ".popup", "#modal", ".overlay", ".ad", ".ads", ".advert", "#ad",
  ".lang-selector", ".language", "#language-selector", ".social", ".social-media", ".social-links", "#social", ".menu",
  ".navigation", "#nav", ".breadcrumbs", "#breadcrumbs", "#search-form", ".search", "#search", ".share", "#share",
  ".widget", "#widget", ".cookie", "#cookie",
];

/** An element holding one of these is kept whatever it matched above (upstream's `forceIncludeMainTags`). */
export const FORCE_MAIN_SELECTOR = "#main";

/**
 * The furniture inside `roots` (never a root itself: the caller asked for it by name), minus elements that hold
 * {@link FORCE_MAIN_SELECTOR}.
 */
export function furnitureInside(roots: readonly Element[]): Element[] {
  const selector = NON_MAIN_SELECTORS.join(",");
  const found: Element[] = [];
  for (const root of roots) {
    for (const el of root.querySelectorAll(selector)) if (!el.querySelector(FORCE_MAIN_SELECTOR)) found.push(el);
  }
  return found;
}
