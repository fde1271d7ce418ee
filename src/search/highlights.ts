/**
 * @module search/highlights
 * Search highlights (upstream's `highlights`, on by default): a result's description (a news result's snippet)
 * replaced by the passages of its page that answer the query. crawlbox has no index of the web, so it highlights
 * the pages it has in hand: those the same search scraped (`scrapeOptions` with `markdown`). The passages are the
 * page's markdown blocks (paragraphs, list items, table rows, headings) ranked by BM25 against the query's words
 * (IDF over the page's own blocks, so a word every block has counts for little), the best first chosen, then the
 * next best while they fit, given back in the page's order. No model is asked: it is fast, free and the same every
 * time.
 */

/** Characters of a highlight at most. */
export const MAX_HIGHLIGHT_CHARS = 500;
/** Blocks of a page looked at (a huge page's first ones). */
const MAX_BLOCKS = 5_000;
/** Characters of a page's markdown looked at (its first ones): with the bounds below, ~50 ms at most. */
const MAX_PAGE_CHARS = 1_000_000;
/** Words of a query matched (its first distinct ones). */
const MAX_TERMS = 32;
const K1 = 1.2;
const B = 0.75;

/** Words too common to rank a passage by. */
const STOP = new Set(
  "a an and are as at be but by for from has have how i in is it its of on or that the this to was were what when where which who why will with you your does do did can".split(" "),
);

/** Lower-cased words of `text` (letters and digits of any script). */
function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The query's words worth matching. */
function queryTerms(query: string): string[] {
  return [...new Set(words(query.slice(0, 10_000)).filter((w) => w.length > 1 && !STOP.has(w)))].slice(0, MAX_TERMS);
}

/** The page's markdown cut into blocks: paragraphs and headings, and list items and table rows one by one. */
function blocks(markdown: string): string[] {
  const out: string[] = [];
  for (const chunk of markdown.split(/\n\s*\n/)) {
    const lines = chunk.split("\n").map((l) => l.trim()).filter((l) => l.length > 0);
    if (lines.length === 0) continue;
    const itemised = lines.every((l) => /^([-*+]|\d+[.)]|\|)/.test(l));
    if (itemised) out.push(...lines.filter((l) => !/^\|[\s:|-]*\|?$/.test(l)));
    else out.push(lines.join(" "));
    if (out.length >= MAX_BLOCKS) break;
  }
  return out.slice(0, MAX_BLOCKS);
}

/** Where the first of `terms` is in `text` (found in `text` itself, any case), or 0. */
function firstMatch(text: string, terms: string[]): number {
  let first = Infinity;
  for (const t of terms) {
    const i = text.search(new RegExp(t, "iu"));
    if (i >= 0 && i < first) first = i;
  }
  return Number.isFinite(first) ? first : 0;
}

/** `i` moved back off the second half of a surrogate pair (a cut there would split a character). */
const boundary = (text: string, i: number) => (i > 0 && i < text.length && /[\uDC00-\uDFFF]/.test(text[i]!) ? i - 1 : i);

/** `text` cut to `max` characters around its first match of `terms` (with "…" where it was cut). */
function around(text: string, terms: string[], max: number): string {
  if (text.length <= max) return text;
  const start = boundary(text, Math.max(0, Math.min(firstMatch(text, terms) - Math.floor(max / 4), text.length - max)));
  const end = boundary(text, start + max - 2);
  return `${start > 0 ? "…" : ""}${text.slice(start, end).trim()}${end < text.length ? "…" : ""}`;
}

/**
 * The passages of `markdown` that answer `query`, at most {@link MAX_HIGHLIGHT_CHARS} characters (blocks joined by
 * a blank line), or undefined when no block has any of the query's words.
 */
export function highlight(markdown: string, query: string, maxChars = MAX_HIGHLIGHT_CHARS): string | undefined {
  const terms = queryTerms(query);
  if (terms.length === 0 || markdown.length === 0) return undefined;
  const list = blocks(markdown.slice(0, MAX_PAGE_CHARS));
  const wanted = new Set(terms);
  // One pass over each block's words: how often each query word is in it, and how long it is.
  const counted = list.map((block) => {
    const tf = new Map<string, number>();
    let length = 0;
    for (const w of words(block)) {
      length++;
      if (wanted.has(w)) tf.set(w, (tf.get(w) ?? 0) + 1);
    }
    return { tf, length };
  });
  const df = new Map(terms.map((t) => [t, counted.filter((c) => c.tf.has(t)).length]));
  const avg = counted.reduce((n, c) => n + c.length, 0) / Math.max(1, counted.length);
  const n = list.length;
  const scored = counted.map(({ tf: counts, length }, i) => {
    let score = 0;
    let matched = 0;
    for (const [t, tf] of counts) {
      matched++;
      const idf = Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5));
      score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / Math.max(1, avg)));
    }
    // A block that has more of the query's words beats one that repeats one of them.
    return { i, score: score * (1 + matched / terms.length), matched };
  });
  const ranked = scored.filter((s) => s.matched > 0).sort((a, b) => b.score - a.score || a.i - b.i);
  if (ranked.length === 0) return undefined;
  const chosen: { i: number; text: string }[] = [];
  let used = 0;
  for (const s of ranked) {
    const room = maxChars - used - (chosen.length > 0 ? 2 : 0);
    if (chosen.length === 0) {
      const text = around(list[s.i]!, terms, maxChars);
      chosen.push({ i: s.i, text });
      used = text.length;
    } else if (list[s.i]!.length <= room) {
      chosen.push({ i: s.i, text: list[s.i]! });
      used += list[s.i]!.length + 2;
    }
    if (maxChars - used < 40) break;
  }
  return chosen.sort((a, b) => a.i - b.i).map((c) => c.text).join("\n\n");
}
