/**
 * @module documents/office/doc-fonts
 * Which fonts of a Word 97–2003 document are monospace (MS-DOC 2.9.80 FFN, listed in the SttbfFfn at
 * fcSttbfFfn of the table stream): text set in one is code, as an RTF's or a DOCX's is. A font entry gives its family
 * (FF_MODERN is fixed-pitch), its character set and its name; the rule is RTF's (rtf-fonts.ts `monospaceFont`): the
 * name says so (Courier New, Consolas, "… Mono"), or the family is modern outside the East Asian character sets
 * (MS Mincho and MS Gothic are modern, and a Japanese document's text is not code).
 */
import type { Fib } from "./doc-text.ts";
import { monospaceFont } from "./rtf-fonts.ts";

/** FibRgFcLcb97 index of the font table (fcSttbfFfn). */
const FONT_TABLE_PAIR = 15;

/** Bytes of an FFN before its name: ffid, wWeight, chs, ixchSzAlt, panose (10), fs (24). */
const FFN_NAME_OFFSET = 39;

/** FFN.ffid's family (bits 4–6) of fixed-pitch fonts. */
const FF_MODERN = 3;

/** Most fonts read (Word's documents list a few dozen). */
const MAX_FONTS = 10_000;

/** Longest font name read, in characters. */
const MAX_FONT_NAME_CHARS = 64;

/** The indexes (ftc) of the monospace fonts of `fib`'s font table; none when it cannot be read. */
export function monospaceFonts(fib: Fib): Set<number> {
  const out = new Set<number>();
  const { fc, lcb } = fib.pair(FONT_TABLE_PAIR);
  const t = fib.table;
  if (lcb < 4 || fc + lcb > t.length) return out;
  const end = fc + lcb;
  const count = Math.min(t[fc]! | (t[fc + 1]! << 8), MAX_FONTS);
  let at = fc + 4; // cData, then cbExtra (0 for this table)
  for (let ftc = 0; ftc < count && at < end; ftc++) {
    const cb = t[at]!;
    const ffn = at + 1;
    at = ffn + cb;
    if (cb <= FFN_NAME_OFFSET || at > end) continue;
    const modern = ((t[ffn]! >> 4) & 0x07) === FF_MODERN;
    const charset = t[ffn + 3]!;
    const nameEnd = Math.min(at, ffn + FFN_NAME_OFFSET + MAX_FONT_NAME_CHARS * 2);
    const name = new TextDecoder("utf-16le").decode(t.subarray(ffn + FFN_NAME_OFFSET, nameEnd - ((nameEnd - ffn - FFN_NAME_OFFSET) & 1))).split("\0")[0]!;
    if (monospaceFont(name, modern, charset)) out.add(ftc);
  }
  return out;
}
