/**
 * @module documents/office/doc-paragraphs
 * What a Word 97–2003 document says about its paragraphs, beyond their text (MS-DOC): which paragraph is a
 * heading (its style: built-in "heading 1"–"heading 9", or a style of that name), a list item (its list, level and
 * whether that level is numbered), a table cell, or a table row's end. Paragraph properties live in formatted disk
 * pages (FKPs) of the WordDocument stream, found through a bin table in the table stream and keyed by stream
 * offset; styles and lists are tables of their own in the table stream. Every count and offset is the file's
 * word, so each is checked against the bytes it points into; what cannot be read is left at its default (a plain
 * paragraph) rather than failing the document.
 */
import type { Fib } from "./doc-text.ts";

/** A paragraph's properties, as far as the converter uses them. */
export interface ParagraphProps {
  istd: number;
  inTable: boolean;
  /** The paragraph that ends a table row (its mark is not a cell's). */
  rowEnd: boolean;
  /** The paragraph that ends a row of a table nested in a cell: no text of its own, and not the outer row's end. */
  innerRowEnd: boolean;
  /** Table nesting depth (1 for a top-level table). */
  depth: number;
  /** 1-based list format override, 0 when not a list item. */
  ilfo: number;
  ilvl: number;
}

/** Most paragraph-property runs read (a 5,000-page document has tens of thousands); past it, paragraphs are plain. */
const MAX_PAPX_RUNS = 200_000;

const PLAIN: ParagraphProps = { istd: 0, inTable: false, rowEnd: false, innerRowEnd: false, depth: 0, ilfo: 0, ilvl: 0 };

/** One run of an FKP: paragraphs whose marks lie in [start, end) of the stream share these properties. */
interface Run {
  start: number;
  end: number;
  props: ParagraphProps;
}

/** The operand size of a paragraph sprm at `at` (MS-DOC 2.2.5.1: from its `spra` bits; 6 is variable). */
function operandSize(g: Uint8Array, at: number, sprm: number): number {
  switch (sprm >> 13) {
    case 0:
    case 1:
      return 1;
    case 2:
    case 4:
    case 5:
      return 2;
    case 3:
      return 4;
    case 7:
      return 3;
    default:
      // sprmTDefTable counts its operand in two bytes (plus one); every other variable operand in one.
      return sprm === 0xd608 ? 2 + ((g[at]! | (g[at + 1]! << 8)) - 1) : 1 + g[at]!;
  }
}

/** Properties from a PAPX's style index and sprms. */
function parsePapx(g: Uint8Array): ParagraphProps {
  const p: ParagraphProps = { ...PLAIN, istd: g.length >= 2 ? g[0]! | (g[1]! << 8) : 0 };
  for (let at = 2; at + 2 <= g.length; ) {
    const sprm = g[at]! | (g[at + 1]! << 8);
    at += 2;
    const size = operandSize(g, at, sprm);
    if (size <= 0) break;
    const b = g[at] ?? 0;
    if (sprm === 0x2416) p.inTable = b !== 0;
    else if (sprm === 0x2417) p.rowEnd = b !== 0;
    else if (sprm === 0x6649) p.depth = g[at]! | (g[at + 1]! << 8);
    else if (sprm === 0x244c && b !== 0) p.innerRowEnd = true; // sprmPFInnerTtp: a nested table's row end
    else if (sprm === 0x260a) p.ilvl = Math.min(b, 8);
    else if (sprm === 0x460b) p.ilfo = g[at]! | (g[at + 1]! << 8);
    at += size;
  }
  if (p.inTable && p.depth === 0) p.depth = 1;
  return p;
}

/** The runs of every FKP the PAPX bin table names, sorted by stream offset. */
function papxRuns(word: Uint8Array, fib: Fib): Run[] {
  const { fc, lcb } = fib.pair(13);
  const t = fib.table;
  if (lcb < 12 || fc + lcb > t.length) return [];
  const v = new DataView(t.buffer, t.byteOffset + fc, lcb);
  const n = Math.floor((lcb - 4) / 8);
  const runs: Run[] = [];
  // Each page once: a crafted bin table naming one page 400,000 times made 29 runs each time (2.3 GB).
  const seen = new Set<number>();
  for (let i = 0; i < n && runs.length < MAX_PAPX_RUNS; i++) {
    const pn = v.getUint32((n + 1) * 4 + i * 4, true) & 0x3fffff;
    if (seen.has(pn)) continue;
    seen.add(pn);
    const page = word.subarray(pn * 512, pn * 512 + 512);
    if (page.length < 512) continue;
    const pv = new DataView(page.buffer, page.byteOffset, 512);
    const crun = page[511]!;
    if (4 * (crun + 1) + 13 * crun > 511) continue;
    for (let j = 0; j < crun; j++) {
      const bOffset = page[4 * (crun + 1) + 13 * j]! * 2;
      let props = PLAIN;
      if (bOffset > 0 && bOffset < 511) {
        const cb = page[bOffset]!;
        const [start, size] = cb !== 0 ? [bOffset + 1, 2 * cb - 1] : [bOffset + 2, 2 * page[bOffset + 1]!];
        props = parsePapx(page.subarray(start, Math.min(511, start + size)));
      }
      runs.push({ start: pv.getUint32(j * 4, true), end: pv.getUint32((j + 1) * 4, true), props });
    }
  }
  return runs.sort((a, b) => a.start - b.start);
}

/** Style index → heading level (1–9), from the style sheet: built-in heading styles (sti 1–9) or their names. */
function headingStyles(fib: Fib): Map<number, number> {
  const out = new Map<number, number>();
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
    if (cbStd < 4 || at > end) continue;
    const sti = v.getUint16(std, true) & 0x0fff;
    let level = sti >= 1 && sti <= 9 ? sti : 0;
    const nameAt = std + baseSize;
    if (!level && nameAt + 2 <= at) {
      const cch = v.getUint16(nameAt, true);
      if (nameAt + 2 + cch * 2 <= at) {
        const name = new TextDecoder("utf-16le").decode(t.subarray(nameAt + 2, nameAt + 2 + cch * 2));
        const m = /^heading\s*([1-9])$/i.exec(name.trim());
        if (m) level = Number(m[1]);
      }
    }
    if (level) out.set(istd, level);
  }
  return out;
}

/** List override (1-based ilfo) → per level, whether it is numbered (not a bullet, not "none"). */
function numberedLevels(fib: Fib): Map<number, boolean[]> {
  const out = new Map<number, boolean[]>();
  const t = fib.table;
  const v = new DataView(t.buffer, t.byteOffset, t.byteLength);
  const lst = fib.pair(73);
  const lfo = fib.pair(74);
  if (lst.lcb < 2 || lst.fc + lst.lcb > t.length || lfo.lcb < 4 || lfo.fc + lfo.lcb > t.length) return out;
  const end = lst.fc + lst.lcb;
  const count = v.getInt16(lst.fc, true);
  const lists: { lsid: number; levels: number }[] = [];
  for (let i = 0; i < count && lst.fc + 2 + (i + 1) * 28 <= end; i++) {
    const at = lst.fc + 2 + i * 28;
    lists.push({ lsid: v.getInt32(at, true), levels: t[at + 26]! & 0x01 ? 1 : 9 });
  }
  // The levels follow the list headers, in the same order (MS-DOC: they come right after PlfLst in the stream).
  let at = end;
  const formats = new Map<number, boolean[]>();
  for (const list of lists) {
    const numbered: boolean[] = [];
    for (let l = 0; l < list.levels && at + 28 <= t.length; l++) {
      const nfc = t[at + 4]!;
      numbered.push(nfc !== 23 && nfc !== 255);
      const cch = at + 28 + t[at + 25]! + t[at + 24]! + 2 <= t.length ? v.getUint16(at + 28 + t[at + 25]! + t[at + 24]!, true) : 0;
      at += 28 + t[at + 25]! + t[at + 24]! + 2 + cch * 2;
    }
    formats.set(list.lsid, numbered);
  }
  const lfoCount = v.getInt32(lfo.fc, true);
  for (let i = 0; i < lfoCount && lfo.fc + 4 + (i + 1) * 16 <= lfo.fc + lfo.lcb; i++) {
    const levels = formats.get(v.getInt32(lfo.fc + 4 + i * 16, true));
    if (levels) out.set(i + 1, levels);
  }
  return out;
}

/** Looks up paragraph properties by the stream offset of a paragraph's mark. */
export class DocParagraphs {
  private readonly runs: Run[];
  readonly headings: Map<number, number>;
  private readonly lists: Map<number, boolean[]>;

  constructor(word: Uint8Array, fib: Fib) {
    this.runs = papxRuns(word, fib);
    this.headings = headingStyles(fib);
    this.lists = numberedLevels(fib);
  }

  /** The properties of the paragraph whose mark was read from stream offset `fc`. */
  at(fc: number): ParagraphProps {
    let lo = 0;
    let hi = this.runs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const r = this.runs[mid]!;
      if (fc < r.start) hi = mid - 1;
      else if (fc >= r.end) lo = mid + 1;
      else return r.props;
    }
    return PLAIN;
  }

  /** Whether level `ilvl` of list override `ilfo` is numbered. */
  numbered(ilfo: number, ilvl: number): boolean {
    return this.lists.get(ilfo)?.[ilvl] ?? false;
  }
}
