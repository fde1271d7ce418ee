/**
 * @module bench/lib/metrics
 * The two extraction metrics described in shared/datasets/README.md, plus the markdown → text flattening used
 * before scoring.
 */

/** Python's `\w+` with re.UNICODE: letters, numbers (any category) and underscore. */
const WORD_RE = /[\p{L}\p{N}_]+/gu;
const SHINGLE_SIZE = 4;

/** Markdown → plain text: images dropped, links reduced to their text, tags and markdown punctuation removed. */
export function flattenMarkdown(markdown: string): string {
  return markdown
    .replace(/^ {0,3}(`{3,}|~{3,}).*$/gm, " ")
    .replace(/!\[(?:[^\]\\]|\\.)*\]\([^)]*\)/g, " ")
    .replace(/\[((?:[^\]\\]|\\.)*)\]\([^)]*\)/g, "$1")
    .replace(/\[((?:[^\]\\]|\\.)*)\]\[[^\]]*\]/g, "$1")
    .replace(/<\/?[a-zA-Z][^>]*>/g, " ")
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, "$1")
    .replace(/(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu, " ")
    .replace(/[#*`>|~]/g, " ")
    .replace(/^\s*[-:| ]{3,}\s*$/gm, " ");
}

/** Word tokens of a text. */
export function words(text: string): string[] {
  return text.match(WORD_RE) ?? [];
}

function counts(items: string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const item of items) map.set(item, (map.get(item) ?? 0) + 1);
  return map;
}

/** Size of the multiset intersection. */
function overlap(a: Map<string, number>, b: Map<string, number>): number {
  let n = 0;
  for (const [key, count] of a) {
    const other = b.get(key);
    if (other) n += Math.min(count, other);
  }
  return n;
}

function shingles(text: string): string[] {
  const tokens = words(text);
  if (tokens.length === 0) return [];
  if (tokens.length < SHINGLE_SIZE) return [tokens.join(" ")];
  const out: string[] = [];
  for (let i = 0; i + SHINGLE_SIZE <= tokens.length; i++) out.push(tokens.slice(i, i + SHINGLE_SIZE).join(" "));
  return out;
}

/** One page's result. `precision`/`recall` are undefined when the page does not count towards that average. */
export interface PageScore {
  precision?: number;
  recall?: number;
}

/**
 * article-extraction: word 4-gram shingle multisets; TP/FP/FN normalised by their sum; precision counted on pages
 * with an extraction, recall on pages with a non-empty truth; exact match scores 1 on both.
 */
export function shingleScore(extracted: string, truth: string): PageScore {
  const pred = counts(shingles(extracted));
  const gold = counts(shingles(truth));
  let predTotal = 0;
  for (const c of pred.values()) predTotal += c;
  let goldTotal = 0;
  for (const c of gold.values()) goldTotal += c;
  const tp = overlap(pred, gold);
  const fp = predTotal - tp;
  const fn = goldTotal - tp;
  const sum = tp + fp + fn;
  if (sum === 0) return { precision: 1, recall: 1 };
  const [ntp, nfp, nfn] = [tp / sum, fp / sum, fn / sum];
  const score: PageScore = {};
  if (predTotal > 0) score.precision = nfp === 0 && nfn === 0 ? 1 : ntp / (ntp + nfp);
  if (goldTotal > 0) score.recall = nfp === 0 && nfn === 0 ? 1 : ntp / (ntp + nfn);
  return score;
}

/** wcxb: lower-case word multiset overlap; per-page precision, recall and F1. */
export function wordScore(extracted: string, truth: string): { precision: number; recall: number; f1: number } {
  const pred = counts(words(extracted.toLowerCase()));
  const gold = counts(words(truth.toLowerCase()));
  let predTotal = 0;
  for (const c of pred.values()) predTotal += c;
  let goldTotal = 0;
  for (const c of gold.values()) goldTotal += c;
  if (predTotal === 0 && goldTotal === 0) return { precision: 1, recall: 1, f1: 1 };
  if (predTotal === 0 || goldTotal === 0) return { precision: 0, recall: 0, f1: 0 };
  const common = overlap(pred, gold);
  const precision = common / predTotal;
  const recall = common / goldTotal;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

/** Mean of the defined values (0 for none). */
export function mean(values: (number | undefined)[]): number {
  let sum = 0;
  let n = 0;
  for (const v of values) {
    if (v === undefined) continue;
    sum += v;
    n++;
  }
  return n ? sum / n : 0;
}

export const harmonic = (p: number, r: number): number => (p + r > 0 ? (2 * p * r) / (p + r) : 0);
