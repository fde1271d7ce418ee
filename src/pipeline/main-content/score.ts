/**
 * @module pipeline/main-content/score
 * The value of one text block (a paragraph, list item, table cell, heading or code block): positive when it reads
 * like content, negative when it reads like boilerplate. Summing block values over a subtree turns "which element is
 * the main content" into a maximum-sum subtree problem, which handles sibling merging for free: a parent wins over
 * its best child exactly when the siblings it adds are worth more than the chrome it drags in.
 *
 * The ideas are the usual ones from boilerpipe (text density, link density), Readability (commas as a sign of
 * prose, a cost per block) and trafilatura (headings and code count as content); the constants were tuned on the
 * benchmark in scripts/bench/extraction.ts.
 */

/** What kind of block the text was found in; it changes the per-block cost. */
export const enum BlockKind {
  Paragraph = 0,
  Heading = 1,
  Code = 2,
  Cell = 3,
  Item = 4,
}

/** Fixed cost of a paragraph-like block: a lone "Share", "Menu" or date stamp is boilerplate. */
const PARAGRAPH_COST = 14;
/** List items are often short content bullets; charge them less. */
const ITEM_COST = 8;
/** Table cells are short by nature (numbers, names); charge them almost nothing. */
const CELL_COST = 2;
/** Link text in a table cell counts at this fraction of plain text. */
const CELL_LINK_FACTOR = 0.5;
/** Characters of link text cost this many times their length: navigation is mostly links. */
const LINK_PENALTY = 1.6;
/** Bonus for a block that contains sentence punctuation, i.e. reads like prose. */
const SENTENCE_BONUS = 10;
/** Headings count at this fraction of their length, capped, so a run of headings cannot outweigh prose. */
const HEADING_FACTOR = 0.5;
const HEADING_CAP = 40;

/** Text measurements accumulated for one block. */
export interface BlockText {
  /** Non-whitespace characters. */
  chars: number;
  /** Non-whitespace characters inside links. */
  linkChars: number;
  /** Sentence punctuation marks outside links (`.`, `!`, `?`, `,`, `;` and CJK equivalents). */
  punct: number;
  /** Number of links that start in the block. */
  links: number;
}

/** Links averaging at least this many characters read as titles (headlines, product names), not menu entries. */
const TITLE_LINK_MIN_CHARS = 15;

/**
 * Score one block for a listing page (search results, category pages, front pages), where the content is a list of
 * titled links: title-length links count as text, menu-length links are still penalised.
 */
export function listBlockValue(kind: BlockKind, text: BlockText): number {
  const { chars, linkChars, links } = text;
  if (chars === 0 || kind === BlockKind.Code) return blockValue(kind, text);
  if (linkChars === 0 || linkChars / Math.max(1, links) < TITLE_LINK_MIN_CHARS) return blockValue(kind, text);
  const plain = chars - linkChars;
  const cost = kind === BlockKind.Cell ? CELL_COST : kind === BlockKind.Paragraph ? PARAGRAPH_COST : ITEM_COST;
  return plain + linkChars - cost;
}

/**
 * Score one block.
 *
 * @returns a signed value in "content characters": roughly the non-link text length for a prose paragraph,
 *   negative for short or link-heavy blocks
 */
export function blockValue(kind: BlockKind, text: BlockText): number {
  const { chars, linkChars, punct } = text;
  if (chars === 0) return 0;
  const plain = chars - linkChars;
  switch (kind) {
    case BlockKind.Code:
      return chars;
    case BlockKind.Heading:
      return linkChars * 2 > chars ? -Math.min(chars, HEADING_CAP) * HEADING_FACTOR : Math.min(plain, HEADING_CAP) * HEADING_FACTOR;
    case BlockKind.Cell:
      // Links in table cells are mostly data (names, titles in a list table), not navigation.
      return plain + CELL_LINK_FACTOR * linkChars - CELL_COST;
    case BlockKind.Item:
      return plain - LINK_PENALTY * linkChars - ITEM_COST + (punct > 0 && plain > 40 ? SENTENCE_BONUS : 0);
    default:
      return plain - LINK_PENALTY * linkChars - PARAGRAPH_COST + (punct > 0 && plain > 40 ? SENTENCE_BONUS : 0);
  }
}
