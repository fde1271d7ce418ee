/**
 * @module documents/office/doc-characters
 * The character formatting of a Word 97–2003 document's text (MS-DOC 2.4.6.2 "Determining Character Properties"),
 * as far as the markdown keeps it: whether a character is shown (a tracked deletion, sprmCFRMarkDel, and hidden
 * text, sprmCFVanish, are not: Word prints neither, as a DOCX's `w:del` and `w:vanish`), and its marks: bold,
 * italic, struck through (single or double), code (a monospace font, doc-fonts.ts, or a code character style).
 *
 * A run's properties are its paragraph style's, then its character style's (sprmCIstd), then its own sprms (a CHPX
 * in a formatted disk page of the WordDocument stream, found through the PlcBteChpx and keyed by stream offset, as
 * paragraph properties are: doc-paragraphs.ts). Bold, italic and the strikes are toggles: 0 and 1 set them, 0x80
 * keeps the style's value and 0x81 reverses it. Marks are what the run adds to its paragraph style: a table's
 * heading row or a heading is bold by its style, and that bold is not the author's stress (an RTF's runs are read so
 * too, rtf-paragraph-state.ts); a monospace paragraph style does mark its text code (a listing).
 */
import type { Marks } from "../layout/model.ts";
import { operandSize } from "./doc-paragraphs.ts";
import { monospaceFonts } from "./doc-fonts.ts";
import { MAX_STYLE_CHAIN, type DocStyle } from "./doc-styles.ts";
import { fkpPages, runIndexAt } from "./doc-fkp.ts";
import type { Fib } from "./doc-text.ts";
import { isCodeCharacterStyle } from "./rtf-style-names.ts";

/** Flags of a character, one byte each (doc.ts reads a paragraph's characters with them). */
export const BOLD = 1;
export const ITALIC = 2;
export const STRIKE = 4;
export const CODE = 8;
/** Not shown: deleted or hidden. */
export const HIDDEN = 16;
/** The flags that are marks (an index of {@link MARKS}). */
export const MARK_FLAGS = BOLD | ITALIC | STRIKE | CODE;

/** The marks each combination of the four mark flags stands for, made once. */
export const MARKS: readonly Marks[] = Array.from({ length: 16 }, (_, f) => ({
  ...(f & BOLD ? { bold: true } : {}),
  ...(f & ITALIC ? { italic: true } : {}),
  ...(f & STRIKE ? { strike: true } : {}),
  ...(f & CODE ? { code: true } : {}),
}));

/** Most character-property runs read (a 5,000-page document has a few hundred thousand); past it, text is plain. */
const MAX_CHPX_RUNS = 400_000;

/** FibRgFcLcb97 indexes of the CHPX bin table (fcPlcfBteChpx) and the style sheet (fcStshf). */
const CHPX_BIN_TABLE_PAIR = 12;
const STYLE_SHEET_PAIR = 1;

/** The sprms read (MS-DOC 2.6.1). */
const SPRM_DELETED = 0x0800;
const SPRM_CHARACTER_STYLE = 0x4a30;
const SPRM_PLAIN = 0x2a33;
const SPRM_BOLD = 0x0835;
const SPRM_ITALIC = 0x0836;
const SPRM_STRIKE = 0x0837;
const SPRM_VANISH = 0x083c;
const SPRM_FONT = 0x4a4f;
const SPRM_DOUBLE_STRIKE = 0x2a53;

/** The istd of a run with no character style ("Default Paragraph Font"). */
const DEFAULT_CHARACTER_STYLE = 10;

/** Character properties as the sprms leave them. */
interface Chp {
  bold: boolean;
  italic: boolean;
  strike: boolean;
  hidden: boolean;
  deleted: boolean;
  font: number;
  codeStyle: boolean;
}

const DEFAULT_CHP: Chp = { bold: false, italic: false, strike: false, hidden: false, deleted: false, font: -1, codeStyle: false };

/** A toggle operand applied to `was` (MS-DOC 2.9.326 ToggleOperand). */
const toggle = (op: number, was: boolean) => (op === 0x80 ? was : op === 0x81 ? !was : op !== 0);

/**
 * One run of an FKP: characters read from stream offsets [start, end) have the sprms at [at, at + size) of the
 * WordDocument stream (numbers, not a view per run: a long document has hundreds of thousands of runs).
 */
interface Run {
  start: number;
  end: number;
  at: number;
  size: number;
}

/** The runs of every FKP the CHPX bin table names, sorted by stream offset. */
function chpxRuns(word: Uint8Array, fib: Fib): Run[] {
  const runs: Run[] = [];
  for (const { page, view, crun, streamOffset } of fkpPages(word, fib, CHPX_BIN_TABLE_PAIR, 1)) {
    if (runs.length >= MAX_CHPX_RUNS) break;
    for (let j = 0; j < crun; j++) {
      const offset = page[4 * (crun + 1) + j]! * 2;
      const size = offset > 0 && offset < 511 ? Math.min(511, offset + 1 + page[offset]!) - (offset + 1) : 0;
      runs.push({ start: view.getUint32(j * 4, true), end: view.getUint32((j + 1) * 4, true), at: streamOffset + offset + 1, size });
    }
  }
  return runs.sort((a, b) => a.start - b.start);
}

/** Calls `each(sprm, operandAt)` for every sprm of `grpprl`. */
function eachSprm(grpprl: Uint8Array, each: (sprm: number, at: number) => void): void {
  for (let at = 0; at + 2 <= grpprl.length; ) {
    const sprm = grpprl[at]! | (grpprl[at + 1]! << 8);
    at += 2;
    const size = operandSize(grpprl, at, sprm);
    if (size <= 0 || at + size > grpprl.length) return;
    each(sprm, at);
    at += size;
  }
}

/** The character properties of each stretch of a document's text, looked up by stream offset. */
export class DocCharacters {
  private readonly runs: Run[];
  private readonly mono: Set<number>;
  /**
   * The body text's font (the Normal style's, else the style sheet's default): not code even when monospace (a
   * manuscript typed all in Courier is not one long listing).
   */
  private readonly bodyFont: number;
  /** Style index → its resolved character properties (paragraph styles' and character styles'), once asked. */
  private readonly styleChps = new Map<number, Chp>();
  /** The last run and paragraph style asked, and the flags they gave (runs are asked in order). */
  private lastRun = -1;
  private lastIstd = -1;
  private lastFlags = 0;

  constructor(
    private readonly word: Uint8Array,
    fib: Fib,
    private readonly styles: readonly (DocStyle | undefined)[],
  ) {
    this.runs = chpxRuns(word, fib);
    this.mono = monospaceFonts(fib);
    const normal = this.styleChp(0).font;
    this.bodyFont = normal >= 0 ? normal : defaultFont(fib);
  }

  /**
   * Fills `out[from..to)` with the flags of the characters read from stream offsets `offsets[from..to)`, in a
   * paragraph of style `istd`.
   */
  fill(out: Uint8Array, offsets: Uint32Array, from: number, to: number, istd: number): void {
    let run = this.lastRun;
    let r = this.runs[run];
    let flags = this.flags(run, istd);
    for (let i = from; i < to; i++) {
      const fc = offsets[i]!;
      if (!r || fc < r.start || fc >= r.end) {
        run = runIndexAt(this.runs, fc);
        r = this.runs[run];
        flags = this.flags(run, istd);
      }
      out[i] = flags;
    }
  }


  /** The flags of run `run` (-1: none, the style's formatting) in a paragraph of style `istd`. */
  private flags(run: number, istd: number): number {
    if (run === this.lastRun && istd === this.lastIstd) return this.lastFlags;
    const paragraph = this.styleChp(istd);
    const chp = { ...paragraph };
    const r = this.runs[run];
    if (r && r.size > 0) {
      const grpprl = this.word.subarray(r.at, r.at + r.size);
      // The character style first, wherever its sprm stands; then the run's own sprms in their order.
      let characterStyle = DEFAULT_CHARACTER_STYLE;
      eachSprm(grpprl, (sprm, at) => {
        if (sprm === SPRM_CHARACTER_STYLE) characterStyle = grpprl[at]! | (grpprl[at + 1]! << 8);
      });
      if (characterStyle !== DEFAULT_CHARACTER_STYLE) this.applyStyle(chp, characterStyle, 0);
      eachSprm(grpprl, (sprm, at) => {
        if (sprm === SPRM_PLAIN) Object.assign(chp, paragraph);
        else apply(chp, sprm, grpprl, at);
      });
    }
    let flags = chp.hidden || chp.deleted ? HIDDEN : 0;
    if (chp.bold && !paragraph.bold) flags |= BOLD;
    if (chp.italic && !paragraph.italic) flags |= ITALIC;
    if (chp.strike && !paragraph.strike) flags |= STRIKE;
    if (chp.codeStyle || (this.mono.has(chp.font) && chp.font !== this.bodyFont)) flags |= CODE;
    this.lastRun = run;
    this.lastIstd = istd;
    this.lastFlags = flags;
    return flags;
  }

  /** The character properties style `istd` gives (its base styles' first). */
  private styleChp(istd: number): Chp {
    let chp = this.styleChps.get(istd);
    if (!chp) {
      chp = { ...DEFAULT_CHP };
      this.applyStyle(chp, istd, 0);
      this.styleChps.set(istd, chp);
    }
    return chp;
  }

  /** Applies style `istd` (its base styles first, at most {@link MAX_STYLE_CHAIN} deep) to `chp`. */
  private applyStyle(chp: Chp, istd: number, depth: number): void {
    const style = this.styles[istd];
    if (!style || depth >= MAX_STYLE_CHAIN) return;
    if (style.base !== undefined && style.base !== istd) this.applyStyle(chp, style.base, depth + 1);
    if (style.stk === 2 && isCodeCharacterStyle(style.name)) chp.codeStyle = true;
    eachSprm(style.chpx, (sprm, at) => apply(chp, sprm, style.chpx, at));
  }
}

/** The style sheet's default font (STSHI's ftcAsci, MS-DOC 2.9.272 Stshif), or -1. */
function defaultFont(fib: Fib): number {
  const { fc, lcb } = fib.pair(STYLE_SHEET_PAIR);
  const t = fib.table;
  if (lcb < 16 || fc + 16 > t.length || (t[fc]! | (t[fc + 1]! << 8)) < 14) return -1;
  return t[fc + 14]! | (t[fc + 15]! << 8);
}

/** Applies one sprm (its operand at `at` of `g`) to `chp`. */
function apply(chp: Chp, sprm: number, g: Uint8Array, at: number): void {
  const op = g[at]!;
  if (sprm === SPRM_BOLD) chp.bold = toggle(op, chp.bold);
  else if (sprm === SPRM_ITALIC) chp.italic = toggle(op, chp.italic);
  else if (sprm === SPRM_STRIKE || sprm === SPRM_DOUBLE_STRIKE) chp.strike = toggle(op, chp.strike);
  else if (sprm === SPRM_VANISH) chp.hidden = toggle(op, chp.hidden);
  else if (sprm === SPRM_DELETED) chp.deleted = op !== 0;
  else if (sprm === SPRM_FONT) chp.font = op | (g[at + 1]! << 8);
}
