/**
 * @module pipeline/main-content/select
 * Pick the main-content element from the measurements of `features.ts`, then prune what inside it is still
 * boilerplate (share bars, "related" boxes, comment threads below an article, hidden nodes; see `prune.ts`).
 *
 * Two readings of the page are compared. The prose reading penalises links, which is right for articles, docs,
 * forum threads and product descriptions. On listing pages (front pages, search results, category grids) the
 * content *is* a list of titled links, so when valuing title-length links as text finds a much larger block than
 * prose does, the listing reading is used instead.
 */
import type { ElementStats } from "./features.ts";
import { Region } from "./hints.ts";
import { prune, pruneGentle, type Reading } from "./prune.ts";

/** Bonus, as a fraction of positive value, for `<article>`, `<main>`, `itemprop=articleBody` and the like. */
const CONTENT_REGION_BONUS = 0.05;
/** Below this much positive value the page has no clear main block; keep the whole body minus chrome. */
const MIN_MAIN_VALUE = 120;
/** The listing reading wins when its best block is worth this many times the prose reading's best. */
const LISTING_RATIO = 2;
/** Comment threads are dropped when at least this share of the selection's value is not comments… */
const NON_COMMENT_SHARE = 0.35;
/** …or when this much value is not comments (a real article above a long thread). */
const NON_COMMENT_MIN_VALUE = 300;
/** A page whose best prose block has this many paragraphs (and value) is read as prose even if it lists many links. */
const PROSE_MIN_PARAGRAPHS = 5;
const PROSE_MIN_VALUE = 800;
/**
 * When the best prose block has fewer paragraphs than this and less than {@link WEAK_PROSE_SHARE} of the page's
 * text, the page has no prose main content (a product grid, a table, a link directory): keep the body minus chrome.
 */
const WEAK_PROSE_PARAGRAPHS = 3;
const WEAK_PROSE_SHARE = 0.25;

/** The selected main content: render `root` without the elements in `drop`. */
export interface MainContent {
  root: Element;
  drop: Set<Element>;
  /** Which reading of the page was used. */
  mode: "prose" | "listing";
}

const PROSE: Reading = { pos: (s) => s.pos, neg: (s) => s.neg };
const LISTING: Reading = { pos: (s) => s.listPos, neg: (s) => s.listNeg };
/** The prose reading without comments: the value of what the page itself says. */
const OWN: Reading = { pos: (s) => s.pos - s.commentPos, neg: (s) => s.neg };
/** Part of a block's value in comments above which the block was chosen for its comments. */
const COMMENT_ROOT_SHARE = 0.85;

function isContentRegion(region: Region): boolean {
  return region === Region.Content || region === Region.StrongContent;
}

/** The element with the highest net value (the maximum-sum subtree) under a reading. */
function best(stats: Map<Element, ElementStats>, reading: Reading): { el: Element | null; score: number } {
  let el: Element | null = null;
  let score = -Infinity;
  // Map order is document order, so on ties the later (deeper) candidate wins: same content, less markup.
  for (const [candidate, s] of stats) {
    const pos = reading.pos(s);
    if (pos <= 0) continue;
    const value = pos + reading.neg(s) + (isContentRegion(s.region) ? CONTENT_REGION_BONUS * pos : 0);
    if (value >= score) {
      el = candidate;
      score = value;
    }
  }
  return { el, score };
}

/** Whether pruning drops the comment threads inside a selection with these stats (see {@link NON_COMMENT_SHARE}). */
function dropsComments(s: ElementStats): boolean {
  const nonComment = s.pos - s.commentPos;
  return nonComment >= NON_COMMENT_SHARE * s.pos || nonComment >= NON_COMMENT_MIN_VALUE;
}

/**
 * A block chosen for the comments it holds (a shop's reviews, longer than its product text) whose comments pruning
 * then drops kept only the scraps between them ("Customers say"). Such a block is replaced by the best block under
 * the reading without comments. A block of comments alone (a forum thread, a discussion page) keeps its comments
 * and stays.
 */
function ownContent(stats: Map<Element, ElementStats>, prose: { el: Element | null; score: number }): { el: Element | null; score: number } {
  const s = prose.el ? stats.get(prose.el)! : undefined;
  if (!s || s.commentPos <= COMMENT_ROOT_SHARE * s.pos || !dropsComments(s)) return prose;
  const own = best(stats, OWN);
  if (!own.el || own.score < MIN_MAIN_VALUE) return prose;
  const o = stats.get(own.el)!;
  return { el: own.el, score: PROSE.pos(o) + PROSE.neg(o) };
}

/**
 * Choose the main-content element, falling back to `body` when no element holds enough content, and collect the
 * descendants to prune.
 *
 * @param body - the element that was measured
 * @param stats - the output of `measure(body)`
 */
export function selectFrom(body: Element, stats: Map<Element, ElementStats>): MainContent {
  const page = stats.get(body)!;
  if (page.chars < TINY_PAGE_CHARS && !marksContent(stats)) {
    // Too few blocks to weigh against each other: the page minus its chrome, unless more than a line of what is
    // left reads as boilerplate (menus in plain divs), which the scorer below still knows to drop. A page that
    // marks its content (`<main>`, `<article>`) is read by its marks, below.
    const whole = bodyLessChrome(body, stats);
    let boilerplate = -page.neg;
    for (const el of whole.drop) boilerplate += stats.get(el)?.neg ?? 0;
    if (boilerplate <= TINY_PAGE_MAX_BOILERPLATE) return whole;
  }
  const prose = ownContent(stats, best(stats, PROSE));
  const listing = best(stats, LISTING);
  const proseStats = prose.el ? stats.get(prose.el)! : undefined;
  const proseParagraphs = proseStats?.paragraphs ?? 0;
  const clearProse = proseParagraphs >= PROSE_MIN_PARAGRAPHS && prose.score >= PROSE_MIN_VALUE;
  let useListing =
    listing.el !== null && !clearProse && listing.score > LISTING_RATIO * Math.max(prose.score, MIN_MAIN_VALUE);
  let root = (useListing ? listing.el : prose.el) ?? body;
  if (!useListing) root = markedRegionOf(root, stats);
  const bodyChars = stats.get(body)!.chars;
  const weakProse = proseParagraphs < WEAK_PROSE_PARAGRAPHS && (proseStats?.chars ?? 0) < WEAK_PROSE_SHARE * bodyChars;
  if (!useListing && (weakProse || (proseStats?.pos ?? 0) < MIN_MAIN_VALUE)) {
    root = body;
    useListing = true;
  }
  const reading = useListing ? LISTING : PROSE;
  const rootStats = stats.get(root)!;
  const drop = new Set<Element>();
  const dropComments = dropsComments(rootStats);
  // The listing reading (a listing block, or the body when no main block was found) has no prose around which
  // boilerplate would sit at the edges: there a short block without links is as likely content as not.
  prune(root, { root, rootPos: reading.pos(rootStats), stats, drop, dropComments, reading, prose: !useListing }, useListing);
  if (keptChars(rootStats, drop, stats) < MIN_KEPT_SHARE * rootStats.chars && rootStats.chars < SHORT_PAGE_CHARS) {
    // A short page whose every block looks like boilerplate (a hero with buttons, a form with a sentence):
    // pruning would return nothing. Keep the body minus what is certainly not content.
    return bodyLessChrome(body, stats);
  }
  return { root, drop, mode: useListing ? "listing" : "prose" };
}

/**
 * A page with less text than this (non-space characters, chrome included) is all content but its chrome (navigation,
 * site header and footer, hidden nodes), when it marks no content region and little of the rest reads as boilerplate
 * ({@link TINY_PAGE_MAX_BOILERPLATE}). The scorer weighs blocks against each other, and a tiny page has too few to
 * weigh: example.com (a heading, two sentences and a "More information..." link, ~230 characters) came out as its
 * one paragraph, where upstream (and a reader) keeps the heading and the link.
 */
const TINY_PAGE_CHARS = 600;
/**
 * The most boilerplate value (the negative block values left after the chrome) a tiny page may hold and still be
 * taken whole: one short link line ("More information...": −43, see score.ts), not a menu.
 */
const TINY_PAGE_MAX_BOILERPLATE = 50;
/** Below this many characters a page is short enough that returning nothing is worse than some boilerplate. */
const SHORT_PAGE_CHARS = 2000;
/** Pruning that keeps less than this share of a short page's text falls back to the gentle pruning. */
const MIN_KEPT_SHARE = 0.2;

/** The whole body less what is certainly not content: hidden nodes and page chrome (prune.ts `pruneGentle`). */
function bodyLessChrome(body: Element, stats: Map<Element, ElementStats>): MainContent {
  const drop = new Set<Element>();
  pruneGentle(body, stats, drop);
  return { root: body, drop, mode: "listing" };
}

/**
 * The content region (`<main>`, `<article>`, `articleBody`…) around a prose `root` when the region is short: on a
 * short page the page's own mark is a better bound than the scorer's pick, which weighs too few blocks. A press
 * release in `<main>` (a headline, a date, a paragraph, a contact line) came out as its one paragraph: the short
 * lines around it weighed more than the headline. Pruning inside the region still drops its boilerplate.
 */
function markedRegionOf(root: Element, stats: Map<Element, ElementStats>): Element {
  if (isContentRegion(stats.get(root)!.region)) return root;
  for (let at = root.parentElement; at; at = at.parentElement) {
    const s = stats.get(at);
    if (!s) break;
    if (isContentRegion(s.region)) return s.chars < SHORT_PAGE_CHARS ? at : root;
  }
  return root;
}

/** Whether any measured element is marked as content (a content region: `<main>`, `<article>`, `articleBody`…). */
function marksContent(stats: Map<Element, ElementStats>): boolean {
  for (const s of stats.values()) if (isContentRegion(s.region)) return true;
  return false;
}

/** Characters of `root` left after dropping `drop` (dropped subtrees are disjoint: prune never descends into one). */
function keptChars(rootStats: ElementStats, drop: Set<Element>, stats: Map<Element, ElementStats>): number {
  let dropped = 0;
  for (const el of drop) dropped += stats.get(el)?.chars ?? 0;
  return rootStats.chars - dropped;
}
