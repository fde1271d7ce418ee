/**
 * @module redact/percent-decode
 * Percent-escapes decoded as UTF-8 (RFC 3986), keeping where each decoded character was written, so that what is
 * found in the decoded copy can be placed back on the text as written (redact/percent-escapes.ts). A malformed
 * escape (`%ZZ`, `%E0%A4` cut short, an overlong or surrogate sequence) stays as written, nothing throws, and `+` is
 * not read as a space (it is the `+` of `tel:+49…`; form encoding's space is `%20` as often).
 */

/**
 * Text with its valid percent-escapes decoded, and where each decoded character came from: one entry per escaped
 * character (a UTF-16 unit or a surrogate pair), in order, in parallel arrays (a run of escapes may be megabytes:
 * four numbers each, not an object each).
 */
export interface PercentDecoded {
  text: string;
  /** Start and end in `text` of each escaped character. */
  at: number[];
  atEnd: number[];
  /** Start and end in the source of the escapes that wrote it. */
  from: number[];
  fromEnd: number[];
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
export function decodeAt(s: string, i: number): { char: string; fromLength: number } | undefined {
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
  const d: PercentDecoded = { text, at: [], atEnd: [], from: [], fromEnd: [] };
  const parts: string[] = [];
  let length = 0;
  let copied = 0;
  for (let i = text.indexOf("%"); i >= 0; i = text.indexOf("%", i)) {
    const c = decodeAt(text, i);
    if (!c) {
      i++;
      continue;
    }
    parts.push(text.slice(copied, i), c.char);
    length += i - copied;
    d.at.push(length);
    length += c.char.length;
    d.atEnd.push(length);
    d.from.push(i);
    i += c.fromLength;
    d.fromEnd.push(i);
    copied = i;
  }
  if (copied > 0) {
    parts.push(text.slice(copied));
    d.text = parts.join("");
  }
  return d;
}

/** How many of the ascending `sorted` are at most `x`: the index of the first one after it (binary search). */
export function countAtMost(sorted: ArrayLike<number>, x: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the first escaped character ending after decoded index `i` (`d.at.length` when none). */
function firstEndingAfter(d: PercentDecoded, i: number): number {
  return countAtMost(d.atEnd, i);
}

/**
 * Where the character at decoded index `i` was written in the source: where its escapes start (`side` start), or
 * where they end (`side` end); a character written plainly starts at its index there and ends one after.
 */
export function sourceIndex(d: PercentDecoded, i: number, side: "start" | "end"): number {
  const k = firstEndingAfter(d, i);
  if (k < d.at.length && d.at[k]! <= i) return side === "start" ? d.from[k]! : d.fromEnd[k]!;
  const shift = k > 0 ? d.fromEnd[k - 1]! - d.atEnd[k - 1]! : 0;
  return i + shift + (side === "end" ? 1 : 0);
}

/** The decoded span `[start, end)` (not empty) placed on the source: the whole escapes of the characters at its ends. */
export function sourceSpan(d: PercentDecoded, start: number, end: number): [number, number] {
  return [sourceIndex(d, start, "start"), sourceIndex(d, end - 1, "end")];
}
