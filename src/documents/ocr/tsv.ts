/**
 * @module documents/ocr/tsv
 * tesseract's TSV output → positioned lines, so OCR'd text goes through the same layout as a text layer.
 * Font size is estimated per word from its height and its letters (a word with capitals or ascenders reaches
 * ~0.72 em above the baseline, one with only x-height letters ~0.5 em; descenders add ~0.22 em), and the median
 * of a line's words is the line's size.
 *
 * tesseract puts a table row's cells in one line (once its ruling lines are gone: documents/ocr/ruling-lines.ts);
 * a line is cut where the gap between two words is a table's, not a word's, so that the layout sees one line per
 * cell, as mupdf's text layer gives it, and can rebuild the table.
 */
import type { TextLine } from "../layout/model.ts";
import { CELL_GAP_EM } from "../layout/rows.ts";

const ASCENDER_EM = 0.72;
const X_HEIGHT_EM = 0.52;
const DESCENDER_EM = 0.22;

/** Estimated em size (in the word's units) from its box height and letters. */
export function wordEm(text: string, height: number): number {
  const top = /[A-Z0-9bdfhklt|()[\]{}\/!?ßÀ-ÞàáâãäåèéêëìíîïòóôõöùúûüÄÖÜ]/.test(text) ? ASCENDER_EM : X_HEIGHT_EM;
  const bottom = /[gjpqy,;()[\]{}|]/.test(text) ? DESCENDER_EM : 0;
  return height / (top + bottom);
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

/** Words recognised with less confidence than this (0–100) are noise unless their line vouches for them. */
const MIN_WORD_CONFIDENCE = 20;
/**
 * A line whose median word confidence reaches this is text, so its low-confidence words that have a letter or a
 * digit are kept: tesseract gives 0–20 to real tokens such as `description[ASN1_MAX_ERROR_DESCRIPTION_SIZE]`
 * inside well-read lines, while texture in photos comes as lines of low-confidence words only.
 */
const TRUSTED_LINE_MEDIAN_CONFIDENCE = 60;
const HAS_ALNUM = /[\p{L}\p{N}]/u;
// A gap between words of at least CELL_GAP_EM ems (the line's size) cuts the line: the layout's own table-cell gap,
// so that a cut the layout would join again is not made. Justified text keeps its word gaps under an em.

interface Word {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  text: string;
  conf: number;
}

/** The words of one line worth keeping (see {@link MIN_WORD_CONFIDENCE}). */
function keptWords(words: Word[]): Word[] {
  const trusted = median(words.map((w) => w.conf)) >= TRUSTED_LINE_MEDIAN_CONFIDENCE;
  return words.filter((w) => w.conf >= MIN_WORD_CONFIDENCE || (trusted && HAS_ALNUM.test(w.text)));
}

/** Lines of a TSV result; `scale` converts pixels to points (72 / dpi). */
export function tsvToLines(tsv: string, scale: number): TextLine[] {
  const lines = new Map<string, Word[]>();
  for (const row of tsv.split("\n")) {
    const f = row.split("\t");
    if (f.length < 12 || f[0] !== "5") continue;
    const text = f.slice(11).join("\t").trim();
    if (!text) continue;
    const [left, top, width, height] = [Number(f[6]), Number(f[7]), Number(f[8]), Number(f[9])];
    const k = `${f[1]}:${f[2]}:${f[3]}:${f[4]}`;
    let line = lines.get(k);
    if (!line) lines.set(k, (line = []));
    line.push({ x0: left, y0: top, x1: left + width, y1: top + height, text, conf: Number(f[10]) });
  }
  const out: TextLine[] = [];
  for (const all of lines.values()) {
    const words = keptWords(all);
    if (words.length === 0) continue;
    const em = median(words.map((w) => wordEm(w.text, w.y1 - w.y0)));
    // Every part keeps the line's size, which the layout measures the cell gap against. Gaps are taken between all
    // the words read, dropped ones too: a dropped word was ink, not a table's gap.
    const kept = new Set(words);
    let part: Word[] = [];
    for (let i = 0; i < all.length; i++) {
      if (i > 0 && all[i]!.x0 - all[i - 1]!.x1 >= CELL_GAP_EM * em && part.length > 0) {
        out.push(lineOf(part, scale, em));
        part = [];
      }
      if (kept.has(all[i]!)) part.push(all[i]!);
    }
    if (part.length > 0) out.push(lineOf(part, scale, em));
  }
  return out;
}

function lineOf(words: Word[], scale: number, em: number): TextLine {
  return {
    x0: Math.min(...words.map((w) => w.x0)) * scale,
    x1: Math.max(...words.map((w) => w.x1)) * scale,
    y0: Math.min(...words.map((w) => w.y0)) * scale,
    y1: Math.max(...words.map((w) => w.y1)) * scale,
    text: words.map((w) => w.text).join(" "),
    size: Math.round(em * scale * 2) / 2,
    bold: false,
    italic: false,
    mono: false,
  };
}
