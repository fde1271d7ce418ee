/**
 * @module llm/deterministic/outline-runs
 * Under `redactPII`, the text of a block as the markdown reads it, for the outline's redaction
 * (llm/deterministic/outline-slots.ts). The outline shows each text node on its own line, but PII is often split
 * across nodes (`{user}@{domain}` in JSX, a card rendered in groups of four, comments between the parts): redacted
 * node by node, no part is recognised and all of it is shown. So the text nodes of one block (a block element's
 * text, inline elements and comments transparent) are read together: a {@link Run} is a block's consecutive shown
 * texts, each but the last read whole, at most about {@link RUN_CHARS} characters, redacted as one text and, those
 * glued to a neighbour, each on its own too; what any of them replaced is not shown (llm/deterministic/outline-cover.ts).
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
  /**
   * The start of the block's text after the run, read and never shown, when the block is read in several runs
   * ({@link RUN_CHARS}): up to {@link READ_PAST_CUT_CHARS} characters, so PII the split cuts is read whole ("" else).
   */
  trail: string;
  /**
   * Whether each text touches another text of its block with no white space between (llm/deterministic/outline-cover.ts):
   * such a text is also redacted on its own, as the joined text may hide what it holds.
   */
  glued: boolean[];
}

/**
 * Most characters of a block's texts read as one run: a longer block is read in several runs, each after the
 * {@link READ_PAST_CUT_CHARS} characters before it and before the {@link Run.trail} after it (more than any PII
 * a pattern finds; neither shown), so PII at a split is read whole by both runs. The redaction's work on a text may grow faster than its
 * length (its markdown reading of `*` and `_` runs), so a run is kept short whatever the block.
 */
export const RUN_CHARS = 1_000;

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
      let chars = nodes[k]!.slot.text.length;
      while (readWhole(nodes[k]!.slot) && k + 1 < nodes.length && nodes[k + 1]!.shown && chars < RUN_CHARS) chars += nodes[++k]!.slot.text.length + 1;
      // Split at RUN_CHARS: the run reads on into the next texts (its trail) instead of being shown as a cut text.
      const trail = chars >= RUN_CHARS && readWhole(nodes[k]!.slot) && k + 1 < nodes.length ? trailAfter(nodes, k) : "";
      const open = trail !== "" ? trail.length < READ_PAST_CUT_CHARS && unread : k + 1 < nodes.length || unread;
      const lead = first > 0 ? leadBefore(nodes, first) : "";
      if (k === first && lead === "" && !open) continue;
      const part = nodes.slice(first, k + 1);
      // Glued: no white space before it (a text or the lead there) or after it (a text there).
      const glued = part.map((n, m) => (!n.gap && (m > 0 || lead !== "")) || (first + m + 1 < nodes.length && !nodes[first + m + 1]!.gap));
      this.runs.push({ slots: part.map((n) => n.slot), seps: part.map((n) => (n.gap ? " " : "")), lead, open, trail, glued });
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

/** The first {@link READ_PAST_CUT_CHARS} characters of the block's text after `nodes[last]`, white space first. */
function trailAfter(nodes: readonly TextNode[], last: number): string {
  let trail = "";
  for (let m = last + 1; m < nodes.length && trail.length < READ_PAST_CUT_CHARS; m++) {
    trail += (nodes[m]!.gap ? " " : "") + nodes[m]!.slot.text.slice(0, READ_PAST_CUT_CHARS);
  }
  return trail.slice(0, READ_PAST_CUT_CHARS);
}

/** The text a run is redacted as, and where its texts are in it (before `starts[0]`: the lead and white space). */
export interface RunWindow {
  text: string;
  starts: number[];
  ends: number[];
  /** Where the run's {@link Run.trail} starts (the window's end when it has none): nothing from it on is shown. */
  trailAt: number;
}

/**
 * A run's window: its lead, whole texts and the last one's first `lastEnd` characters, then its trail when that
 * text is read whole; where each text is in it.
 */
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
  const trailAt = text.length;
  const last = run.slots[run.slots.length - 1]!;
  if (lastEnd >= last.text.length) text += run.trail;
  return { text, starts, ends, trailAt };
}
