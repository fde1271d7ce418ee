/**
 * @module documents/pdf/glyphs
 * The characters of a page's structured text, walked one by one: what mupdf's JSON does not say of a line (it
 * gives the first character's font, and boxes in whole points). A line is bold, italic or monospace when nearly all
 * of its non-blank characters are, its size is the one most of them have, its baseline is exact, and a link can be
 * placed on the characters under its rectangle.
 */
import type { Mupdf } from "./mupdf.ts";

/** Share of a line's non-blank characters in a style for the line to be in it: one bold word does not make it bold. */
const NEARLY_ALL = 0.8;
/** Style bits of a character. */
const [BOLD, ITALIC, MONO] = [1, 2, 4];

/**
 * One structured-text line as walked: its box, each character's horizontal middle (for links), and what its
 * non-blank characters have: how many are bold, italic, monospace, their extent, and the size most of them have.
 */
export interface Glyphs {
  bbox: number[];
  /** The characters were read (without them the rest is missing). */
  chars: boolean;
  /** Characters, blanks included. */
  n: number;
  /** Kept on a page with links only. */
  mid?: number[];
  count: number;
  styled: [number, number, number];
  x0: number;
  x1: number;
  /** Characters per size (in half points), with the first such character's size and baseline: the first size's. */
  size: SizeCount;
  /** And the others', once a second size is seen. */
  sizes?: Map<number, SizeCount>;
}

interface SizeCount {
  half: number;
  n: number;
  size: number;
  baseline: number;
}

/** Names of monospace fonts whose files may not say so (LaTeX's cmtt, macOS's Menlo and Monaco). */
const MONO_NAME = /mono|courier|consol|cmtt|typewriter|menlo|monaco|sourcecode|firacode/;

/** What a font's (lower-case) name says of its style, for fonts whose files do not say it themselves. */
export function nameStyle(name: string): { bold: boolean; italic: boolean; mono: boolean } {
  return { bold: /bold|black|heavy/.test(name), italic: /italic|oblique/.test(name), mono: MONO_NAME.test(name) };
}

function fontStyle(font: InstanceType<Mupdf["Font"]>): number {
  const named = nameStyle(font.getName().toLowerCase());
  let style = 0;
  if (font.isBold() || named.bold) style |= BOLD;
  if (font.isItalic() || named.italic) style |= ITALIC;
  if (font.isMono() || named.mono) style |= MONO;
  return style;
}

/**
 * Every line's characters, in the order of the JSON's lines, counted as they come (the walk costs what mupdf's
 * binding allocates per character; keeping less of each keeps it near the JSON's own cost). Each character's font
 * comes as a new handle that is released at once; its style is read once per font. The walk's characters cannot
 * give the text (mupdf's binding makes them with `String.fromCharCode`, which cuts those beyond U+FFFF to 16 bits),
 * but blanks are all below that.
 */
export function walkGlyphs(stext: { walk(walker: object): void }, chars: boolean, withMids: boolean): Glyphs[] {
  const out: Glyphs[] = [];
  const styles = new Map<number, number>();
  let cur: Glyphs | undefined;
  let [lastFont, lastStyle] = [-1, 0];
  const walker = {
    beginLine(bbox: number[]) {
      const size = { half: -1, n: 0, size: 0, baseline: 0 };
      out.push((cur = { bbox, chars, n: 0, mid: withMids ? [] : undefined, count: 0, styled: [0, 0, 0], x0: Infinity, x1: -Infinity, size }));
    },
    onChar(c: string, origin: number[], font: InstanceType<Mupdf["Font"]>, size: number, quad: number[]) {
      const key = font.pointer as number;
      let style = key === lastFont ? lastStyle : styles.get(key);
      if (style === undefined) styles.set(key, (style = fontStyle(font)));
      [lastFont, lastStyle] = [key, style];
      font.destroy();
      if (!cur) return;
      const x0 = Math.min(quad[0]!, quad[4]!);
      const x1 = Math.max(quad[2]!, quad[6]!);
      cur.n++;
      cur.mid?.push((x0 + x1) / 2);
      if (isBlank(c.charCodeAt(0))) return;
      cur.count++;
      if (style & BOLD) cur.styled[0]++;
      if (style & ITALIC) cur.styled[1]++;
      if (style & MONO) cur.styled[2]++;
      if (cur.x0 === Infinity) cur.x0 = x0;
      if (x1 > cur.x1) cur.x1 = x1;
      const half = Math.round(size * 2) / 2;
      if (cur.size.half < 0) Object.assign(cur.size, { half, size, baseline: origin[1]! });
      const seen = half === cur.size.half ? cur.size : (cur.sizes ??= new Map()).get(half);
      if (seen) seen.n++;
      else cur.sizes!.set(half, { half, n: 1, size, baseline: origin[1]! });
    },
  };
  // Without `onChar` mupdf's binding makes nothing per character: the walk costs little beyond the lines' boxes.
  stext.walk(chars ? walker : { beginLine: (bbox: number[]) => out.push({ bbox, chars: false } as Glyphs) });
  return out;
}

/**
 * `v` in whole points, as the JSON gives boxes, and held as a small integer where it is one: the reading order sorts
 * and filters boxes by the thousand, 3 times slower on fractions (400,000 lines: a second more). Baselines keep
 * their fractions for the line pitch.
 */
export function whole(v: number): number {
  const r = Math.round(v);
  return r === (r | 0) ? r | 0 : r;
}

/** Whether UTF-16 unit `c` is a blank to `\s`. */
function isBlank(c: number): boolean {
  if (c === 32 || (c >= 9 && c <= 13) || c === 0xa0) return true;
  return c >= 0x1680 && (c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff);
}

/** Length in UTF-16 units of the character at `u`: 2 for a surrogate pair. */
function unitsAt(s: string, u: number): number {
  const c = s.charCodeAt(u);
  return c >= 0xd800 && c <= 0xdbff && u + 1 < s.length && (s.charCodeAt(u + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
}

/** Characters (code points) in `s`. */
function codePoints(s: string): number {
  let n = s.length;
  for (let u = 0; u < s.length; u++) if ((s.charCodeAt(u) & 0xfc00) === 0xdc00 && u > 0 && (s.charCodeAt(u - 1) & 0xfc00) === 0xd800) n--;
  return n;
}

/**
 * A line's facts from its characters, or undefined when they were not read or are not the JSON line's (another count).
 * The text runs from the first to the last non-blank character with blanks collapsed, except in a monospace line,
 * which keeps them (code aligns with them).
 */
export function lineFacts(raw: string, g: Glyphs) {
  if (!g.chars || g.count === 0 || codePoints(raw) !== g.n) return undefined;
  const [bold, italic, mono] = g.styled.map((k) => k >= NEARLY_ALL * g.count) as [boolean, boolean, boolean];
  const text = raw.trim().replace(mono ? /\s/g : /\s+/g, " ");
  // The size most of the characters have (a superscript first, or a drop cap, does not size the line).
  let main = g.size;
  for (const s of g.sizes?.values() ?? []) if (s.n > main.n) main = s;
  const box = { x0: whole(g.x0), y0: whole(g.bbox[1]!), x1: whole(g.x1), y1: whole(g.bbox[3]!) };
  return { text, box, size: main.size, bold, italic, mono, baseline: main.baseline };
}

/**
 * The offset in the line's text (as {@link lineFacts} makes it from `raw`) of each character, -1 for the blanks
 * around it. Worked out only for a line a link falls on.
 */
export function offsets(raw: string, mono: boolean): number[] {
  const at: number[] = [];
  let out = 0;
  let started = false;
  let blankRun = false;
  let end = raw.length;
  while (end > 0 && isBlank(raw.charCodeAt(end - 1))) end--;
  for (let u = 0; u < raw.length; u += unitsAt(raw, u)) {
    const blank = isBlank(raw.charCodeAt(u));
    if ((!started && blank) || u >= end) {
      at.push(-1);
      continue;
    }
    started = true;
    if (blank && !mono && blankRun) at.push(out - 1);
    else {
      at.push(out);
      out += blank ? 1 : unitsAt(raw, u);
    }
    blankRun = blank;
  }
  return at;
}

