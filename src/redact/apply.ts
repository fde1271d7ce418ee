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

/** Every occurrence in `text` of each quoted piece (the model names PII by quoting it, not by offsets). */
export function spansOfQuotes(text: string, quotes: { text: string; type: PiiEntity }[]): PiiSpan[] {
  const out: PiiSpan[] = [];
  const seen = new Set<string>();
  for (const q of quotes) {
    const needle = q.text.trim();
    if (needle.length < MIN_QUOTED_CHARS || seen.has(`${q.type} ${needle}`)) continue;
    seen.add(`${q.type} ${needle}`);
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) {
      out.push({ start: at, end: at + needle.length, type: q.type });
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
