/**
 * @module llm/deterministic/outline-slots
 * The page's texts in a `deterministicJson` outline (llm/deterministic/outline.ts): text nodes, attribute names and
 * values, JSON scripts, each shortened to its own length. Without `redactPII` a text is shown as its first `max`
 * characters. With it, a text is redacted before it is shortened, on a window that reads past the cut, and what is
 * shown is chosen so that no fragment of PII is: a piece of PII the window itself cuts (the first groups of a card
 * number, `carol.smi`) is not recognised by the redaction, so it must never reach the part shown.
 *
 * The rule: a window that does not hold the whole text shows at most its redacted length less
 * {@link READ_PAST_CUT_CHARS}. A fragment the window cuts is at the window's end, and the redaction leaves it (and
 * anything it finds after its start) within the last characters of the redacted window, so it is never shown, however
 * much the redaction shortened the text before it (two addresses become `<EMAIL>`: the fragment moves forward, the
 * shown part shrinks with it). A window that the redaction shortened is read again, longer, so the text still shows
 * its `max` characters (at most {@link READ_ROUNDS} reads, the later ones only of the texts still short).
 *
 * The window ends where a word ends when one ends within {@link READ_PAST_CUT_CHARS} more characters, else it cuts
 * the word (minified JSON-LD, a long URL: one "word" of thousands of characters, shown as its first `max`): found by a
 * bounded scan, so a text costs at most that many characters however long its runs without spaces.
 *
 * The reads themselves: llm/deterministic/outline-read.ts; the text nodes of one block are read together as one
 * text, with these rules at its ends (llm/deterministic/outline-runs.ts).
 */

/**
 * Characters read past a text's cut when the outline is redacted, and kept unshown at the end of a window that does
 * not hold the whole text: PII up to this long that the window cuts is never shown as a fragment.
 */
export const READ_PAST_CUT_CHARS = 100;

/** Most redactions of the outline's texts: the first of all, the others of the texts a redaction left short. */
export const READ_ROUNDS = 3;

/** A text from the page in an outline line (a text node, an attribute name or value, a JSON script). */
export interface Slot {
  /** The text, its white space collapsed to single spaces. */
  text: string;
  /** Characters shown at most (a longer text is cut there and marked `…`). */
  max: number;
  /** In an attribute: its quotes escaped once shortened. */
  attr?: true;
  /**
   * A custom element's name: redacted with its hyphens read as spaces, as a pattern finds no card or address run
   * into a word by a hyphen (`contact-4111111111111111`), and shown with them again.
   */
  name?: true;
}

/** A slot of `s` (its white space collapsed) shown at most `max` characters long. */
export const slot = (s: string, max: number, attr = false): Slot => ({ text: s.replace(/\s+/g, " ").trim(), max, ...(attr ? { attr: true as const } : {}) });

/** Redacts windows of the outline's texts (in order, as many as given); `shown`: the same slots as shown unredacted. */
export type RedactTexts = (windows: string[], shown: string[]) => Promise<string[]>;

/** Work done by {@link windowEnd}'s scans, for tests that count it: characters looked at. */
export const slotScanWork = { chars: 0 };

/**
 * The end of a window of `text` meant to end at `at`: the end of the word `at` falls in if it ends within
 * {@link READ_PAST_CUT_CHARS} more characters, else `at` (plus that bound's characters read, which only widen the
 * margin); the whole text when it is shorter.
 */
export function windowEnd(text: string, at: number): number {
  if (at >= text.length) return text.length;
  if (text[at - 1] === " " || text[at] === " ") return at;
  const ahead = text.slice(at, at + READ_PAST_CUT_CHARS);
  slotScanWork.chars += ahead.length;
  const space = ahead.indexOf(" ");
  return space >= 0 ? at + space : Math.min(text.length, at + READ_PAST_CUT_CHARS);
}

/** `text` as slot `s` shows it: in an attribute, its quotes escaped. */
export const escaped = (s: Slot, text: string) => (s.attr ? text.replace(/"/g, "&quot;") : text);

/** A slot as shown without redaction: its first `max` characters, marked when cut. */
export function plainShown(s: Slot): string {
  return escaped(s, s.text.length > s.max ? `${s.text.slice(0, s.max)}…` : s.text);
}

/**
 * A slot as shown from `read`, its redacted window: `whole` when the window held all of the text. A window that did
 * not shows at most its length less {@link READ_PAST_CUT_CHARS} (see the module comment), and is always marked cut.
 */
export function shownFrom(s: Slot, read: string, whole: boolean): string {
  const keep = whole ? s.max : Math.min(s.max, Math.max(0, read.length - READ_PAST_CUT_CHARS));
  return escaped(s, !whole || read.length > keep ? `${read.slice(0, keep)}…` : read);
}
