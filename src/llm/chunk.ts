/**
 * @module llm/chunk
 * Long pages are split to fit the model's context; the partial answers are merged field by field
 * (llm/merge-answers.ts).
 *
 * Sizes are estimated tokens, not characters: a Chinese character costs a tokenizer several times what an English
 * letter does. Chunks were cut at 3 characters a token, "conservative so non-English text still fits": a Chinese
 * page's summary chunks of ~17,400 characters were 10,659 tokens (o200k) to 14,343 (cl100k) with a context of 8,192,
 * and vLLM and LM Studio refused every call (400, context length) — a 503 to the client.
 */

/**
 * ASCII characters a token is assumed to hold, and the unit of every size "in characters" the LLM code passes around
 * (`LlmClient.chunkChars`, the `maxChars` below): one such character is a third of an estimated token, so an ASCII
 * text's size is its length and any other text's is {@link weightedLength}. English averages about four characters
 * a token (cl100k, o200k), so three leaves room.
 */
export const CHARS_PER_TOKEN = 3;

/** The estimate's unit: a sixth of a token, fine enough for the ratios of {@link SCRIPT_SIXTHS} and integral. */
const SIXTHS_PER_TOKEN = 6;
/** Sixths of a token an ASCII character costs. */
const ASCII_SIXTHS = SIXTHS_PER_TOKEN / CHARS_PER_TOKEN;

/**
 * Tokens per UTF-16 code unit, in sixths, from each entry's first code unit up to the next entry's. Measured with
 * cl100k_base (GPT-4's tokenizer, the costliest of the common ones outside Latin script: o200k, Llama 3, Qwen and
 * Gemma need fewer) on Debian's gettext catalogues of 100+ languages and Vim's tutors, and rounded up: Han is 0.93
 * tokens a character in Simplified and 1.48 in Traditional Chinese, hence 1.5. Scripts not measured take the
 * costlier 13 or 18 (three bytes of UTF-8, a token each, is the most a byte-level tokenizer spends).
 */
const SCRIPT_SIXTHS: readonly (readonly [firstCodeUnit: number, sixths: number])[] = [
  [0x0000, ASCII_SIXTHS],
  [0x0080, 6], // Latin-1, Latin Extended, IPA, combining marks (~1; in words less)
  [0x0370, 7], // Greek (1.02–1.09)
  [0x0400, 5], // Cyrillic: the letters of Russian, Ukrainian, Bulgarian, Serbian (0.51–0.71)
  [0x0460, 12], // Cyrillic beyond them (Kazakh, Mongolian, Tatar, Tajik letters), Cyrillic Supplement
  [0x0530, 13], // Armenian (2.0)
  [0x0590, 9], // Hebrew (1.16, Yiddish 1.40)
  [0x0600, 7], // Arabic (0.86 Arabic and Persian, 1.14 Uyghur)
  [0x0700, 13], // Syriac, Thaana, NKo, Samaritan, Mandaic
  [0x08a0, 7], // Arabic Extended-A
  [0x0900, 8], // Devanagari (1.17–1.22)
  [0x0980, 10], // Bengali, Assamese (1.39–1.53)
  [0x0a00, 13], // Gurmukhi, Gujarati (2.0)
  [0x0b00, 18], // Oriya (2.95)
  [0x0b80, 10], // Tamil (1.52)
  [0x0c00, 13], // Telugu, Kannada (2.0)
  [0x0d00, 11], // Malayalam (1.68)
  [0x0d80, 13], // Sinhala (2.0)
  [0x0e00, 6], // Thai (0.92)
  [0x0e80, 13], // Lao, Tibetan (2.07), Myanmar (2.01), Georgian (2.0), Hangul Jamo, Ethiopic, Cherokee, …
  [0x1780, 11], // Khmer (1.67)
  [0x1800, 13], // Mongolian, Limbu, Tai Le, Buginese, Balinese, …
  [0x1e00, 6], // Latin Extended Additional: Vietnamese (1.01)
  [0x1f00, 12], // Greek Extended
  [0x2000, 9], // General Punctuation: dashes, quotes, ellipsis, narrow spaces (1.0–1.45)
  [0x2070, 12], // super- and subscripts, currency, letterlike, arrows, maths, box drawing, dingbats, …
  [0x3000, 6], // CJK punctuation (1.0)
  [0x3040, 6], // Hiragana, Katakana (0.87–0.91)
  [0x3100, 12], // Bopomofo, Hangul compatibility Jamo, Kanbun, CJK strokes, enclosed CJK
  [0x3400, 18], // CJK Extension A (rare ideographs)
  [0x4e00, 9], // CJK Unified Ideographs (0.93 Simplified – 1.48 Traditional Chinese; 1.24–1.30 Japanese kanji)
  [0xa000, 18], // Yi, Vai, Bamum, …
  [0xac00, 8], // Hangul syllables (1.21–1.23)
  [0xd800, 13], // surrogates: a character beyond the BMP (emoji, historic scripts) is two units, ~4 tokens (1.98 a unit)
  [0xe000, 18], // private use
  [0xf900, 18], // CJK compatibility ideographs
  [0xfb00, 12], // presentation forms, variation selectors, CJK compatibility and small forms
  [0xff00, 6], // fullwidth ASCII and punctuation, halfwidth forms (1.0)
  [0xfff0, 18], // specials
];

/** {@link SCRIPT_SIXTHS} by code unit: one array read a character keeps a 2 MB page's estimate at a few ms. */
const SIXTHS_BY_CODE_UNIT: Uint8Array = (() => {
  const table = new Uint8Array(0x10000);
  SCRIPT_SIXTHS.forEach(([from, sixths], i) => table.fill(sixths, from, SCRIPT_SIXTHS[i + 1]?.[0] ?? 0x10000));
  return table;
})();

/** Any character outside ASCII (the test is native code, several times faster than the loop below). */
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Estimated sixths of a token of `text.slice(from, to)`. The bounds are required: with defaults (`to = text.length`)
 * JavaScriptCore ran this loop six times slower.
 */
function sixthsBetween(text: string, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += SIXTHS_BY_CODE_UNIT[text.charCodeAt(i)]!;
  return sum;
}

/** Estimated sixths of a token of `text`; ASCII text without the loop. */
function sixthsOf(text: string): number {
  return NON_ASCII.test(text) ? sixthsBetween(text, 0, text.length) : text.length * ASCII_SIXTHS;
}

/**
 * Estimated tokens of `text`, by script (see {@link SCRIPT_SIXTHS}): for sizing requests, and for budgets when an
 * endpoint reports no usage. At or above cl100k's count for the non-Latin scripts measured; ASCII is counted at
 * {@link CHARS_PER_TOKEN} characters a token.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(sixthsOf(text) / SIXTHS_PER_TOKEN);
}

/** `text`'s size in the unit of `maxChars`: its length for ASCII, {@link CHARS_PER_TOKEN} × its estimated tokens. */
export function weightedLength(text: string): number {
  return sixthsOf(text) / ASCII_SIXTHS;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code < 0xdc00;
}

/**
 * The end of the longest piece of `text` from `from` costing at most `budgetSixths`, never between the halves of a
 * surrogate pair, and at least one character past `from` (a budget under one character's cost still moves on).
 */
function cutWithin(text: string, from: number, budgetSixths: number): number {
  let cost = 0;
  let end = from;
  while (end < text.length) {
    const c = SIXTHS_BY_CODE_UNIT[text.charCodeAt(end)]!;
    if (cost + c > budgetSixths) break;
    cost += c;
    end++;
  }
  if (end > from && end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
  if (end === from && from < text.length) end = Math.min(text.length, from + (isHighSurrogate(text.charCodeAt(from)) ? 2 : 1));
  return end;
}

/** The longest start of `text` whose {@link weightedLength} is at most `maxChars` (at least one character). */
export function leadingWithin(text: string, maxChars: number): string {
  return text.slice(0, cutWithin(text, 0, maxChars * ASCII_SIXTHS));
}

/**
 * Splits `text` into chunks of at most `maxChars` ({@link weightedLength}: characters for ASCII, fewer for scripts
 * that cost more tokens), on paragraph boundaries where possible (blank lines, then line breaks, then hard cuts for
 * a single oversized line).
 */
export function chunkText(text: string, maxChars: number): string[] {
  if (maxChars < 1) throw new RangeError("maxChars must be >= 1");
  const budget = maxChars * ASCII_SIXTHS;
  // No character costs less than an ASCII one: a text longer than the budget in ASCII needs no count to be cut.
  if (text.length * ASCII_SIXTHS <= budget && sixthsOf(text) <= budget) return [text];
  // A page all ASCII (most English ones) is measured by length: the per-character loop is for the others.
  const costOf = NON_ASCII.test(text) ? (s: string) => sixthsBetween(s, 0, s.length) : (s: string) => s.length * ASCII_SIXTHS;
  const blocks = text.split(/\n{2,}/);
  const chunks: string[] = [];
  let cur = "";
  let curCost = 0;
  const flush = () => {
    if (cur.trim() !== "") chunks.push(cur);
    cur = "";
    curCost = 0;
  };
  const pushPiece = (piece: string, cost: number, sep: string) => {
    const joined = curCost + sep.length * ASCII_SIXTHS + cost;
    if (cur === "") {
      cur = piece;
      curCost = cost;
    } else if (joined <= budget) {
      cur += sep + piece;
      curCost = joined;
    } else {
      flush();
      cur = piece;
      curCost = cost;
    }
  };
  for (const block of blocks) {
    const blockCost = costOf(block);
    if (blockCost <= budget) {
      pushPiece(block, blockCost, "\n\n");
      continue;
    }
    for (const line of block.split("\n")) {
      const lineCost = costOf(line);
      if (lineCost <= budget) {
        pushPiece(line, lineCost, "\n");
        continue;
      }
      for (let i = 0; i < line.length; ) {
        const end = cutWithin(line, i, budget);
        pushPiece(line.slice(i, end), sixthsBetween(line, i, end), "");
        i = end;
      }
    }
  }
  flush();
  return chunks.length > 0 ? chunks : [leadingWithin(text, maxChars)];
}

/** The merge of the parts' answers lives in llm/merge-answers.ts; re-exported where callers always found it. */
export { mergeAnswers } from "./merge-answers.ts";
