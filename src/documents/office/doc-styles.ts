/**
 * @module documents/office/doc-styles
 * The style sheet of a Word 97–2003 document (MS-DOC 2.9.271 STSH, in the table stream at fcStshf): for each style
 * (by its index, the istd a paragraph or a run names) its built-in identifier (sti), kind (paragraph or character),
 * the style it is based on, its name, and its formatting as grpprls: a paragraph style's character properties, a
 * character style's own. What a paragraph is (a heading: a built-in "heading N" or a style so named; the title; a
 * quotation or a line of code, by name: rtf-style-names.ts) and the character formatting its runs start from
 * (doc-characters.ts) come from here.
 *
 * Every count and size is the file's word, so each is checked against the bytes it points into; a style that cannot
 * be read is left out (its paragraphs are plain, its runs unformatted) rather than failing the document.
 */
import type { Fib } from "./doc-text.ts";
import { isTitleStyle, paragraphKindOf, type ParagraphKind } from "./rtf-style-names.ts";

/** Built-in style identifiers (MS-DOC 2.9.268 sti): headings 1–9 are sti 1–9, the title 62. */
const STI_TITLE = 62;

/** Deepest heading level a document's style gives (markdown's deepest is applied when rendering). */
const MAX_HEADING_STYLE_LEVEL = 9;

/** Longest chain of "based on" styles followed (Word allows 11 levels; a loop in a crafted file ends here). */
export const MAX_STYLE_CHAIN = 16;

/** Longest style name read; the rest of a longer one is dropped. */
const MAX_STYLE_NAME_CHARS = 64;

/** The style kinds (MS-DOC 2.9.260 stk). */
const STK_PARAGRAPH = 1;
const STK_CHARACTER = 2;

/** One style of the sheet, as the readers use it. */
export interface DocStyle {
  sti: number;
  /** Paragraph (1) or character (2) style; tables' and lists' are not read. */
  stk: number;
  /** The style it is based on; undefined for none (istdBase 0x0FFF). */
  base: number | undefined;
  name: string;
  /** Its character formatting: a paragraph style's second UPX, a character style's only one. */
  chpx: Uint8Array;
}

/** Reads the style sheet of `fib`'s table stream; an empty sheet when it cannot be read. */
export function readStyles(fib: Fib): (DocStyle | undefined)[] {
  const out: (DocStyle | undefined)[] = [];
  const { fc, lcb } = fib.pair(1);
  const t = fib.table;
  if (lcb < 6 || fc + lcb > t.length) return out;
  const v = new DataView(t.buffer, t.byteOffset, t.byteLength);
  const cbStshi = v.getUint16(fc, true);
  const cstd = v.getUint16(fc + 2, true);
  const baseSize = v.getUint16(fc + 4, true);
  const end = fc + lcb;
  let at = fc + 2 + cbStshi;
  for (let istd = 0; istd < cstd && at + 2 <= end; istd++) {
    const cbStd = v.getUint16(at, true);
    const std = at + 2;
    at = std + cbStd;
    if (cbStd < 6 || at > end) continue;
    const stk = v.getUint16(std + 2, true) & 0x000f;
    const base = v.getUint16(std + 2, true) >> 4;
    const cupx = v.getUint16(std + 4, true) & 0x000f;
    const nameAt = std + baseSize;
    if (nameAt + 2 > at) continue;
    const cch = v.getUint16(nameAt, true);
    if (nameAt + 2 + cch * 2 > at) continue;
    const name = new TextDecoder("utf-16le").decode(t.subarray(nameAt + 2, nameAt + 2 + Math.min(cch, MAX_STYLE_NAME_CHARS) * 2));
    // The UPXs follow the name and its terminating NUL, each a 2-byte size, its bytes, and a pad byte to an even size.
    const upxs: Uint8Array[] = [];
    let u = nameAt + 2 + cch * 2 + 2;
    for (let k = 0; k < cupx && u + 2 <= at; k++) {
      const cbUpx = v.getUint16(u, true);
      if (u + 2 + cbUpx > at) break;
      upxs.push(t.subarray(u + 2, u + 2 + cbUpx));
      u += 2 + cbUpx + (cbUpx & 1);
    }
    const chpx = stk === STK_PARAGRAPH ? upxs[1] : stk === STK_CHARACTER ? upxs[0] : undefined;
    out[istd] = { sti: v.getUint16(std, true) & 0x0fff, stk, base: base === 0x0fff ? undefined : base, name, chpx: chpx ?? new Uint8Array(0) };
  }
  return out;
}

/** What the style sheet says a paragraph of each style is. */
export class DocParagraphStyles {
  /** Style index → heading level (1–9): built-in heading styles (sti 1–9), styles so named, and the title (1). */
  readonly headings = new Map<number, number>();
  /** Style index → a quotation or a line of code. */
  readonly kinds = new Map<number, Exclude<ParagraphKind, undefined>>();

  constructor(styles: readonly (DocStyle | undefined)[]) {
    styles.forEach((style, istd) => {
      if (!style || style.stk !== STK_PARAGRAPH) return;
      const named = /^heading\s*([1-9])$/i.exec(style.name.trim());
      const level = style.sti >= 1 && style.sti <= MAX_HEADING_STYLE_LEVEL ? style.sti : named ? Number(named[1]) : style.sti === STI_TITLE || isTitleStyle(style.name) ? 1 : 0;
      if (level) this.headings.set(istd, level);
      const kind = paragraphKindOf(style.name);
      if (kind) this.kinds.set(istd, kind);
    });
  }
}
