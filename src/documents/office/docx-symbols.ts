/**
 * @module documents/office/docx-symbols
 * The character a DOCX `w:sym` stands for. Word inserts symbols as a font and a code (`w:font="Wingdings"
 * w:char="F0FC"`, a check mark): in a symbol font the code names a glyph of that font, not a Unicode character
 * (Symbol's `F0AE` is →, where Unicode's U+00AE is ®). The common glyphs of Symbol (Greek, arrows, mathematical
 * operators) and Wingdings (bullets, boxes, check marks, arrows) are mapped to their Unicode characters; other
 * glyphs of symbol fonts are left out rather than shown as the wrong letter. In an ordinary font the code is the
 * character itself. Text typed (or pasted) in a symbol font holds the same glyphs as private-use characters, read
 * through the same tables; older documents (and converters) keep it as the font's own codes, plain characters
 * U+0021–U+00FF: in a run set in Symbol `a + b = p` is what Word shows as `α + β = π`, in Wingdings `ü` is ✓. Those are
 * read through the tables too, for Symbol and Wingdings only (Webdings' and the others' letters stay letters).
 */

/** Symbol's glyphs from 0x41 ('A'): the Greek capitals, then (from 0x61) the small letters. */
const SYMBOL_GREEK_UPPER = "ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ";
const SYMBOL_GREEK_LOWER = "αβχδεφγηιϕκλμνοπθρστυϖωξψζ";
/** Symbol's glyphs from 0xA0 to 0xE5 (Adobe's Symbol encoding); bracket pieces past it are left out. */
const SYMBOL_HIGH = "€ϒ′≤⁄∞ƒ♣♦♥♠↔←↑→↓°±″≥×∝∂•÷≠≡≈…⏐⎯↵ℵℑℜ℘⊗⊕∅∩∪⊃⊇⊄⊂⊆∈∉∠∇®©™∏√⋅¬∧∨⇔⇐⇑⇒⇓◊〈®©™∑";
/** Symbol's glyphs that are not the ASCII character of their code, outside the ranges above. */
const SYMBOL_OTHER: Record<number, string> = { 0x22: "∀", 0x24: "∃", 0x27: "∋", 0x2a: "∗", 0x2d: "−", 0x40: "≅", 0x5c: "∴", 0x5e: "⊥", 0x60: "", 0x7e: "∼", 0xf1: "〉", 0xf2: "∫" };

/**
 * The Wingdings glyphs documents use as bullets, boxes, ticks, arrows and pointers. Word's AutoCorrect types its
 * arrows in Wingdings: `-->` is F0E0 and `<--` F0DF (wide-headed arrows, written as the plain ones), `==>` F0E8 and
 * `<==` F0E7 (heavy ones), `<=>` F0F3.
 */
const WINGDINGS: Record<number, string> = {
  0x28: "☎", 0x2a: "✉", 0x3f: "✍", 0x43: "👍", 0x44: "👎", 0x46: "☞", 0x4a: "☺", 0x4c: "☹",
  0x6c: "●", 0x6e: "■", 0x6f: "□", 0x71: "❑", 0x75: "◆", 0x76: "❖", 0x77: "⬥",
  0x9e: "·", 0x9f: "•", 0xa1: "○", 0xa7: "▪", 0xa8: "◻", 0xab: "★", 0xd8: "➢", 0xdc: "➲",
  0xdf: "←", 0xe0: "→", 0xe1: "↑", 0xe2: "↓", 0xe3: "↖", 0xe4: "↗", 0xe5: "↙", 0xe6: "↘",
  0xe7: "⬅", 0xe8: "➔", 0xe9: "⬆", 0xea: "⬇", 0xeb: "⬉", 0xec: "⬈", 0xed: "⬋", 0xee: "⬊",
  0xef: "⇦", 0xf0: "⇨", 0xf1: "⇧", 0xf2: "⇩", 0xf3: "⬄", 0xf4: "⇳",
  0xfb: "✗", 0xfc: "✓", 0xfd: "☒", 0xfe: "☑",
};

/** The Wingdings 2 glyphs forms use for ticks, crosses and check boxes. */
const WINGDINGS_2: Record<number, string> = { 0x4f: "✗", 0x50: "✓", 0x51: "☒", 0x52: "☑", 0x54: "☒", 0x97: "•", 0x98: "●", 0x99: "○", 0xa2: "■", 0xa3: "□" };

/** Fonts whose codes are glyphs of their own, not characters: what is not mapped is left out. */
const SYMBOL_FONT = /^(symbol|wingdings( [23])?|webdings|zapf ?dingbats|marlett|mt extra)$/i;
/** Private-use characters a symbol font's glyphs are typed as (F020–F0FF): what a run in such a font may hold. */
const SYMBOL_PRIVATE_USE = /[\uf020-\uf0ff]/;
const SYMBOL_PRIVATE_USE_ALL = new RegExp(SYMBOL_PRIVATE_USE.source, "g");
/** The fonts whose plain characters (their own codes, U+0021–U+00FF) are read as their glyphs too. */
const GLYPHS_AS_CODES = /^(symbol|wingdings)$/i;
/** A glyph typed as a private-use character or as the font's own code (one pass: a glyph read is not read again). */
const GLYPH_OR_CODE_ALL = /[\u0021-\u00ff\uf020-\uf0ff]/g;

function symbolGlyph(code: number): string {
  if (code in SYMBOL_OTHER) return SYMBOL_OTHER[code]!;
  if (code >= 0x41 && code <= 0x5a) return SYMBOL_GREEK_UPPER[code - 0x41]!;
  if (code >= 0x61 && code <= 0x7a) return SYMBOL_GREEK_LOWER[code - 0x61]!;
  if (code >= 0xa0 && code <= 0xe5) return SYMBOL_HIGH[code - 0xa0]!; // all in the BMP: one UTF-16 unit each
  return code >= 0x20 && code < 0x7f ? String.fromCharCode(code) : "";
}

/** The character glyph `code` (a symbol font's own code, 0x20–0xFF) of symbol font `name` is, or "". */
function fontGlyph(name: string, code: number): string {
  if (/^symbol$/i.test(name)) return symbolGlyph(code);
  if (/^wingdings$/i.test(name)) return WINGDINGS[code] ?? "";
  if (/^wingdings 2$/i.test(name)) return WINGDINGS_2[code] ?? "";
  return "";
}

/** The text of `<w:sym w:font="…" w:char="…"/>`: its character, or "" when it cannot be told. */
export function symbolText(font: string | null, char: string | null): string {
  let code = /^[0-9a-f]{1,4}$/i.test(char ?? "") ? parseInt(char!, 16) : NaN;
  if (!Number.isFinite(code)) return "";
  // Symbol fonts' glyphs sit at F020–F0FF (Word's private-use mapping); their low byte is the font's own code.
  if (code >= 0xf000 && code <= 0xf0ff) code -= 0xf000;
  const name = (font ?? "").trim();
  if (SYMBOL_FONT.test(name)) return fontGlyph(name, code);
  return code >= 0x20 && code !== 0x7f && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCharCode(code) : "";
}

/**
 * The text of a `w:t` in a run set in `font`: in a symbol font, the private-use characters its glyphs are typed as
 * (a Symbol bullet pasted from another document is U+F0B7) become the characters they show, through the table
 * `w:sym` uses (U+F0B7 in Symbol is •), or nothing when unknown; so do Symbol's and Wingdings' plain characters
 * (their codes: `p` in Symbol is π). Anything else is the text as written.
 */
export function symbolFontText(text: string, font: string | undefined): string {
  const name = font?.trim();
  if (!name || !SYMBOL_FONT.test(name)) return text;
  const code = (ch: string) => ch.charCodeAt(0) & 0xff; // U+F0B7 and U+00B7 are both the glyph at B7
  if (GLYPHS_AS_CODES.test(name)) return text.replace(GLYPH_OR_CODE_ALL, (ch) => fontGlyph(name, code(ch)));
  return SYMBOL_PRIVATE_USE.test(text) ? text.replace(SYMBOL_PRIVATE_USE_ALL, (ch) => fontGlyph(name, code(ch))) : text;
}
