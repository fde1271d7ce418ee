/**
 * @module pipeline/srcset
 * Splits a `srcset` attribute into its image candidates, following the HTML standard's "parse a srcset attribute"
 * (https://html.spec.whatwg.org/multipage/images.html#parsing-a-srcset-attribute) for where a URL and its
 * descriptors begin and end. Splitting on ", " instead breaks on `a.png 1x,b.png 2x` (no space after the comma,
 * common in minified HTML) and on URLs containing commas. Descriptors are kept as written, not validated: callers
 * only need the URLs, or to rewrite them in place.
 */

/** One candidate of a `srcset`: its URL as written and its descriptors (`"2x"`, `"640w"`), possibly none. */
export interface SrcsetCandidate {
  url: string;
  descriptors: string[];
}

const isSpace = (c: string): boolean => c === " " || c === "\t" || c === "\n" || c === "\f" || c === "\r";

/** The candidates of `srcset` in order. Never throws; an empty or all-separator value gives `[]`. */
export function parseSrcset(srcset: string): SrcsetCandidate[] {
  const out: SrcsetCandidate[] = [];
  const end = srcset.length;
  let at = 0;
  while (at < end) {
    while (at < end && (isSpace(srcset[at]!) || srcset[at] === ",")) at++;
    if (at >= end) break;
    const urlStart = at;
    while (at < end && !isSpace(srcset[at]!)) at++;
    let url = srcset.slice(urlStart, at);
    const descriptors: string[] = [];
    if (url.endsWith(",")) {
      // "a.png," is a candidate without descriptors. Trailing commas cut by a scan: `/,+$/` retried from every comma
      // of a run not at the end (quadratic: one srcset of 40k commas took 0.7 s on the main thread).
      let urlEnd = url.length;
      while (urlEnd > 0 && url.charCodeAt(urlEnd - 1) === 44) urlEnd--;
      url = url.slice(0, urlEnd);
    } else {
      at = readDescriptors(srcset, at, descriptors);
    }
    out.push({ url, descriptors });
  }
  return out;
}

/** Reads descriptors from `at` up to the comma ending the candidate (commas inside parentheses do not count). */
function readDescriptors(srcset: string, at: number, into: string[]): number {
  const end = srcset.length;
  while (at < end && isSpace(srcset[at]!)) at++;
  let current = "";
  let inParens = false;
  for (; at < end; at++) {
    const c = srcset[at]!;
    if (inParens) {
      current += c;
      if (c === ")") inParens = false;
    } else if (c === ",") {
      if (current) into.push(current);
      return at + 1;
    } else if (isSpace(c)) {
      if (current) into.push(current);
      current = "";
    } else {
      current += c;
      if (c === "(") inParens = true;
    }
  }
  if (current) into.push(current);
  return at;
}

/** The URLs of `srcset`, in order. */
export function srcsetUrls(srcset: string): string[] {
  return parseSrcset(srcset).map((candidate) => candidate.url);
}
