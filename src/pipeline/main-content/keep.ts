/**
 * @module pipeline/main-content/keep
 * Link-bearing blocks inside the selected content that are content, not boilerplate, although their links make
 * their value negative (`LINK_PENALTY` in `score.ts`): a sentence with links in it, a list of links that is a
 * section of the article, a post's author link in a thread.
 *
 * Upstream's main-content mode only strips chrome (navigation, header, footer, asides, ads), so it keeps these;
 * dropping them left docs pages, READMEs and "awesome" lists with empty sections. Each rule looks at where the
 * block stands as well as at the block, because link boilerplate has the same text shape: a related-links box,
 * a tag cloud or a share bar sits in its own wrapper (dropped whole before its children are looked at) or after
 * the article's last paragraph, not under a heading of the article's outline or inside a sentence.
 */
import type { ElementStats } from "./features.ts";
import { NON_CONTENT_TAGS } from "./features.ts";
import { Region } from "./hints.ts";

/** Words of a sentence's own text (outside links): "Binaries are on … and …." has four. */
const SENTENCE_MIN_WORDS = 4;
/** Only short blocks are read word by word; a longer link-heavy block is a link list, not a sentence. */
const SENTENCE_MAX_CHARS = 400;
/** A post's author line holds a name or two, not a bio. */
const BYLINE_MAX_CHARS = 40;

/** Class or id of a post's author line (the `author` and `byline` tokens make it chrome in `hints.ts`). */
const BYLINE_NAME_RE = /author|byline|poster|user/i;
/** Elements that are items of a run without a class (a thread as `<article>`s, list items or table rows). */
const REPEATED_ITEM_TAGS = new Set(["article", "li", "tr"]);
const HEADINGS = new Set(["h1", "h2", "h3", "h4", "h5", "h6"]);
/** Elements that wrap a heading with a permalink or an icon (not a list item whose text is a heading). */
const HEADING_WRAPPERS = new Set(["div", "header", "hgroup"]);
const LISTS = new Set(["ul", "ol", "dl"]);
/** Elements that start a new block: a sentence holds none of them. */
const BLOCKS_IN_SENTENCE = new Set(["p", "div", "ul", "ol", "li", "dl", "table", "section", "article", "pre", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "br"]);
const SENTENCE_END_RE = /[.!?\u2026\u3002\uff01\uff1f]["'\u2019\u201d)\]]*$/;
const WORD_RE = /[\p{L}\p{N}]+/gu;

/** What the keep rules need to know about the pruning in progress. */
export interface KeepContext {
  /** The selected element: a post is looked for inside it only. */
  root: Element;
  stats: Map<Element, ElementStats>;
  drop: Set<Element>;
}

/**
 * A sentence with links in it: at least {@link SENTENCE_MIN_WORDS} words of its own and a full stop outside the
 * links ("Download it from the downloads page, GitHub or a mirror."). Menus, tag clouds and share bars have
 * one word of their own at most ("Tags:", "Share") and no full stop after a link. Sign-offs read as sentences
 * too ("Follow us on Facebook, Twitter and Instagram."): the caller also looks at where the block stands.
 */
export function isLinkedSentence(el: Element, s: ElementStats): boolean {
  if (s.chars > SENTENCE_MAX_CHARS || LISTS.has(el.localName)) return false;
  const text = { own: "", last: "", lastInLink: false, block: false };
  readInline(el, false, text);
  if (text.block) return false;
  const words = text.own.match(WORD_RE)?.length ?? 0;
  return words >= SENTENCE_MIN_WORDS && !text.lastInLink && SENTENCE_END_RE.test(text.last.trimEnd());
}

function readInline(el: Element, inLink: boolean, into: { own: string; last: string; lastInLink: boolean; block: boolean }): void {
  for (let node = el.firstChild; node && !into.block; node = node.nextSibling) {
    if (node.nodeType === 3) {
      const data = (node as Text).data;
      if (!data.trim()) continue;
      if (!inLink) into.own += ` ${data}`;
      into.last = data;
      into.lastInLink = inLink;
    } else if (node.nodeType === 1) {
      const child = node as Element;
      const tag = child.localName;
      if (NON_CONTENT_TAGS.has(tag)) continue;
      if (BLOCKS_IN_SENTENCE.has(tag)) into.block = true;
      else readInline(child, inLink || (tag === "a" && child.hasAttribute("href")) || tag === "button", into);
    }
  }
}

/**
 * A list that is a whole section of the article: it follows a heading (its nearest sibling with text before it),
 * and the next sibling with text is another heading or there is none, so without the list the heading's section
 * would be empty ("## Client libraries" over a list of links). A related-links box with its own heading is a
 * wrapper of both, dropped whole before its children are looked at; a paragraph of links under a heading
 * ("Helpful links:") is not a list and is judged as a sentence.
 */
export function isSectionList(el: Element, ctx: KeepContext): boolean {
  if (!LISTS.has(el.localName)) return false;
  const before = textSibling(el, ctx, "previousElementSibling");
  if (!before || ctx.drop.has(before)) return false;
  const heading = headingIn(before, ctx.stats);
  if (!heading) return false;
  const hs = ctx.stats.get(heading)!;
  if (hs.linkChars * 2 > hs.chars) return false;
  const after = textSibling(el, ctx, "nextElementSibling");
  return (!after || headingIn(after, ctx.stats) !== null) && isListOfLinks(el, ctx.stats);
}

/**
 * `el` if it is a heading, or the heading child that holds all the text of a wrapper (GitHub wraps each README
 * heading in `<div class="markdown-heading">` beside a permalink anchor).
 */
function headingIn(el: Element, stats: Map<Element, ElementStats>): Element | null {
  if (HEADINGS.has(el.localName)) return el;
  if (!HEADING_WRAPPERS.has(el.localName)) return null;
  const chars = stats.get(el)?.chars;
  for (let child = el.firstElementChild; child; child = child.nextElementSibling) {
    if (HEADINGS.has(child.localName)) return stats.get(child)?.chars === chars ? child : null;
  }
  return null;
}

/** Whether every item of a list that has text holds a link (not a byline's "by …", handle and date). */
function isListOfLinks(list: Element, stats: Map<Element, ElementStats>): boolean {
  let items = 0;
  for (let item = list.firstElementChild; item; item = item.nextElementSibling) {
    const s = stats.get(item);
    if (!s || s.chars === 0 || s.region === Region.Hidden) continue;
    if (s.linkChars === 0) return false;
    items++;
  }
  return items > 0;
}

function textSibling(el: Element, ctx: KeepContext, side: "previousElementSibling" | "nextElementSibling"): Element | null {
  for (let sib = el[side]; sib; sib = sib[side]) {
    const s = ctx.stats.get(sib);
    if (s && s.chars > 0 && s.region !== Region.Hidden) return sib;
  }
  return null;
}

/**
 * A post's author line in a thread: a short block of links ("alice") named as chrome by its `author`/`byline`
 * class, inside an element repeated beside it (the posts of a forum thread or a comment list kept as content).
 * The repeated element must hold content of its own (a post's text), not be one item of a byline list. An
 * article's own byline or author box has no such ancestor and still goes, as the article benchmarks' ground truth
 * wants.
 */
export function isPostByline(el: Element, s: ElementStats, ctx: KeepContext): boolean {
  if (s.chars > BYLINE_MAX_CHARS || s.linkChars === 0 || s.region !== Region.Chrome) return false;
  if (!BYLINE_NAME_RE.test(`${el.getAttribute("class") ?? ""} ${el.getAttribute("id") ?? ""}`)) return false;
  for (let at = el.parentElement; at && at !== ctx.root; at = at.parentElement) {
    if (isPost(at, ctx.stats)) return true;
  }
  return false;
}

/**
 * Whether `el` is one of a run of siblings with the same tag and class that each hold content (the posts of a
 * thread), not one of a run of layout boxes (`row`, `col`) of which only one holds the article.
 */
function isPost(el: Element, stats: Map<Element, ElementStats>): boolean {
  const cls = el.getAttribute("class") ?? "";
  // Unnamed divs and paragraphs repeat everywhere; a post is named, or an item element.
  if (!cls.trim() && !REPEATED_ITEM_TAGS.has(el.localName)) return false;
  if (!((stats.get(el)?.pos ?? 0) > 0)) return false;
  const post = (sib: Element | null) =>
    sib !== null && sib.localName === el.localName && (sib.getAttribute("class") ?? "") === cls && (stats.get(sib)?.pos ?? 0) > 0;
  return post(el.previousElementSibling) || post(el.nextElementSibling);
}
