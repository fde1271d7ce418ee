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

/** Elements whose content is not text a reader sees: left out of a flattened element (textContent kept scripts). */
const HIDDEN = new Set(["script", "style", "template", "noscript", "head", "title"]);

/**
 * The text of `el` as a reader sees it, read iteratively: text nodes in document order, the content of
 * {@link HIDDEN} elements left out, a space where an element starts (blocks would run together otherwise).
 */
function visibleText(el: Element): string {
  const out: string[] = [];
  let node: Node | null = el.firstChild;
  while (node) {
    let next: Node | null = null;
    if (node.nodeType === 3) out.push((node as Text).data);
    else if (node.nodeType === 1 && !HIDDEN.has((node as Element).localName)) {
      out.push(" ");
      next = node.firstChild;
    }
    if (!next) {
      while (node && node !== el && !node.nextSibling) node = node.parentNode;
      next = node && node !== el ? node.nextSibling : null;
    }
    node = next;
  }
  return out.join("").replace(/\s+/g, " ").trim();
}

/** Flattens every element at `maxDepth` under `root` to its text; returns how many were flattened. */
export function limitDepth(root: Element, maxDepth = MAX_DOM_DEPTH): number {
  let flattened = 0;
  let depth = 0;
  let el: Element | null = root;
  while (el) {
    let child: Element | null = el.firstElementChild;
    if (child && depth >= maxDepth) {
      // Its text, in document order, without the nested markup.
      el.textContent = visibleText(el);
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
