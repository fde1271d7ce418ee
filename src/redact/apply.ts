/**
 * @module redact/apply
 * Turns found PII into redacted text: spans from the patterns and the model are merged (overlaps keep the wider
 * span, so `+49 30 1234567` is one phone, not a phone and a card), then replaced in one pass in the style the
 * caller asked for: `tag` (`<EMAIL>`, upstream's default), `mask` (one `*` per character) or `remove`.
 */
import type { PiiEntity, PiiSpan } from "./detectors.ts";

/** upstream's `redactPII.replaceStyle`. */
export type ReplaceStyle = "tag" | "mask" | "remove";

/** Model answers are copied text: shorter than this, a "span" would match inside ordinary words. */
const MIN_QUOTED_CHARS = 3;

const WORD_CHAR = /[\p{L}\p{N}_]/u;

/** Markdown without its backslash escapes, and where each of its characters is in the markdown. */
export interface PlainView {
  plain: string;
  /** The index in the markdown of `plain[i]`. */
  at(i: number): number;
}

const ESCAPE = /\\[!-/:-@[-`{-~]/g;

/**
 * Drops the backslashes of markdown escapes (`john\_doe` → `john_doe`): the converter escapes `_` and `*`, which
 * hid `john_doe@example.com`'s local part and every `ghp_`, `sk_live_` and `api_key=` from the patterns. Keeps
 * only where backslashes were dropped (a page is megabytes; an index per character would be four bytes each).
 */
export function plainView(markdown: string): PlainView {
  /** Plain indices at which a backslash was dropped just before, ascending. */
  const drops: number[] = [];
  let dropped = 0;
  const plain = markdown.replace(ESCAPE, (m, offset: number) => {
    drops.push(offset - dropped);
    dropped++;
    return m[1]!;
  });
  return {
    plain,
    at(i) {
      let lo = 0;
      let hi = drops.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (drops[mid]! <= i) lo = mid + 1;
        else hi = mid;
      }
      return i + lo;
    },
  };
}

/** Spans found in a {@link PlainView}'s text, placed back on the markdown. */
export function toMarkdownSpans(view: PlainView, spans: PiiSpan[]): PiiSpan[] {
  return spans.map((s) => ({ start: view.at(s.start), end: view.at(s.end - 1) + 1, type: s.type }));
}

/**
 * Every occurrence in `text` of each quoted piece (the model names PII by quoting it, not by offsets), as a whole
 * word: a quoted "Max" is not the start of "Maximum".
 */
export function spansOfQuotes(text: string, quotes: { text: string; type: PiiEntity }[]): PiiSpan[] {
  const out: PiiSpan[] = [];
  const seen = new Set<string>();
  for (const q of quotes) {
    const needle = plainView(q.text.trim()).plain;
    if (needle.length < MIN_QUOTED_CHARS || seen.has(`${q.type} ${needle}`)) continue;
    seen.add(`${q.type} ${needle}`);
    const wordStart = WORD_CHAR.test(needle[0]!);
    const wordEnd = WORD_CHAR.test(needle[needle.length - 1]!);
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
      const end = at + needle.length;
      if (wordStart && at > 0 && WORD_CHAR.test(text[at - 1]!)) continue;
      if (wordEnd && end < text.length && WORD_CHAR.test(text[end]!)) continue;
      out.push({ start: at, end, type: q.type });
    }
  }
  return out;
}

/** Overlapping spans merged: sorted by start, a span inside or across the previous one joins it (wider type wins). */
export function mergeSpans(spans: PiiSpan[]): PiiSpan[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: PiiSpan[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.start < last.end) {
      if (s.end > last.end) {
        // Partial overlap: one span covering both, typed after the wider of the two.
        if (s.end - s.start > last.end - last.start) last.type = s.type;
        last.end = s.end;
      }
      continue;
    }
    out.push({ ...s });
  }
  return out;
}

/** `text` with `spans` replaced in `style`. */
export function applySpans(text: string, spans: PiiSpan[], style: ReplaceStyle): string {
  const merged = mergeSpans(spans);
  if (merged.length === 0) return text;
  let out = "";
  let at = 0;
  for (const s of merged) {
    out += text.slice(at, s.start);
    if (style === "tag") out += `<${s.type}>`;
    else if (style === "mask") out += "*".repeat(s.end - s.start);
    at = s.end;
  }
  return out + text.slice(at);
}
