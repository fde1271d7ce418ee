/**
 * @module llm/deterministic/outline-read
 * Reads the outline's texts for showing (llm/deterministic/outline.ts): unredacted without `redactPII`; with it,
 * each text redacted on its window (llm/deterministic/outline-slots.ts), except the text nodes of a block, which are
 * redacted together as one {@link Run} and mapped back onto their lines (llm/deterministic/outline-runs.ts), so that
 * an address or a card split across nodes is recognised. A window that the redaction shortened is read again,
 * longer, so its text still shows `max` characters.
 */
import { type Cover, coverOf, unionRead } from "./outline-cover.ts";
import { type Run, type RunWindow, runWindow } from "./outline-runs.ts";
import { escaped, plainShown, READ_PAST_CUT_CHARS, READ_ROUNDS, type RedactTexts, type Slot, shownFrom, windowEnd } from "./outline-slots.ts";

/** A run of one text, no lead and a closed end: read exactly as a text on its own. */
const alone = (u: Run) => u.slots.length === 1 && u.lead === "" && !u.open;

/**
 * The texts of a run that are redacted on their own besides the whole window (llm/deterministic/outline-cover.ts):
 * those glued to a neighbour.
 */
const gluedTexts = (u: Run) => u.slots.flatMap((_, k) => (u.glued[k] ? [k] : []));

/**
 * The text of window `w` holding position `i` (or, `inside` false, the text after the white space `i` is in); -1 in
 * the lead and the trail, which are never shown.
 */
function textAt(w: RunWindow, lead: number, i: number, inside: boolean): number {
  if (i < lead || i >= w.trailAt) return -1;
  let lo = 0;
  let hi = w.ends.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (w.ends[mid]! > i) hi = mid;
    else lo = mid + 1;
  }
  return inside && (i < w.starts[lo]! || i >= w.ends[lo]!) ? -1 : lo;
}

/**
 * Puts into `shown` the texts of run `u` as shown from `covers`, what the redactions of its window `w` replaced
 * (`whole`: the window holds all of its last text); returns how many characters its last text may show, for reading
 * it again longer. A run whose block goes on unread shows at most the redacted length less
 * {@link READ_PAST_CUT_CHARS}, as a cut text.
 */
function showRun(u: Run, w: RunWindow, covers: Cover[], whole: boolean, shown: Map<Slot, string>): number {
  const { read, owner } = unionRead(w.text, covers, (i, inside) => textAt(w, u.lead.length, i, inside));
  const limit = !whole || u.open ? Math.max(0, read.length - READ_PAST_CUT_CHARS) : read.length;
  const pieces: string[][] = u.slots.map(() => []);
  const firstAt = u.slots.map(() => -1);
  const short = u.slots.map(() => false);
  let from = 0;
  for (let q = 0; q <= read.length; q++) {
    // Flush [from, q) when its owner changes, at the limit, or at the end.
    if (q < read.length && q !== limit && q > from && owner[q] === owner[from]) continue;
    if (q > from && owner[from]! >= 0 && from < limit) pieces[owner[from]!]!.push(read.slice(from, q));
    if (q < read.length) {
      const o = owner[q]!;
      if (o >= 0 && firstAt[o]! < 0) firstAt[o] = q;
      if (o >= 0 && q >= limit) short[o] = true;
    }
    from = q;
  }
  const last = u.slots.length - 1;
  u.slots.forEach((s, k) => {
    const piece = pieces[k]!.join("");
    const cut = (k === last && !whole) || short[k]! || piece.length > s.max;
    shown.set(s, escaped(s, cut ? `${piece.slice(0, s.max)}…` : piece));
  });
  return limit - (firstAt[last]! >= 0 ? firstAt[last]! : read.length);
}

/**
 * The slots as shown: unredacted without `redact`; with it, each alone or in its run (`runs`, see the module
 * comment) redacted on a window reaching past its cut, read again longer (up to {@link READ_ROUNDS} times in all)
 * while the redaction leaves it too short to show `max`.
 */
export async function showSlots(slots: readonly Slot[], redact?: RedactTexts, runs: readonly Run[] = []): Promise<string[]> {
  if (!redact) return slots.map(plainShown);
  const runOf = new Map<Slot, Run>();
  for (const r of runs) for (const s of r.slots) runOf.set(s, r);
  const units: Run[] = [];
  const seen = new Set<Run | Slot>();
  for (const s of slots) {
    const r = runOf.get(s);
    if (seen.has(r ?? s)) continue;
    seen.add(r ?? s);
    units.push(r ?? { slots: [s], seps: [""], lead: "", open: false, trail: "", glued: [false] });
  }
  const lasts = units.map((u) => u.slots[u.slots.length - 1]!);
  const ends = lasts.map((s) => windowEnd(s.text, s.max + READ_PAST_CUT_CHARS));
  const shown = new Map<Slot, string>();
  let pending = units.map((_, i) => i);
  for (let round = 1; pending.length > 0; round++) {
    const windows = pending.map((i) => runWindow(units[i]!, ends[i]!));
    // Each window, then for a run the texts of it glued to a neighbour, each on its own.
    const texts: string[] = [];
    const shownTexts: string[] = [];
    pending.forEach((i, k) => {
      const u = units[i]!;
      const w = windows[k]!;
      texts.push(u.slots[0]!.name ? w.text.replaceAll("-", " ") : w.text);
      shownTexts.push(u.slots.map(plainShown).join(""));
      if (alone(u)) return;
      for (const g of gluedTexts(u)) {
        texts.push(w.text.slice(w.starts[g], w.ends[g]));
        shownTexts.push("");
      }
    });
    const redacted = await redact(texts, shownTexts);
    if (redacted.length !== texts.length) throw new TypeError("the outline's redaction gave back another number of texts");
    const again: number[] = [];
    let next = 0;
    pending.forEach((i, k) => {
      const u = units[i]!;
      const s = lasts[i]!;
      const w = windows[k]!;
      const read = s.name ? redacted[next]!.replaceAll(" ", "-") : redacted[next]!;
      next++;
      const whole = ends[i]! >= s.text.length;
      let room = read.length - READ_PAST_CUT_CHARS;
      if (alone(u)) shown.set(s, shownFrom(s, read, whole));
      else {
        const covers = coverOf(w.text, read);
        for (const g of gluedTexts(u)) covers.push(...coverOf(w.text.slice(w.starts[g], w.ends[g]), redacted[next++]!, w.starts[g]));
        room = showRun(u, w, covers, whole, shown);
      }
      const short = s.max - room;
      if (round >= READ_ROUNDS || whole || short <= 0) return;
      // Twice what is missing: the text read on may hold PII too.
      ends[i] = windowEnd(s.text, ends[i]! + 2 * short);
      again.push(i);
    });
    pending = again;
  }
  return slots.map((s) => shown.get(s)!);
}
