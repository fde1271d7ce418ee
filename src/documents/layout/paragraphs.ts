/**
 * @module documents/layout/paragraphs
 * Where a paragraph ends among lines that follow each other closely in one style. A vertical gap of 0.75 em was the
 * only sign, and a report set in LibreOffice (5.8 pt after each paragraph of 11 pt text) or a paper set in academic
 * style (first-line indents, no spacing) came out as one paragraph per section. Each sign here needs the line before
 * to look like a paragraph's last, so the wrapped lines of one paragraph stay together.
 */
import type { Row } from "./rows.ts";

/** The open paragraph, as much of it as the rules read. */
export interface OpenParagraph {
  first: Row;
  last: Row;
  /** Rows joined so far. */
  lines: number;
  /** Leftmost left edge and rightmost right edge of its rows. */
  minX0: number;
  maxX1: number;
}

/** Extra pitch over the normal one (in font sizes) that is paragraph spacing, measured on baselines. */
const SPACING_EM = 0.25;
/** The same measured on boxes (OCR), which move with ascenders and descenders. */
const SPACING_EM_BOXES = 0.45;
/** A left edge this far (in font sizes) right of the line before is a first-line indent. */
const INDENT_EM = 0.8;
/** Room left at the end of a line (in font sizes) that makes it a short, last line. */
const SHORT_EM = 2;
/**
 * Safety factor on the estimated width of the word that would have fitted (the line's mean character width, blanks
 * included, is narrower than most letters), and an allowance (in font sizes) for its first letter, often a capital.
 */
const WORD_FIT_MARGIN = 1.3;
const CAPITAL_EM = 0.25;

const SENTENCE_END = /[.!?:;…]["'”’»)\]]*$/;
const HYPHENATED = /(\p{L}-|\u00ad)$/u;
const UPPER_OR_DIGIT = /^["'“‘«(]?[\p{Lu}\p{N}]/u;

/** Whether `row`, which follows the open paragraph closely and in its style, starts a new paragraph instead. */
export function startsParagraph(o: OpenParagraph, row: Row): boolean {
  const prev = o.last;
  const em = row.size;
  // Paragraph spacing: the baseline further down than the normal pitch of this size allows.
  if (row.pitch !== undefined) {
    const measured = row.cells[0]!.baseline !== undefined && prev.cells[0]!.baseline !== undefined;
    if (row.base - prev.base - row.pitch >= (measured ? SPACING_EM : SPACING_EM_BOXES) * em) return true;
  }
  const prevText = prev.text.trimEnd();
  // A hyphenated word runs on.
  if (HYPHENATED.test(prevText)) return false;
  const room = Math.max(o.maxX1, row.x1) - prev.x1;
  const ended = SENTENCE_END.test(prevText);
  const short = room > SHORT_EM * em;
  // A first-line indent after a line at the paragraph's left edge, or a hanging indent's first line (back at the
  // edge the paragraph started at, after indented lines).
  if (short || (o.lines >= 2 && ended)) {
    if (row.x0 - prev.x0 >= INDENT_EM * em && prev.x0 <= o.minX0 + 0.25 * em) return true;
    if (o.lines >= 2 && prev.x0 - row.x0 >= INDENT_EM * em && Math.abs(row.x0 - o.first.x0) <= 0.25 * em) return true;
  }
  // The line before ended early: the first word of this one would have fitted at its end. Only after the end of a
  // sentence or before a capital (a line cut short beside a picture runs on in lower case).
  if (!ended && !UPPER_OR_DIGIT.test(row.text)) return false;
  const text = row.text.trimStart();
  const word = text.indexOf(" ") < 0 ? text.length : text.indexOf(" ");
  const charWidth = (row.x1 - row.x0) / Math.max(row.text.length, 1);
  return room > (word + 1) * charWidth * WORD_FIT_MARGIN + CAPITAL_EM * em;
}
