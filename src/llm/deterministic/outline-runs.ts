/**
 * @module llm/deterministic/outline-runs
 * Under `redactPII`, the text of a block as the markdown reads it, for the outline's redaction
 * (llm/deterministic/outline-slots.ts). The outline shows each text node on its own line, but PII is often split
 * across nodes (`{user}@{domain}` in JSX, a card rendered in groups of four, comments between the parts): redacted
 * node by node, no part is recognised and all of it is shown. So the text nodes of one block (a block element's
 * text, inline elements and comments transparent) are read together: a {@link Run} is a block's consecutive shown
 * texts, each but the last read whole, redacted as one text and mapped back onto its texts by {@link alignRead}.
 *
 * A run's ends keep the cut guarantees of a single text: a run that starts after text left unread (a text cut
 * before it in the same block, one left out of the outline) reads up to {@link READ_PAST_CUT_CHARS} characters of
 * it first and shows none of them, and a run whose block goes on unread (its last text cut, the next left out, the
 * outline's end) is shown at most its redacted length less that many characters, as a cut text is.
 */
import { READ_PAST_CUT_CHARS, type Slot, windowEnd } from "./outline-slots.ts";

/** Elements that start and end a block of text: between them, text nodes read as one text. */
const BLOCK = new Set(
  "address article aside blockquote body br caption dd details dialog div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr html li main nav ol p pre section summary table tbody td tfoot th thead tr ul".split(" "),
);

/** Whether `tag` (lower case) starts a block of text ({@link BLOCK}); other elements, custom ones too, are inline. */
export const isBlock = (tag: string): boolean => BLOCK.has(tag);

/** A block's consecutive shown texts, redacted as one text (see the module comment). */
export interface Run {
  /** The texts in order; all but the last are read whole. */
  slots: Slot[];
  /** Before each text: " " where the page has white space before it, else "" (the first's: after {@link lead}). */
  seps: string[];
  /** The end of the block's text before the run, read and never shown ("" when the run starts the block). */
  lead: string;
  /** Whether the block's text goes on unread after the last text when that text is read whole. */
  open: boolean;
}

interface TextNode {
  slot: Slot;
  shown: boolean;
  /** White space between it and the block's previous text. */
  gap: boolean;
}

/** Whether a slot's first window holds all its text. */
const readWhole = (s: Slot) => windowEnd(s.text, s.max + READ_PAST_CUT_CHARS) >= s.text.length;

/**
 * Collects the outline's text nodes block by block, in document order, and makes their {@link Run}s: `text` for
 * each text node (shown or left out of the outline), `end` at each block boundary, `stop` where the outline stops.
 */
export class BlockTexts {
  /** The runs of more than one text, or with a lead or an open end (a lone text is read as before). */
  readonly runs: Run[] = [];
  private nodes: TextNode[] = [];
  private gap = false;

  /** A text node of the current block: `raw` as the page has it, `s` its slot, `shown` whether the outline has it. */
  text(raw: string, s: Slot, shown: boolean): void {
    if (s.text === "") {
      if (raw !== "") this.gap = true;
      return;
    }
    this.nodes.push({ slot: s, shown, gap: this.gap || /^\s/.test(raw) });
    this.gap = /\s$/.test(raw);
  }

  /** A block boundary; `unread`: the block's text goes on beyond what was collected. */
  end(unread = false): void {
    const nodes = this.nodes;
    for (let k = 0; k < nodes.length; k++) {
      if (!nodes[k]!.shown) continue;
      const first = k;
      while (readWhole(nodes[k]!.slot) && k + 1 < nodes.length && nodes[k + 1]!.shown) k++;
      const open = k + 1 < nodes.length || unread;
      const lead = first > 0 ? leadBefore(nodes, first) : "";
      if (k === first && lead === "" && !open) continue;
      const part = nodes.slice(first, k + 1);
      this.runs.push({ slots: part.map((n) => n.slot), seps: part.map((n) => (n.gap ? " " : "")), lead, open });
    }
    this.nodes = [];
    this.gap = false;
  }
}

/** The last {@link READ_PAST_CUT_CHARS} characters of the block's text before `nodes[first]`: at most that many nodes read. */
function leadBefore(nodes: readonly TextNode[], first: number): string {
  let lead = "";
  for (let m = first - 1; m >= 0 && lead.length < READ_PAST_CUT_CHARS; m--) {
    // The white space before `nodes[first]` is the run's own (Run.seps).
    lead = nodes[m]!.slot.text.slice(-READ_PAST_CUT_CHARS) + (m + 1 < first && nodes[m + 1]!.gap ? " " : "") + lead;
  }
  return lead.slice(-READ_PAST_CUT_CHARS);
}

/** The text a run is redacted as, and where its texts are in it (before `starts[0]`: the lead and white space). */
export interface RunWindow {
  text: string;
  starts: number[];
  ends: number[];
}

/** A run's window: its lead, whole texts and the last one's first `lastEnd` characters; where each text is in it. */
export function runWindow(run: Run, lastEnd: number): RunWindow {
  let text = run.lead;
  const starts: number[] = [];
  const ends: number[] = [];
  run.slots.forEach((s, k) => {
    if (k > 0 || text !== "") text += run.seps[k]!;
    starts.push(text.length);
    text += k === run.slots.length - 1 ? s.text.slice(0, lastEnd) : s.text;
    ends.push(text.length);
  });
  return { text, starts, ends };
}

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

/**
 * Which text of the window each character of `read`, its redaction, belongs to (`starts`/`ends`: where the texts
 * are; before `starts[0]` the lead): -1 for the lead and for white space between texts. The redaction is the window
 * with spans replaced (a tag, a mask, nothing): equal characters are matched in order; a replacement goes to the
 * text where the window's span starts (none in the lead), and the window resumes at the first place after it that
 * holds what follows it in `read` (for the last such text, the window's end when it ends so). So each character is
 * placed no later than where it is, never in a text after its own: the lead's are never shown. Linear: positions
 * only move forward, and each search is for at most {@link RESYNC_CHARS} characters.
 */
export function alignRead(window: string, lead: number, starts: readonly number[], ends: readonly number[], read: string): Int32Array {
  const owner = new Int32Array(read.length);
  let part = 0;
  /** The text holding window position `i`, or (white space before a text) that text; `inside`: -1 for the latter. */
  const at = (i: number, inside: boolean) => {
    if (i < lead) return -1;
    while (part < ends.length - 1 && i >= ends[part]!) part++;
    return inside && (i < starts[part]! || i >= ends[part]!) ? -1 : part;
  };
  // How long a tail the window and the redaction have in common: where the last literal text resumes.
  let same = 0;
  while (same < read.length && same < window.length && read[read.length - 1 - same] === window[window.length - 1 - same]) same++;
  let i = 0;
  let j = 0;
  /** The next replacement at or after the text that follows the current one (cached: each scanned once). */
  let next = -1;
  while (j < read.length) {
    const length = replacementAt(read, j);
    if (length === 0 && i < window.length && read[j] === window[i]) {
      owner[j++] = at(i++, true);
      continue;
    }
    const mine = at(Math.min(i, window.length - 1), false);
    for (let q = j; q < j + length; q++) owner[q] = mine;
    j += length;
    if (next < j) {
      next = j;
      while (next < read.length && replacementAt(read, next) === 0) next++;
    }
    if (next === j) {
      // Another replacement at once: it covers at least the next character.
      i = Math.min(window.length, i + 1);
      continue;
    }
    const tail = window.length - (read.length - j);
    const k = next === read.length && read.length - j <= same && tail > i ? tail : window.indexOf(read.slice(j, Math.min(next, j + RESYNC_CHARS)), i + 1);
    if (k < 0) {
      owner.fill(mine, j);
      break;
    }
    i = k;
  }
  return owner;
}
