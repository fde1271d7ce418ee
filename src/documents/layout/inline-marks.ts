/**
 * @module documents/layout/inline-marks
 * Bold, italic and strikethrough in markdown (render.ts's inline text): each maximal run carrying a mark wrapped
 * once, the mark that runs furthest outermost, so a word bold in its first half and bold italic in its second is
 * `**Word*play***`, and one italic throughout and bold in its middle `*Wo**rd**s*` (the marks nested in a fixed order
 * gave `*Wo****rd****s*`). CommonMark cannot say every mark change inside a word: a delimiter between two letters, or
 * between a letter and punctuation, may open, close, both or neither, and the rule of 3 pairs such delimiters
 * otherwise than nested. So each stretch of marked runs is read back with CommonMark's own algorithm
 * (emphasis-check.ts): written with the punctuation at its runs' edges outside the delimiters, else inside them, and
 * a stretch that reads as meant neither way is written with HTML tags (`<strong>`, `<em>`, `<s>`: the HTML format's
 * own, render-html.ts), which CommonMark and GFM keep as they are: `x<em><s>c</s></em>y`, never stray asterisks.
 * A code span is one unit: no delimiter goes inside it, nor between its backslash and backtick (`` *`C:\Temp*\` ``
 * put the closing `*` inside the code, read as an escaped backtick), and the check is told where the code spans are.
 * Linear in the stretch: what precedes a stretch is kept as its last two characters (slicing the growing output for
 * them copied it each time: 400,000 runs took 20 s), and a stretch none of whose edges hold punctuation is built and
 * checked once, not once per way of placing it.
 */
import type { Inline } from "./model.ts";
import { readsAsPlaced, type DelimitedMark, type PlacedDelimiter } from "./emphasis-check.ts";

/** The marks written as delimiters, in the order they nest when two run equally far. */
const MARKS: readonly DelimitedMark[] = ["bold", "italic", "strike"];
const DELIMITER: Record<DelimitedMark, string> = { bold: "**", italic: "*", strike: "~~" };
/** The tags a stretch falls back to: the HTML format's own (render-html.ts), so the two formats write one element. */
const TAG: Record<DelimitedMark, [string, string]> = { bold: ["<strong>", "</strong>"], italic: ["<em>", "</em>"], strike: ["<s>", "</s>"] };
const BIT: Record<DelimitedMark, number> = { bold: 1, italic: 2, strike: 4 };

/** Punctuation as CommonMark's flanking rules read it (ASCII and Unicode punctuation and symbols). */
const PUNCTUATION = /^[\p{P}\p{S}]$/u;
/** Characters at a marked run's edge that are markdown syntax of this renderer (nested delimiters, code spans). */
const SYNTAX_EDGE = new Set(["*", "~", "`", "_", "[", "]", "\\"]);
const isBlank = (c: string) => c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v" || /^\s$/.test(c);

/**
 * How marks are written: delimiters with the punctuation at a run's edges outside them (`**Note**:text`, where
 * `**Note:**text` is no emphasis), delimiters around all of the run (`**(a) b**`, where `(**a) b**` is none), or
 * HTML tags. The first that reads as meant is taken, in this order.
 */
type MarkStyle = "punctuation-out" | "punctuation-in" | "tags";
const DELIMITED_STYLES: readonly MarkStyle[] = ["punctuation-out", "punctuation-in"];

/** Markdown with the delimiters placed in it (offsets into `text`). */
interface Marked {
  text: string;
  delimiters: PlacedDelimiter[];
  /** The code spans in `text`, as offsets: start, end (exclusive), start, end…, in order. */
  code: number[];
  /** Whether punctuation was moved out of delimiters ("punctuation-out" only): placed otherwise, the text differs. */
  moved: boolean;
}

/** Whether `c` carries `mark` as a delimited mark (a note reference carries none: it is `[^n]`). */
const has = (c: Inline, mark: DelimitedMark) => c[mark] === true && c.note === undefined;
const marked = (c: Inline) => has(c, "bold") || has(c, "italic") || has(c, "strike");

/**
 * Markdown of `content[from, to)`, whose inlines' markdown is `pieces`, with their marks; `before` and `after` are
 * the markdown around it on its line ("" at an end). Each stretch of marked inlines is written with delimiters when
 * CommonMark reads them as meant, else with HTML tags (see the module comment).
 */
export function marksMarkdown(pieces: readonly string[], content: readonly Inline[], from: number, to: number, before: string, after: string): string {
  let out = "";
  /** The last two characters of `before` and `out`: what a stretch's opening delimiter follows. */
  let tail = before.slice(-2);
  const append = (s: string) => {
    out += s;
    tail = lastTwo(tail, s);
  };
  for (let i = from; i < to; ) {
    if (!marked(content[i]!)) {
      append(pieces[i]!);
      i++;
      continue;
    }
    let j = i + 1;
    while (j < to && marked(content[j]!)) j++;
    let k = j;
    while (k < to && pieces[k] === "") k++;
    const next = k < to ? pieces[k]! : after;
    let written: string | undefined;
    for (const style of DELIMITED_STYLES) {
      const stretch = nested(pieces, content, i, j, 0, style);
      if (readsAsPlaced(stretch.text, stretch.delimiters, tail, next, stretch.code)) {
        written = stretch.text;
        break;
      }
      // Nothing moved out: placed with the punctuation inside, the stretch is the same and reads the same.
      if (!stretch.moved) break;
    }
    append(written ?? nested(pieces, content, i, j, 0, "tags").text);
    i = j;
  }
  return out;
}

/** The last two characters of `tail` followed by `s`, without copying more than `s`'s end. */
function lastTwo(tail: string, s: string): string {
  return s.length >= 2 ? s.slice(-2) : (tail + s).slice(-2);
}

/**
 * `content[from, to)` with the marks not in `inside` (a bit set of {@link BIT}), written in `style`:
 * at each inline, the mark it carries that runs furthest is opened over that whole run, the others inside it.
 * Linear: a run's extent is scanned once at each of the three levels.
 */
function nested(pieces: readonly string[], content: readonly Inline[], from: number, to: number, inside: number, style: MarkStyle): Marked {
  let text = "";
  const delimiters: PlacedDelimiter[] = [];
  const code: number[] = [];
  let moved = false;
  const open = (c: Inline) => MARKS.some((m) => !(inside & BIT[m]) && has(c, m));
  for (let i = from; i < to; ) {
    let best: DelimitedMark | undefined;
    let end = i + 1;
    for (const m of MARKS) {
      if (inside & BIT[m] || !has(content[i]!, m)) continue;
      let j = i + 1;
      while (j < to && has(content[j]!, m)) j++;
      if (!best || j > end) [best, end] = [m, j];
    }
    if (!best) {
      let j = i + 1;
      while (j < to && !open(content[j]!)) j++;
      for (let k = i; k < j; k++) {
        if (content[k]!.code && pieces[k]) code.push(text.length, text.length + pieces[k]!.length);
        text += pieces[k];
      }
      i = j;
      continue;
    }
    const inner = nested(pieces, content, i, end, inside | BIT[best], style);
    const wrapped = style === "tags" ? tagged(inner, best) : delimited(inner, best, style === "punctuation-out");
    for (const d of wrapped.delimiters) delimiters.push(shifted(d, text.length));
    for (const at of wrapped.code) code.push(at + text.length);
    moved ||= wrapped.moved;
    text += wrapped.text;
    i = end;
  }
  return { text, delimiters, code, moved };
}

/** `d` moved `by` characters on (in place when it is the renderer's own copy). */
function shifted(d: PlacedDelimiter, by: number): PlacedDelimiter {
  d.at += by;
  return d;
}

/**
 * `inner` in `mark`'s HTML tags, its outer blanks outside them; blanks alone are not marked. A `~` touching a tag is
 * escaped: GFM reads a single `~` as strikethrough too, and one after `</em>` paired with another across the text
 * (`<strong><s>~</s></strong>   <em>bb</em>~` struck "bb").
 */
function tagged(inner: Marked, mark: DelimitedMark): Marked {
  const text = inner.text;
  let start = 0;
  let end = text.length;
  while (start < end && isBlank(text[start]!)) start++;
  while (end > start && isBlank(text[end - 1]!)) end--;
  if (start >= end) return inner;
  const [open, close] = TAG[mark];
  let middle = text.slice(start, end);
  let shift = open.length;
  if (middle[0] === "~") {
    const run = /^~+/.exec(middle)![0];
    middle = run.replace(/~/g, "\\~") + middle.slice(run.length);
    shift += run.length;
  }
  if (middle.endsWith("~") && !escapedAt(middle, middle.length - 1, 0)) {
    const run = /~+$/.exec(middle)![0];
    middle = middle.slice(0, -run.length) + run.replace(/~/g, "\\~");
  }
  // Escapes are added only at the edges, outside any code span (one starts and ends with a backtick).
  const code = inner.code.length === 0 ? inner.code : inner.code.map((at, n) => (at > start || (at === start && n % 2 === 0) ? at + shift : at));
  return { text: `${text.slice(0, start)}${open}${middle}${close}${text.slice(end)}`, delimiters: [], code, moved: false };
}

/**
 * `inner` wrapped in `mark`'s delimiter, with what CommonMark needs outside the delimiters moved out: blanks (`** bold**`
 * is no emphasis) and punctuation at the edges, whole escapes included (`**Note:**text`, `word**(1)**`,
 * `**注意：**文字` printed their asterisks: a delimiter between punctuation and a letter cannot open or close). A run
 * of blanks and punctuation only is not marked. Linear: the edges are found by index, not by a regex that
 * backtracked over every blank (a bold run of 300,000 spaces took 42 s). The edges stop at syntax (an inner
 * delimiter, a code span), so the inner delimiters stay between the new ones, and never go into a code span: a
 * code span ending in a backslash (`` `C:\Temp\` ``) ends in what looked like an escaped backtick. Without
 * `punctuationOut`, only blanks are moved out.
 */
function delimited(inner: Marked, mark: DelimitedMark, punctuationOut: boolean): Marked {
  const text = inner.text;
  // Where the code spans start and end (a span's edge is a backtick, but the one before may look like its escape).
  const codeStarts = inner.code.length === 0 ? NONE : new Set(inner.code.filter((_, n) => n % 2 === 0));
  const codeEnds = inner.code.length === 0 ? NONE : new Set(inner.code.filter((_, n) => n % 2 === 1));
  let start = 0;
  let end = text.length;
  /** Whether punctuation was moved out (what only `punctuationOut` does). */
  let moved = inner.moved;
  for (;;) {
    if (codeStarts.has(start)) break;
    if (start < end && isBlank(text[start]!)) start++;
    else if (!punctuationOut) break;
    else if (start + 1 < end && text[start] === "\\" && PUNCTUATION.test(text[start + 1]!)) [start, moved] = [start + 2, true];
    else if (start < end && PUNCTUATION.test(text[start]!) && !SYNTAX_EDGE.has(text[start]!)) [start, moved] = [start + 1, true];
    else break;
  }
  for (;;) {
    if (codeEnds.has(end)) break;
    if (end > start && isBlank(text[end - 1]!)) end--;
    else if (!punctuationOut) break;
    else if (end - 1 > start && PUNCTUATION.test(text[end - 1]!) && escapedAt(text, end - 1, start)) [end, moved] = [end - 2, true];
    else if (end > start && PUNCTUATION.test(text[end - 1]!) && !SYNTAX_EDGE.has(text[end - 1]!)) [end, moved] = [end - 1, true];
    else break;
  }
  if (start >= end) return { ...inner, moved };
  const d = DELIMITER[mark];
  const char = d[0] as "*" | "~";
  const delimiters: PlacedDelimiter[] = [{ at: start, length: d.length, char, open: true, mark }];
  for (const x of inner.delimiters) delimiters.push(x.at >= start ? shifted(x, d.length) : x);
  delimiters.push({ at: end + d.length, length: d.length, char, open: false, mark });
  // A span's start (even index) at `end` or on is after both delimiters; its end (odd, exclusive) past `end` is.
  const code = inner.code.length === 0 ? inner.code : inner.code.map((at, n) => at + d.length * ((at > end || (at === end && n % 2 === 0) ? 1 : 0) + (at > start || (at === start && n % 2 === 0) ? 1 : 0)));
  return { text: `${text.slice(0, start)}${d}${text.slice(start, end)}${d}${text.slice(end)}`, delimiters, code, moved };
}

const NONE: ReadonlySet<number> = new Set();

/** Whether the character at `at` is escaped: an odd number of backslashes before it, back to `from`. */
function escapedAt(text: string, at: number, from: number): boolean {
  let n = 0;
  for (let i = at - 1; i >= from && text[i] === "\\"; i--) n++;
  return n % 2 === 1;
}
