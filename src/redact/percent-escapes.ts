/**
 * @module redact/percent-escapes
 * PII written with percent-escapes, as link targets carry it: `mailto:jane%40example.com`,
 * `?email=jane%40example.com`, `tel:%2B1%20555%20010%200199`, `jane@example%2Ecom`. The patterns and the model's
 * quotes match the text as written, where none of these is an address or a phone; so they are also matched in a copy
 * with the escapes decoded, and what they find there that covers a decoded escape is placed back on the escaped text.
 * The replacement then takes the span as written (`%40` and all), so `mailto:jane%40example.com` redacts to
 * `mailto:<EMAIL>`, as `mailto:jane@example.com` does, and the rest of the URL (`&utm_source=…`) stays as it was.
 *
 * Only what covers an escape is taken from the decoded copy: anything else the plain text gave already, and taking
 * it again from a copy whose neighbours changed could only add false positives. The escapes decode as UTF-8 (RFC
 * 3986); a malformed one (`%ZZ`, `%E0%A4` cut short, an overlong or surrogate sequence) stays as written, nothing
 * throws, and `+` is not read as a space (it is the `+` of `tel:+49…`; form encoding's space is `%20` as often).
 *
 * Cost: only the runs of text around an escape are decoded and searched (each non-space run holding one, with
 * {@link CONTEXT_CHARS} either side for the labels and amounts the patterns look at), not the page again.
 */
import type { PiiSpan } from "./detectors.ts";

/** Characters of context kept either side of a run holding an escape: more than any pattern looks around a match. */
const CONTEXT_CHARS = 80;
/** Furthest a run is followed from an escape each way: an e-mail's local part is 64, a phone 20 characters. */
const MAX_RUN_CHARS = 2048;

/** Text with its valid percent-escapes decoded, and where each decoded character came from. */
export interface PercentDecoded {
  text: string;
  /** Per decoded character (a UTF-16 unit or a surrogate pair), in order: its start in `text`, its length, and its escapes' start and length. */
  segments: { at: number; length: number; from: number; fromLength: number }[];
}

/** A hex digit's value, or -1 (also past the end of the text: `charCodeAt` is then NaN). */
function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 70) return code - 55;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

/** The byte the escape at `i` of `s` writes, or -1 when there is no valid escape there. */
function escapedByte(s: string, i: number): number {
  if (s.charCodeAt(i) !== 37 /* % */) return -1;
  const hi = hexValue(s.charCodeAt(i + 1));
  const lo = hexValue(s.charCodeAt(i + 2));
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

/** Bytes after a UTF-8 lead byte, and the range its first continuation byte must fall in (RFC 3629): none when it cannot lead. */
function sequenceOf(lead: number): { more: number; min: number; max: number } | undefined {
  if (lead < 0x80) return { more: 0, min: 0, max: 0 };
  if (lead >= 0xc2 && lead <= 0xdf) return { more: 1, min: 0x80, max: 0xbf };
  if (lead === 0xe0) return { more: 2, min: 0xa0, max: 0xbf };
  if (lead === 0xed) return { more: 2, min: 0x80, max: 0x9f }; // not a surrogate
  if (lead >= 0xe1 && lead <= 0xef) return { more: 2, min: 0x80, max: 0xbf };
  if (lead === 0xf0) return { more: 3, min: 0x90, max: 0xbf };
  if (lead >= 0xf1 && lead <= 0xf3) return { more: 3, min: 0x80, max: 0xbf };
  if (lead === 0xf4) return { more: 3, min: 0x80, max: 0x8f };
  return undefined;
}

/** The character the escapes at `i` of `s` write and how many characters they take, or undefined when malformed. */
function decodeAt(s: string, i: number): { char: string; fromLength: number } | undefined {
  const lead = escapedByte(s, i);
  const seq = lead < 0 ? undefined : sequenceOf(lead);
  if (!seq) return undefined;
  let cp = seq.more === 0 ? lead : lead & (0x3f >> seq.more);
  for (let k = 1; k <= seq.more; k++) {
    const b = escapedByte(s, i + 3 * k);
    if (b < (k === 1 ? seq.min : 0x80) || b > (k === 1 ? seq.max : 0xbf)) return undefined;
    cp = (cp << 6) | (b & 0x3f);
  }
  return { char: String.fromCodePoint(cp), fromLength: 3 * (seq.more + 1) };
}

/** `text` with its valid percent-escapes decoded (malformed ones kept as written); never throws. */
export function percentDecode(text: string): PercentDecoded {
  const segments: PercentDecoded["segments"] = [];
  let out = "";
  let copied = 0;
  for (let i = text.indexOf("%"); i >= 0; i = text.indexOf("%", i)) {
    const d = decodeAt(text, i);
    if (!d) {
      i++;
      continue;
    }
    out += text.slice(copied, i);
    segments.push({ at: out.length, length: d.char.length, from: i, fromLength: d.fromLength });
    out += d.char;
    i += d.fromLength;
    copied = i;
  }
  return { text: copied === 0 ? text : out + text.slice(copied), segments };
}

/** Index of the first segment ending after decoded index `i` (segments.length when none). */
function firstEndingAfter(d: PercentDecoded, i: number): number {
  let lo = 0;
  let hi = d.segments.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const s = d.segments[mid]!;
    if (s.at + s.length <= i) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Where decoded index `i` is in the escaped text: the start of its escapes (`side` start) or their end (`side` end). */
function escapedIndex(d: PercentDecoded, i: number, side: "start" | "end"): number {
  const k = firstEndingAfter(d, i);
  const seg = d.segments[k];
  if (seg && seg.at <= i) return side === "start" ? seg.from : seg.from + seg.fromLength;
  const prev = d.segments[k - 1];
  const shift = prev ? prev.from + prev.fromLength - (prev.at + prev.length) : 0;
  return i + shift + (side === "end" ? 1 : 0);
}

/**
 * The spans `find` gives on `d.text` that cover a decoded escape, placed on the escaped text (a span takes the whole
 * escapes of the characters at its ends).
 */
export function spansCoveringEscapes(d: PercentDecoded, found: readonly PiiSpan[]): PiiSpan[] {
  const out: PiiSpan[] = [];
  for (const s of found) {
    const seg = d.segments[firstEndingAfter(d, s.start)];
    if (!seg || seg.at >= s.end) continue;
    out.push({ start: escapedIndex(d, s.start, "start"), end: escapedIndex(d, s.end - 1, "end"), type: s.type });
  }
  return out;
}

const isSpace = (code: number) => code === 32 || (code >= 9 && code <= 13) || code === 0xa0;

/** The runs of `text` to decode and search: each non-space run holding a valid escape, with context either side, merged. */
function regionsWithEscapes(text: string): [number, number][] {
  const regions: [number, number][] = [];
  let runEnd = 0;
  for (let i = text.indexOf("%"); i >= 0; i = text.indexOf("%", Math.max(i + 1, runEnd))) {
    if (!decodeAt(text, i)) continue;
    let start = i;
    while (start > 0 && i - start < MAX_RUN_CHARS && !isSpace(text.charCodeAt(start - 1))) start--;
    runEnd = i;
    while (runEnd < text.length && runEnd - i < MAX_RUN_CHARS && !isSpace(text.charCodeAt(runEnd))) runEnd++;
    const from = Math.max(0, start - CONTEXT_CHARS);
    const to = Math.min(text.length, runEnd + CONTEXT_CHARS);
    const last = regions[regions.length - 1];
    if (last && from <= last[1]) last[1] = to;
    else regions.push([from, to]);
  }
  return regions;
}

/**
 * What `find` finds in `text` written with percent-escapes (see the module note): for each run holding an escape,
 * the spans it finds in the decoded run that cover an escape, placed on `text`. Not what `find` finds in `text`
 * itself: the caller has that already.
 */
export function findThroughEscapes(text: string, find: (decoded: string) => readonly PiiSpan[]): PiiSpan[] {
  if (!text.includes("%")) return [];
  const out: PiiSpan[] = [];
  for (const [from, to] of regionsWithEscapes(text)) {
    const d = percentDecode(text.slice(from, to));
    if (d.segments.length === 0) continue;
    for (const s of spansCoveringEscapes(d, find(d.text))) out.push({ start: s.start + from, end: s.end + from, type: s.type });
  }
  return out;
}
