/**
 * @module llm/deterministic/outline-cover
 * Under `redactPII`, what the outline shows of a {@link Run} of a block's text nodes (llm/deterministic/outline-runs.ts)
 * is the union of two readings: the run as one text, which finds PII split across nodes (`jane.doe<!-- -->@<!-- -->
 * example.org`), and each node glued to a neighbour (no white space between them on the page) on its own, which finds
 * PII the joined text hides (`Phone` glued to `020 7946 0958` breaks the patterns' word boundaries; `a@b.co` glued to
 * `c@d.co` reads as `a@b.coc` and leaves `@d.co`). Each redaction is turned into the window characters it replaced
 * ({@link coverOf}), the replaced characters of all of them are joined, and the run is rebuilt from that
 * ({@link unionRead}), each character given to the text it comes from: so a text taken out in the `remove` style leaves
 * the rest of the block in its own elements.
 */

/** A redaction's replacement at `r[j]`: a tag (`<EMAIL>`) or a mask (`****`); its length, 0 when none starts there. */
function replacementAt(r: string, j: number): number {
  const c = r[j];
  if (c === "*") {
    let e = j;
    while (r[e] === "*") e++;
    return e - j;
  }
  if (c !== "<") return 0;
  let e = j + 1;
  while (e < r.length && /[A-Z0-9_]/.test(r[e]!)) e++;
  return e > j + 1 && r[e] === ">" && /[A-Z]/.test(r[j + 1]!) ? e + 1 - j : 0;
}

/** Characters of a text after a replacement looked for in the window to find where the two agree again. */
const RESYNC_CHARS = 64;

/** A replaced stretch of a window, `[start, end)`, and what the redaction put there (a tag, a mask, "" removed). */
export interface Cover {
  start: number;
  end: number;
  with: string;
}

/**
 * The stretches of `window` that `read`, its redaction, replaced (a tag, a mask, or nothing in the `remove` style):
 * equal characters are matched in order; a replacement, or in the `remove` style the first character that differs,
 * starts a stretch, which ends at the first place after it that holds what follows in `read` (the window's end when
 * the rest of `read` is the window's own end, or when nothing after it is found: what cannot be placed is counted
 * replaced, never shown). Linear: positions only move forward, each search for at most {@link RESYNC_CHARS} characters.
 */
export function coverOf(window: string, read: string, offset = 0): Cover[] {
  const out: Cover[] = [];
  // How long a tail the window and the redaction have in common: where the last literal text resumes.
  let same = 0;
  while (same < read.length && same < window.length && read[read.length - 1 - same] === window[window.length - 1 - same]) same++;
  let i = 0;
  let j = 0;
  /** The next replacement at or after the literal text that follows the current one (cached: each scanned once). */
  let next = -1;
  while (j < read.length) {
    const length = replacementAt(read, j);
    if (length === 0 && i < window.length && read[j] === window[i]) {
      i++;
      j++;
      continue;
    }
    // Text the window does not hold (past its end): nothing more of the window to place.
    if (length === 0 && i >= window.length) break;
    const start = i;
    const replaced = read.slice(j, j + length);
    j += length;
    if (next < j) {
      next = j;
      while (next < read.length && replacementAt(read, next) === 0) next++;
    }
    let k: number;
    if (j === read.length) k = window.length;
    else if (next === j) k = Math.min(window.length, i + 1); // another replacement at once: this one covers one character
    else {
      const tail = window.length - (read.length - j);
      k = next === read.length && read.length - j <= same && tail > i ? tail : window.indexOf(read.slice(j, Math.min(next, j + RESYNC_CHARS)), i + 1);
      // Removed text leaves no mark, so another removal may follow within the characters looked for: shorter ones.
      for (let n = RESYNC_CHARS >> 2; k < 0 && length === 0 && n >= 1; n >>= 2) k = window.indexOf(read.slice(j, Math.min(next, j + n)), i + 1);
      if (k < 0) k = window.length;
    }
    out.push({ start: offset + start, end: offset + Math.max(k, Math.min(window.length, start + 1)), with: replaced });
    i = k;
  }
  if (i < window.length && j >= read.length) out.push({ start: offset + i, end: offset + window.length, with: "" });
  return out;
}

/**
 * The run's window as shown, from the stretches any of its redactions replaced (`covers`, in window positions):
 * the redacted text and, for each of its characters, the text it belongs to (`at`: -1 for the lead and white space
 * between texts, which are never shown). Overlapping stretches are one: a mask is a `*` per character, each given to
 * its own text; a tag (or nothing, removed) goes to the text where the stretch starts, the first of overlapping ones.
 */
export function unionRead(window: string, covers: Cover[], at: (i: number, inside: boolean) => number): { read: string; owner: Int32Array } {
  covers.sort((a, b) => a.start - b.start || b.end - a.end);
  let read = "";
  const owner: number[] = [];
  let p = 0;
  for (let c = 0; c <= covers.length; c++) {
    const from = c < covers.length ? covers[c]!.start : window.length;
    for (; p < from; p++) {
      read += window[p];
      owner.push(at(p, true));
    }
    if (c === covers.length) break;
    // The stretch: this cover and every one overlapping it. Its replacement: a `*` a character when every
    // redaction that replaced something there masked it, else the first tag (none in the `remove` style).
    const start = covers[c]!.start;
    let end = covers[c]!.end;
    let tag = "";
    let masked = false;
    for (let o = covers[c]!; ; o = covers[++c]!) {
      if (o.end > end) end = o.end;
      if (/^\*+$/.test(o.with)) masked = true;
      else if (o.with !== "" && tag === "") tag = o.with;
      if (!(c + 1 < covers.length && covers[c + 1]!.start < end)) break;
    }
    if (masked && tag === "") {
      for (let q = start; q < end; q++) {
        read += "*";
        owner.push(at(q, false));
      }
    } else {
      read += tag;
      const o = at(start, false);
      for (let q = 0; q < tag.length; q++) owner.push(o);
    }
    p = end;
  }
  return { read, owner: Int32Array.from(owner) };
}
