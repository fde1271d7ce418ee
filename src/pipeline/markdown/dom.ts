/**
 * @module pipeline/markdown/dom
 * The few DOM reads the markdown translators need, typed structurally so that they work on the node-html-parser
 * nodes node-html-markdown hands them without importing that library's classes.
 */

/** The subset of a parsed node (element or text) that the translators read. */
export interface MarkdownNode {
  nodeType: number;
  /** Upper case, as node-html-parser reports it; absent on text nodes. */
  tagName?: string;
  parentNode?: MarkdownNode | null;
  childNodes: MarkdownNode[];
  /** Undecoded text of a text node: cheaper to peek at than the decoded `textContent`. */
  rawText?: string;
  textContent: string;
  getAttribute?(name: string): string | undefined | null;
}

/** `Node.ELEMENT_NODE`. */
export const ELEMENT_NODE = 1;
/** `Node.TEXT_NODE`. */
export const TEXT_NODE = 3;

/**
 * Elements that start a new line in the markdown: text on either side of them is not adjacent, so emphasis next to
 * them is never intraword. node-html-markdown's block elements plus the extras crawlbox adds, and `<br>`.
 */
export const BLOCK_TAGS: ReadonlySet<string> = new Set([
  "ADDRESS", "ARTICLE", "ASIDE", "AUDIO", "BLOCKQUOTE", "BODY", "BR", "CANVAS", "CENTER", "DD", "DETAILS", "DIALOG",
  "DIR", "DIV", "DL", "DT", "FIELDSET", "FIGCAPTION", "FIGURE", "FOOTER", "FORM", "FRAMESET", "H1", "H2", "H3", "H4",
  "H5", "H6", "HEADER", "HGROUP", "HR", "HTML", "LI", "MAIN", "MENU", "NAV", "OL", "OUTPUT", "P", "PRE", "SECTION",
  "SUMMARY", "TABLE", "TBODY", "TD", "TFOOT", "TH", "THEAD", "TR", "UL",
]);

/**
 * Each parent's children by position, built once per parent. node-html-parser's `nextSibling` scans the parent's
 * children on every call, which is quadratic on a paragraph of many `<b>` or `<em>` siblings.
 */
const childIndexes = new WeakMap<MarkdownNode, Map<MarkdownNode, number>>();

/**
 * The sibling `offset` places after (positive) or before (negative) `node`, or null.
 *
 * @param node - an element in a parsed tree
 * @param offset - +1 for the next sibling, -1 for the previous one
 */
export function siblingOf(node: MarkdownNode, offset: number): MarkdownNode | null {
  const parent = node.parentNode;
  if (!parent) return null;
  let indexes = childIndexes.get(parent);
  if (!indexes) {
    indexes = new Map(parent.childNodes.map((child, i) => [child, i]));
    childIndexes.set(parent, indexes);
  }
  const index = indexes.get(node);
  return index === undefined ? null : (parent.childNodes[index + offset] ?? null);
}

/** Text-level elements whose content is not shown, so it never touches emphasis next to them. */
const HIDDEN_TAGS: ReadonlySet<string> = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "SVG", "HEAD"]);
/** How deep the look-ahead descends into or climbs out of inline elements; the answer is nearly always at depth 1. */
const MAX_LOOKAHEAD_DEPTH = 6;

/**
 * The first character the converter will write for `node`: `" "` for whitespace, `"\n"` for a block, `""` when
 * it writes nothing. A text node that starts with a newline is written without its leading whitespace
 * (node-html-markdown trims it), so its first visible character is returned instead.
 */
function firstChar(node: MarkdownNode, depth: number): string {
  if (node.nodeType === TEXT_NODE) {
    const raw = node.rawText ?? node.textContent;
    if (!raw) return "";
    const visible = raw.charAt(0) === "\n" ? raw.trimStart() : raw;
    if (!visible || /^\s/.test(visible)) return " ";
    return visible.charAt(0) === "&" ? node.textContent.trimStart().charAt(0) : visible.charAt(0);
  }
  if (node.nodeType !== ELEMENT_NODE) return "";
  const tag = node.tagName ?? "";
  if (BLOCK_TAGS.has(tag)) return "\n";
  if (tag === "IMG") return "!";
  if (HIDDEN_TAGS.has(tag) || depth >= MAX_LOOKAHEAD_DEPTH) return "";
  for (const child of node.childNodes) {
    const c = firstChar(child, depth + 1);
    if (c) return c;
  }
  return "";
}

/**
 * The first character written after `node`: what decides whether a closing `**` or `_` right before it is
 * right-flanking (CommonMark 6.2). `""` means the end of the block.
 */
export function charAfter(node: MarkdownNode): string {
  let current = node;
  for (let depth = 0; depth < MAX_LOOKAHEAD_DEPTH; depth++) {
    for (let next = siblingOf(current, 1); next; next = siblingOf(next, 1)) {
      const c = firstChar(next, 0);
      if (c) return c;
    }
    const parent = current.parentNode;
    if (!parent || BLOCK_TAGS.has(parent.tagName ?? "")) return "";
    current = parent;
  }
  return "";
}
