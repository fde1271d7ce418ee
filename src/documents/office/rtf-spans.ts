/**
 * @module documents/office/rtf-spans
 * An RTF paragraph's collected parts (rtf-story.ts: runs of text with their link and marks, note references, line
 * breaks) as what the markdown is made of: spans with their whitespace made one space and trimmed where a paragraph
 * or a line begins and ends, or a line of a code block, its indentation kept as written.
 */
import type { Inline } from "../layout/model.ts";
import { trimmedAtBreaks } from "./inline-runs.ts";

/** Characters that are never text: C0 controls (tab, CR and LF are handled before), DEL and C1 controls. */
export const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * A paragraph's collected text as spans: control characters dropped, whitespace runs one space, outer space
 * trimmed, and the space around a line break (which would print as the break's own indent or trailing space);
 * line breaks at either end dropped.
 */
export function finish(parts: Inline[]): Inline[] {
  let spaced = false; // whether the text before ends with a space (one space where spans meet, as within one)
  for (const p of parts) {
    if (p.note !== undefined || p.lineBreak) {
      spaced = !!p.lineBreak;
      continue;
    }
    p.text = p.text.replace(CONTROL, "").replace(/\s+/g, " ");
    if (spaced && p.text.startsWith(" ")) p.text = p.text.slice(1);
    if (p.text) spaced = p.text.endsWith(" ");
  }
  // Empty spans (a link whose text the budget cut) go first, so the outer spaces trimmed are the text's own.
  return trimmedAtBreaks(parts.filter((p) => p.text.length > 0 || p.lineBreak));
}

/** A line of a code block: the paragraph's text as written (indentation kept), a line break a new line. */
export function codeLine(parts: Inline[]): string {
  let line = "";
  for (const p of parts) if (p.note === undefined) line += p.lineBreak ? "\n" : p.text.replace(CONTROL, "");
  return line.replace(/\s+$/, "");
}

/** Whether every part of a paragraph with text is code (set in a monospace font): the paragraph is a listing's line. */
export function allCode(parts: Inline[]): boolean {
  let any = false;
  for (const p of parts) {
    if (p.note !== undefined || p.href !== undefined) return false;
    if (p.lineBreak || !/\S/.test(p.text)) continue;
    if (!p.code) return false;
    any = true;
  }
  return any;
}

/** `inline` without its marks: a heading's text is not marked (a heading style is bold; its runs say so again). */
export function unmarked(inline: Inline): Inline {
  const { bold: _b, italic: _i, strike: _s, code: _c, ...rest } = inline;
  return rest;
}

