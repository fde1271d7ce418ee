/**
 * @module pipeline/main-content/prune
 * What to leave out inside the selected main-content element: hidden nodes, page chrome, link lists, comment
 * threads, and blocks whose value says they are boilerplate (a lone "Share", a date stamp between two ads).
 *
 * Block values charge every block a fixed cost, so a short block is negative even when it is content: the items
 * of "Go / Rust / Zig", the sizes "S / M / L", a one-word paragraph. Upstream's main-content mode only strips
 * chrome and never loses such text, so a low value alone is not enough to drop a block that has no links; it must
 * also stand where boilerplate stands (at the edge of the content, not between its paragraphs). And a `<main>` or
 * `<article>` element is never dropped whole for being short: the page says it is the content, so only chrome and
 * hidden nodes are taken out of it, as upstream does.
 *
 * Links make a block's value negative too, yet some link-bearing blocks are content that upstream keeps: a sentence
 * with links between the article's paragraphs, a list of links that is a heading's whole section, a post's author
 * link in a thread. They are told apart from link boilerplate by where they stand (see `keep.ts`).
 */
import type { ElementStats } from "./features.ts";
import { Region } from "./hints.ts";
import { isLinkedSentence, isPostByline, isSectionList } from "./keep.ts";

/** A child whose net value is below this is pruned unless it holds real content. */
const PRUNE_NET_BELOW = -10;
/** Positive value that protects a net-negative child from pruning (its content is worth descending into). */
const PRUNE_KEEP_POS = 60;
/** Chrome regions inside the selection survive only when they hold at least this share of its value. */
const CHROME_KEEP_SHARE = 0.3;
/**
 * Containers inside prose whose text is more than this share link text are link lists (related stories,
 * teasers with excerpts, tag clouds) unless they hold most of the content.
 */
const MAX_LINK_DENSITY = 0.33;
/** …and such a container is kept anyway when it holds at least this share of the selection's value. */
const LINK_LIST_KEEP_SHARE = 0.5;
/** Link density is judged only on containers with at least this many characters (not a lone linked phrase). */
const LINK_DENSITY_MIN_CHARS = 40;

/** One way of valuing an element: positive and negative parts. */
export interface Reading {
  pos(s: ElementStats): number;
  neg(s: ElementStats): number;
}

export interface PruneContext {
  /** The selected element: neighbours are looked for inside it only. */
  root: Element;
  rootPos: number;
  stats: Map<Element, ElementStats>;
  drop: Set<Element>;
  dropComments: boolean;
  reading: Reading;
  /** Whether a prose block was selected; link lists are pruned only then. */
  prose: boolean;
}

/**
 * Collect into `ctx.drop` the descendants of `el` to leave out.
 *
 * @param keepLinkFree - never drop a link-free block for its low value: set under the listing reading (a listing
 *   block, or the body when no main block was found: no prose whose edges tell boilerplate apart) and below a
 *   block kept by the rules of this module (the items of a kept list are as short as the list)
 */
export function prune(el: Element, ctx: PruneContext, keepLinkFree: boolean): void {
  const { stats, drop, reading } = ctx;
  for (let child = el.firstElementChild; child; child = child.nextElementSibling) {
    const s = stats.get(child);
    if (!s) continue;
    if (s.region === Region.Hidden) {
      drop.add(child);
      continue;
    }
    if (s.chars === 0) continue;
    const pos = reading.pos(s);
    const lowValue = pos + reading.neg(s) < PRUNE_NET_BELOW && pos < PRUNE_KEEP_POS;
    if (lowValue && !isChrome(s) && isPageContent(child)) {
      pruneGentle(child, stats, drop);
    } else if (lowValue && !isChrome(s) && s.linkChars === 0 && (keepLinkFree || betweenContent(child, ctx))) {
      prune(child, ctx, true);
    } else if (
      lowValue ||
      (isChrome(s) && pos < CHROME_KEEP_SHARE * ctx.rootPos) ||
      (ctx.prose && isLinkList(child, s) && pos < LINK_LIST_KEEP_SHARE * ctx.rootPos)
    ) {
      if (isContentWithLinks(child, s, ctx)) pruneGentle(child, stats, drop);
      else drop.add(child);
    } else if (s.region === Region.Comments && ctx.dropComments) {
      drop.add(child);
    } else {
      prune(child, ctx, keepLinkFree);
    }
  }
}

/** Drops only hidden nodes and page chrome (navigation, site header and footer). */
export function pruneGentle(el: Element, stats: Map<Element, ElementStats>, drop: Set<Element>): void {
  for (let child = el.firstElementChild; child; child = child.nextElementSibling) {
    const s = stats.get(child);
    if (!s) continue;
    if (s.region === Region.Hidden || isChrome(s)) drop.add(child);
    else pruneGentle(child, stats, drop);
  }
}

/**
 * `<main>` and `<article>` (or their ARIA roles) name the page's content. Class names are left out: `content`
 * and `post` also name teaser cards, and class hints only scale evidence (see `hints.ts`). Measured, adding them
 * kept article-extraction F1 but cost its precision (0.928 → 0.926) for +0.004 wcxb word-F1.
 */
function isPageContent(el: Element): boolean {
  const tag = el.localName;
  if (tag === "main" || tag === "article") return true;
  const role = el.getAttribute("role");
  return role === "main" || role === "article";
}

/**
 * Whether content stands on both sides of `el`: the nearest sibling before and after it that is not itself a
 * short link-free block (a run like "Official SDKs:" + the list counts as one) is a kept content block. Where a
 * side runs out of siblings, the search goes on from the parent, up to the root. Boilerplate without links (date
 * stamps, "Advertisement", gallery counters) sits at the edges of the content, so it still goes.
 */
function betweenContent(el: Element, ctx: PruneContext): boolean {
  return contentOnSide(el, ctx, "previousElementSibling") && contentOnSide(el, ctx, "nextElementSibling");
}

function contentOnSide(el: Element, ctx: PruneContext, side: "previousElementSibling" | "nextElementSibling"): boolean {
  const { stats, reading } = ctx;
  for (let at: Element | null = el; at && at !== ctx.root; at = at.parentElement) {
    for (let sib = at[side]; sib; sib = sib[side]) {
      const s = stats.get(sib);
      if (!s || s.chars === 0 || s.region === Region.Hidden) continue;
      const net = reading.pos(s) + reading.neg(s);
      if (net <= 0 && s.linkChars === 0 && !isChrome(s)) continue;
      return net > 0 && !ctx.drop.has(sib) && !isChrome(s) && s.region !== Region.Comments && !isLinkList(sib, s);
    }
  }
  return false;
}

/**
 * Whether a block about to be dropped for its links (low value, link list, chrome) is content of the article: a
 * list that is a heading's whole section, a sentence with links between content blocks, a post's author link (see
 * `keep.ts`). Upstream's main-content mode strips only chrome, so it keeps these. A sentence at the edge of prose
 * is kept only when no clear prose block was selected (a short page): at the end of an article it is the usual
 * sign-off ("Follow us on Facebook, Twitter and Instagram.", "Subscribe to our newsletters.").
 */
function isContentWithLinks(el: Element, s: ElementStats, ctx: PruneContext): boolean {
  if (s.linkChars === 0) return false;
  if (isChrome(s)) return isPostByline(el, s, ctx);
  if (isSectionList(el, ctx) || isItemAmongItems(el, ctx)) return true;
  return isLinkedSentence(el, s) && (!ctx.prose || betweenContent(el, ctx));
}

/**
 * Whether `el` is a list item with kept items on both sides: the nearest item before and after it that is not
 * itself a low-value item is content. A glossary's or a changelog's short linked entry ("Webhook") between
 * described ones was dropped from the middle of its list for being a bare link; a menu's items have no described
 * neighbours, so they still go.
 */
function isItemAmongItems(el: Element, ctx: PruneContext): boolean {
  return el.localName === "li" && itemOnSide(el, ctx, "previousElementSibling") && itemOnSide(el, ctx, "nextElementSibling");
}

function itemOnSide(el: Element, ctx: PruneContext, side: "previousElementSibling" | "nextElementSibling"): boolean {
  for (let sib = el[side]; sib; sib = sib[side]) {
    const s = ctx.stats.get(sib);
    if (sib.localName !== "li" || !s || s.region === Region.Hidden || isChrome(s)) return false;
    if (s.chars === 0) continue;
    if (ctx.reading.pos(s) + ctx.reading.neg(s) > 0) return !ctx.drop.has(sib);
  }
  return false;
}

/** Elements never pruned as link lists: a paragraph that is mostly a link is still a sentence. */
const NOT_LINK_LISTS = new Set(["p", "a", "span", "strong", "em", "b"]);
/** Table parts that are data, not link lists, in a table of at least {@link DATA_TABLE_MIN_ROWS} rows. */
const TABLE_PARTS = new Set(["tr", "td", "th"]);
/**
 * Rows a table needs for its rows and cells to count as data (a listing's titles and names, which score.ts values
 * as text): a page laid out in a table has one to three rows, and its sidebar cell of links is a link list.
 */
const DATA_TABLE_MIN_ROWS = 4;
/** Rows of each table met, counted once. */
const tableRows = new WeakMap<Element, number>();

function inDataTable(el: Element): boolean {
  const table = el.closest("table");
  if (!table) return false;
  let rows = tableRows.get(table);
  if (rows === undefined) {
    rows = 0;
    for (const row of table.querySelectorAll("tr")) if (row.closest("table") === table) rows++;
    tableRows.set(table, rows);
  }
  return rows >= DATA_TABLE_MIN_ROWS;
}

function isLinkList(el: Element, s: ElementStats): boolean {
  if (s.chars < LINK_DENSITY_MIN_CHARS || s.linkChars <= MAX_LINK_DENSITY * s.chars) return false;
  const tag = el.localName;
  return !NOT_LINK_LISTS.has(tag) && !(TABLE_PARTS.has(tag) && inDataTable(el));
}

function isChrome(s: ElementStats): boolean {
  return s.region === Region.Chrome || (s.region === Region.Header && !s.inContent);
}
