/**
 * @module documents/layout/emphasis-check
 * Whether markdown with emphasis delimiters placed in it reads back as meant: CommonMark's own delimiter algorithm
 * (spec 0.31, "Emphasis and strong emphasis" and "Phase 2: inline structure", process emphasis; GFM's
 * strikethrough for `~~`), run over the delimiters the renderer placed (inline-marks.ts). Delimiters next to each other
 * merge into one run, a run between two letters or between a letter and punctuation both opens and closes or does
 * neither, and the rule of 3 pairs them otherwise than nested: `*Wo****rd****s*` was right only by luck,
 * `***cbcb*a*xa*aé**` printed `**` and italicized the wrong letters, `x*~~c~~*y` printed both `*`. Where the check
 * fails, the renderer writes those marks as HTML tags instead, which every CommonMark reader takes as they are.
 * Code spans are read before emphasis: a delimiter inside one is code text, so the check is told where they are
 * (`` *`C:\Temp*\` `` closed its emphasis inside the code span and printed the opening `*`).
 */

/** The marks a delimiter stands for. */
export type DelimitedMark = "bold" | "italic" | "strike";

/** A delimiter the renderer wrote into a text: `length` characters of `char` from offset `at`, opening or closing `mark`. */
export interface PlacedDelimiter {
  at: number;
  length: number;
  char: "*" | "~";
  open: boolean;
  mark: DelimitedMark;
}

/** A run of delimiter characters as the parser sees it: adjacent placed delimiters of one character together. */
interface Run {
  start: number;
  end: number;
  char: "*" | "~";
  /** Its length before matching. */
  origin: number;
  /** Characters not yet used by a match. */
  count: number;
  canOpen: boolean;
  canClose: boolean;
  /** The run before it on the delimiter stack, by index (-1: none); runs between a match's ends leave the stack. */
  prev: number;
}

const WHITESPACE = /^[\t\n\f\r\p{Zs}]$/u;
const PUNCTUATION = /^[\p{P}\p{S}]$/u;

/** Whether the code point `c` ("" for none: a line's edge) is Unicode whitespace as CommonMark reads it, or none. */
function blank(c: string): boolean {
  if (c === "") return true;
  const code = c.charCodeAt(0);
  if (code < 0x80) return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d;
  return WHITESPACE.test(c);
}

/** Whether the code point `c` is Unicode punctuation (a P or S category) as CommonMark reads it. */
function punctuation(c: string): boolean {
  if (c === "") return false;
  const code = c.charCodeAt(0);
  if (code < 0x80) return (code >= 0x21 && code <= 0x2f) || (code >= 0x3a && code <= 0x40) || (code >= 0x5b && code <= 0x60) || (code >= 0x7b && code <= 0x7e);
  return PUNCTUATION.test(c);
}

/** The code point of `text` ending at `end` (exclusive), "" at the start. */
function charBefore(text: string, end: number): string {
  if (end <= 0) return "";
  const low = text.charCodeAt(end - 1);
  if (low >= 0xdc00 && low <= 0xdfff && end >= 2) {
    const high = text.charCodeAt(end - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(end - 2, end);
  }
  return text[end - 1]!;
}

/** The code point of `text` at `at`, "" past its end. */
function charAt(text: string, at: number): string {
  if (at >= text.length) return "";
  const high = text.charCodeAt(at);
  return high >= 0xd800 && high <= 0xdbff ? String.fromCodePoint(text.codePointAt(at)!) : text[at]!;
}

/** Whether `delimiters` are in order of their offsets already (the renderer places them so). */
function inOrder(delimiters: readonly PlacedDelimiter[]): boolean {
  for (let i = 1; i < delimiters.length; i++) if (delimiters[i]!.at < delimiters[i - 1]!.at) return false;
  return true;
}

/** Whether the character at `at` is backslash-escaped. */
function escaped(text: string, at: number): boolean {
  let n = 0;
  for (let i = at - 1; i >= 0 && text[i] === "\\"; i--) n++;
  return n % 2 === 1;
}

/**
 * Whether `text`, with `delimiters` placed in it (properly nested, as the renderer writes them), reads in CommonMark
 * as they say: every delimiter character used by a match, and every stretch of text between them with the marks
 * the delimiters around it give (`***x***` as strong in em is bold and italic, as meant). `before` and `after` are
 * the markdown around `text` on its line ("" at the line's start or end): its last and first characters decide how
 * the outer delimiters flank. `code` holds the code spans in `text` (start, end exclusive, in order): a delimiter
 * inside one does not read as placed. No delimiter may be outside `text`. Linear in the delimiters and
 * spans, as the specification's algorithm is with its openers' bottoms.
 */
export function readsAsPlaced(text: string, delimiters: readonly PlacedDelimiter[], before: string, after: string, code: readonly number[] = []): boolean {
  if (delimiters.length === 0) return true;
  const placed = inOrder(delimiters) ? delimiters : [...delimiters].sort((a, b) => a.at - b.at);
  // No delimiter inside a code span (the spans and the delimiters both in order).
  for (let d = 0, c = 0; d < placed.length && c + 1 < code.length; ) {
    const { at, length } = placed[d]!;
    if (at + length <= code[c]!) d++;
    else if (at >= code[c + 1]!) c += 2;
    else return false;
  }
  const runs: Run[] = [];
  /** The marks meant after each run: bold, italic, strike counts, three per run. */
  const meant: number[] = [];
  let bold = 0;
  let italic = 0;
  let strike = 0;
  for (const d of placed) {
    const last = runs[runs.length - 1];
    if (last && last.end === d.at && last.char === d.char) {
      last.end += d.length;
      last.count += d.length;
      last.origin += d.length;
      meant.length -= 3;
    } else runs.push({ start: d.at, end: d.at + d.length, char: d.char, origin: d.length, count: d.length, canOpen: false, canClose: false, prev: runs.length - 1 });
    const step = d.open ? 1 : -1;
    if (d.mark === "bold") bold += step;
    else if (d.mark === "italic") italic += step;
    else strike += step;
    meant.push(bold, italic, strike);
  }
  for (const run of runs) {
    // A literal character of the run's kind touching it would join it (`a ~` before `~~`).
    if ((run.start > 0 && text[run.start - 1] === run.char && !escaped(text, run.start - 1)) || text[run.end] === run.char) return false;
    // GFM strikethrough is two tildes; a run of another length strikes nothing in some readers.
    if (run.char === "~" && run.count !== 2) return false;
    const b = run.start > 0 ? charBefore(text, run.start) : charBefore(before, before.length);
    const a = run.end < text.length ? charAt(text, run.end) : charAt(after, 0);
    const bBlank = blank(b);
    const aBlank = blank(a);
    const bPunct = punctuation(b);
    const aPunct = punctuation(a);
    run.canOpen = !aBlank && (!aPunct || bBlank || bPunct);
    run.canClose = !bBlank && (!bPunct || aBlank || aPunct);
  }
  /** Per run boundary, how many matches of each kind (strong, emphasis, strikethrough) open (+) or close (-) there. */
  const changes = new Int32Array(3 * runs.length);
  /**
   * The openers' bottoms, by kind (`*` runs by whether the closer can open and its length mod 3, 0–5; `~` 6): below
   * these a closer of that kind found no opener before, so none is looked for again.
   */
  const bottoms = [-1, -1, -1, -1, -1, -1, -1];
  for (let c = 0; c < runs.length; c++) {
    const closer = runs[c]!;
    // Runs all used by matches are off the stack.
    while (closer.prev >= 0 && runs[closer.prev]!.count === 0) closer.prev = runs[closer.prev]!.prev;
    while (closer.canClose && closer.count > 0) {
      const key = closer.char === "~" ? 6 : (closer.canOpen ? 3 : 0) + (closer.origin % 3);
      const bottom = bottoms[key]!;
      let o = closer.prev;
      for (; o > bottom; o = runs[o]!.prev) {
        const opener = runs[o]!;
        if (opener.char !== closer.char || !opener.canOpen || opener.count === 0) continue;
        if (closer.char === "~") break;
        const both = closer.canOpen || opener.canClose;
        const sum = opener.origin + closer.origin;
        if (!both || sum % 3 !== 0 || (opener.origin % 3 === 0 && closer.origin % 3 === 0)) break;
      }
      if (o <= bottom) {
        bottoms[key] = c - 1;
        // A closer that cannot open leaves the stack: its characters are text.
        if (!closer.canOpen) return false;
        break;
      }
      const opener = runs[o]!;
      const use = closer.char === "~" ? 2 : opener.count >= 2 && closer.count >= 2 ? 2 : 1;
      const kind = closer.char === "~" ? 2 : use === 2 ? 0 : 1;
      // The delimiters between the two leave the stack: any characters left in them are text.
      for (let k = closer.prev; k > o; k = runs[k]!.prev) if (runs[k]!.count > 0) return false;
      closer.prev = o;
      opener.count -= use;
      closer.count -= use;
      changes[3 * o + kind]!++;
      changes[3 * c + kind]!--;
      if (opener.count === 0) closer.prev = opener.prev;
    }
  }
  for (const r of runs) if (r.count > 0) return false;
  const got = [0, 0, 0];
  for (let k = 0; k < runs.length - 1; k++) {
    for (let m = 0; m < 3; m++) {
      got[m]! += changes[3 * k + m]!;
      if (got[m]! > 0 !== meant[3 * k + m]! > 0) return false;
    }
  }
  return true;
}
