/**
 * @module pipeline/main-content/select
 * Pick the main-content element from the measurements of `features.ts`, then prune what inside it is still
 * boilerplate (share bars, "related" boxes, comment threads below an article, hidden nodes).
 */
import type { ElementStats } from "./features.ts";
import { Region } from "./hints.ts";

/** Bonus, as a fraction of positive value, for `<article>`, `<main>`, `itemprop=articleBody` and the like. */
const CONTENT_REGION_BONUS = 0.15;
/** Below this much positive value the page has no clear main block; keep the whole body minus chrome. */
const MIN_MAIN_VALUE = 120;
/** A child whose net value is below this is pruned unless it holds real content. */
const PRUNE_NET_BELOW = -10;
/** Positive value that protects a net-negative child from pruning (its content is worth descending into). */
const PRUNE_KEEP_POS = 60;
/** Chrome regions inside the selection survive only when they hold at least this share of its value. */
const CHROME_KEEP_SHARE = 0.3;
/** Comment threads are dropped when at least this share of the selection's value is not comments. */
const NON_COMMENT_SHARE = 0.35;

/** The selected main content: render `root` without the elements in `drop`. */
export interface MainContent {
  root: Element;
  drop: Set<Element>;
}

/** Score of an element as a main-content candidate. */
function candidateScore(stats: ElementStats): number {
  const bonus = stats.region === Region.Content ? CONTENT_REGION_BONUS * stats.pos : 0;
  return stats.pos + stats.neg + bonus;
}

/**
 * Choose the element with the highest net content value (the maximum-sum subtree), falling back to `body` when
 * no element holds enough content, and collect the descendants to prune.
 *
 * @param body - the element that was measured
 * @param stats - the output of `measure(body)`
 */
export function selectFrom(body: Element, stats: Map<Element, ElementStats>): MainContent {
  let best: Element = body;
  let bestScore = -Infinity;
  // Map order is document order, so on ties the later (deeper) candidate wins: same content, less markup.
  for (const [el, s] of stats) {
    if (s.pos <= 0) continue;
    const score = candidateScore(s);
    if (score >= bestScore) {
      best = el;
      bestScore = score;
    }
  }
  const bestStats = stats.get(best);
  if (!bestStats || bestStats.pos < MIN_MAIN_VALUE) best = body;
  const rootStats = stats.get(best)!;
  const drop = new Set<Element>();
  const dropComments = rootStats.pos - rootStats.commentPos >= NON_COMMENT_SHARE * rootStats.pos;
  prune(best, rootStats, stats, drop, dropComments);
  return { root: best, drop };
}

function prune(
  el: Element,
  rootStats: ElementStats,
  stats: Map<Element, ElementStats>,
  drop: Set<Element>,
  dropComments: boolean,
): void {
  for (let child = el.firstElementChild; child; child = child.nextElementSibling) {
    const s = stats.get(child);
    if (!s) continue;
    if (s.region === Region.Hidden) {
      drop.add(child);
      continue;
    }
    if (s.chars === 0) continue;
    const net = s.pos + s.neg;
    if (net < PRUNE_NET_BELOW && s.pos < PRUNE_KEEP_POS) {
      drop.add(child);
    } else if (isChrome(s) && s.pos < CHROME_KEEP_SHARE * rootStats.pos) {
      drop.add(child);
    } else if (s.region === Region.Comments && dropComments) {
      drop.add(child);
    } else {
      prune(child, rootStats, stats, drop, dropComments);
    }
  }
}

function isChrome(s: ElementStats): boolean {
  return s.region === Region.Chrome || (s.region === Region.Header && !s.inContent);
}
