/**
 * @module pipeline/depth-limit
 * Bounds how deeply a parsed page's elements nest. Every later stage walks the tree, several of them recursively
 * (the main-content pruner, node-html-markdown's visitor): a page of 15,000 nested `<div>`s (165 KB) overflowed the
 * call stack and answered a 500, and deeper ones took a gigabyte. Real pages nest about a hundred levels at most
 * (114 over the article-extraction set); an element at {@link MAX_DOM_DEPTH} keeps its text but loses the markup
 * below it. The check is one iterative walk, ~0.01 ms on an article page.
 */

/** Deepest element nesting kept: below an element this deep, only text remains. */
export const MAX_DOM_DEPTH = 256;

/** Flattens every element at `maxDepth` under `root` to its text; returns how many were flattened. */
export function limitDepth(root: Element, maxDepth = MAX_DOM_DEPTH): number {
  let flattened = 0;
  let depth = 0;
  let el: Element | null = root;
  while (el) {
    let child: Element | null = el.firstElementChild;
    if (child && depth >= maxDepth) {
      // Its text, in document order, without the nested markup (textContent is read without recursion).
      el.textContent = el.textContent;
      flattened++;
      child = null;
    }
    if (child) {
      el = child;
      depth++;
      continue;
    }
    while (el && el !== root && !el.nextElementSibling) {
      el = el.parentElement;
      depth--;
    }
    el = el && el !== root ? el.nextElementSibling : null;
  }
  return flattened;
}
