/**
 * @module documents/office/doc-paragraphs
 * What a Word 97–2003 document says about each paragraph, beyond its text (MS-DOC): its style (which makes it a
 * heading, a quotation or a line of code: doc-styles.ts), its list and level (a list item: doc-lists.ts), whether it
 * is in a table's cell, or ends a table's row. Paragraph properties live in formatted disk pages (FKPs) of the
 * WordDocument stream, found through a bin table in the table stream and keyed by stream offset. Every count and
 * offset is the file's word, so each is checked against the bytes it points into; what cannot be read is left at
 * its default (a plain paragraph) rather than failing the document.
 */
import { fkpPages, runIndexAt } from "./doc-fkp.ts";
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

/** The operand size of a sprm whose operand is at `at` of `g` (MS-DOC 2.2.5.1: from its `spra` bits; 6 is variable). */
export function operandSize(g: Uint8Array, at: number, sprm: number): number {
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
  const runs: Run[] = [];
  for (const { page, view, crun } of fkpPages(word, fib, 13, 13)) {
    if (runs.length >= MAX_PAPX_RUNS) break;
    for (let j = 0; j < crun; j++) {
      const bOffset = page[4 * (crun + 1) + 13 * j]! * 2;
      let props = PLAIN;
      if (bOffset > 0 && bOffset < 511) {
        const cb = page[bOffset]!;
        const [start, size] = cb !== 0 ? [bOffset + 1, 2 * cb - 1] : [bOffset + 2, 2 * page[bOffset + 1]!];
        props = parsePapx(page.subarray(start, Math.min(511, start + size)));
      }
      runs.push({ start: view.getUint32(j * 4, true), end: view.getUint32((j + 1) * 4, true), props });
    }
  }
  return runs.sort((a, b) => a.start - b.start);
}

/** Looks up paragraph properties by the stream offset of a paragraph's mark. */
export class DocParagraphs {
  private readonly runs: Run[];

  constructor(word: Uint8Array, fib: Fib) {
    this.runs = papxRuns(word, fib);
  }

  /** The properties of the paragraph whose mark was read from stream offset `fc`. */
  at(fc: number): ParagraphProps {
    return this.runs[runIndexAt(this.runs, fc)]?.props ?? PLAIN;
  }
}
