/**
 * @module redact/apply
 * Turns found PII into redacted text: spans from the patterns and the model are merged (overlaps keep the wider
 * span, so `+49 30 1234567` is one phone, not a phone and a card), then replaced in one pass in the style the
 * caller asked for: `tag` (`<EMAIL>`, upstream's default), `mask` (one `*` per character) or `remove`.
 */
import type { PiiEntity, PiiSpan } from "./detectors.ts";
import { countAtMost } from "./percent-decode.ts";

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
  /** Whether `plain[i]` was written escaped (its backslash is at `at(i) - 1`). */
  escaped(i: number): boolean;
}

/**
 * A markdown escape (dropped to its character), or an emphasis mark the converter wrote (`_`/`*` runs opening
 * before a letter or closing after one: literal ones are escaped), which becomes spaces: `_Ada Lovelace_` reads
 * as a name, `_ada@example.org_` as an address. `my_var` and `api_key=` keep their underscores (inside a word).
 */
const ESCAPE_OR_EMPHASIS = /\\([!-/:-@[-`{-~])|(?<![\p{L}\p{N}\\])[_*]+(?=[\p{L}\p{N}])|(?<=[\p{L}\p{N}.!?,;:)])[_*]+(?![\p{L}\p{N}])/gu;

/**
 * Drops the backslashes of markdown escapes (`john\_doe` → `john_doe`): the converter escapes `_` and `*`, which
 * hid `john_doe@example.com`'s local part and every `ghp_`, `sk_live_` and `api_key=` from the patterns. Keeps
 * only where backslashes were dropped (a page is megabytes; an index per character would be four bytes each).
 */
export function plainView(markdown: string): PlainView {
  /** Plain indices at which a backslash was dropped just before, ascending. */
  const drops: number[] = [];
  let dropped = 0;
  const plain = markdown.replace(ESCAPE_OR_EMPHASIS, (m, escapedChar: string | undefined, offset: number) => {
    if (escapedChar === undefined) return " ".repeat(m.length); // emphasis: same length, offsets unchanged
    drops.push(offset - dropped);
    dropped++;
    return escapedChar;
  });
  /** How many drops are at or before plain index `i`. */
  const dropsUpTo = (i: number) => countAtMost(drops, i);
  return {
    plain,
    at: (i) => i + dropsUpTo(i),
    escaped: (i) => {
      const k = dropsUpTo(i);
      return k > 0 && drops[k - 1] === i;
    },
  };
}

/** Spans found in a {@link PlainView}'s text, placed back on the markdown (with the backslash of an escaped first character). */
export function toMarkdownSpans(view: PlainView, spans: PiiSpan[]): PiiSpan[] {
  return spans.map((s) => ({ start: view.at(s.start) - (view.escaped(s.start) ? 1 : 0), end: view.at(s.end - 1) + 1, type: s.type }));
}

/** Most spans the model's quotes may produce on one page: a quote of `---` on 8 MB of dashes gave 16.8 million. */
export const MAX_QUOTED_SPANS = 100_000;

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
    for (let at = text.indexOf(needle); at >= 0 && out.length < MAX_QUOTED_SPANS; ) {
      const end = at + needle.length;
      const whole = !(wordStart && at > 0 && WORD_CHAR.test(text[at - 1]!)) && !(wordEnd && end < text.length && WORD_CHAR.test(text[end]!));
      if (whole) out.push({ start: at, end, type: q.type });
      // Past a kept match (occurrences of one quote do not overlap); one character on after a rejected one.
      at = text.indexOf(needle, whole ? end : at + 1);
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
