/**
 * @module documents/office/rtf-character-state
 * The character formatting of the RTF text being read (rtf.ts), as far as the markdown keeps it: bold (`\b`),
 * italic (`\i`), struck through (`\strike`, `\striked1`), code (a monospace font, `\fN` by the font table
 * rtf-fonts.ts, or a character style `\csN` that is a code style or set in one); and whether the text is shown at
 * all: hidden text (`\v`) and a tracked deletion (`\deleted`) are not the document's text (Word prints neither), as
 * a DOCX's `w:vanish` and `w:del` are not.
 *
 * A word with the parameter 0 turns its property off (`\b0`, `\v0`); `\plain` resets them all (the font to the
 * document's default). Character formatting belongs to a group: `{\b bold}` ends with its group. So a change made
 * in a group saves the state it replaced, restored when the group ends, as the paragraph state does
 * (rtf-paragraph-state.ts), at most {@link MAX_SAVED_STATES} groups deep.
 */
import type { Marks } from "../layout/model.ts";
import type { RtfFonts } from "./rtf-fonts.ts";
import { MAX_SAVED_STATES } from "./rtf-paragraph-state.ts";

/** One point of the text's formatting, as a group saves it. */
interface CharacterState {
  bold: boolean;
  italic: boolean;
  strike: boolean;
  /** The font (`\fN`); undefined for the document's default (`\deffN`, which the header may set after the state began). */
  font: number | undefined;
  /** In a character style that is code. */
  codeStyle: boolean;
  hidden: boolean;
  deleted: boolean;
}

/** The state `\plain` sets: nothing marked, hidden or deleted, in the default font. */
const PLAIN: CharacterState = { bold: false, italic: false, strike: false, font: undefined, codeStyle: false, hidden: false, deleted: false };

/** A copy of `s`, written out (a spread is slower, and this runs for most runs of text). */
const copy = (s: CharacterState): CharacterState => ({ bold: s.bold, italic: s.italic, strike: s.strike, font: s.font, codeStyle: s.codeStyle, hidden: s.hidden, deleted: s.deleted });

/** Whether `s` is what `\plain` sets. */
const samePlain = (s: CharacterState) => !s.bold && !s.italic && !s.strike && s.font === undefined && !s.codeStyle && !s.hidden && !s.deleted;

/** The words this state reads; any other is the reader's. */
export const CHARACTER_WORDS: ReadonlySet<string> = new Set(["b", "i", "strike", "striked", "v", "deleted", "plain", "f", "cs"]);

/** Tracks the character formatting of the text being read. */
export class RtfCharacterState {
  private state: CharacterState;
  /** For each group (by depth) that changed the state, the state it replaced. */
  private readonly saved: (CharacterState & { depth: number })[] = [];
  /** The marks of the current state, once asked (text is added run by run: one object per change, not per run). */
  private cached: Marks | undefined;

  /** `codeStyle(n)`: whether character style `n` is code (rtf-paragraph-state.ts reads the stylesheet). */
  constructor(
    private readonly fonts: RtfFonts,
    private readonly codeStyle: (n: number) => boolean,
  ) {
    this.state = PLAIN;
  }

  /** Whether the text being read is shown: neither hidden nor a tracked deletion. */
  get shown(): boolean {
    return !this.state.hidden && !this.state.deleted;
  }

  /** The marks of the text being read. */
  get marks(): Marks {
    if (this.cached) return this.cached;
    const s = this.state;
    const marks: Marks = {};
    if (s.bold) marks.bold = true;
    if (s.italic) marks.italic = true;
    if (s.strike) marks.strike = true;
    if (s.codeStyle || this.fonts.isCode(s.font ?? this.fonts.defaultFont)) marks.code = true;
    return (this.cached = marks);
  }

  /**
   * The marks of the text being read beyond those its paragraph's style sets (`style`, rtf-paragraph-state.ts): the
   * style's bold (a table's heading row) is not the author's stress, as a DOC's is read (doc-characters.ts).
   */
  marksBeyond(style: Marks | undefined): Marks {
    const marks = this.marks;
    if (!style || !((marks.bold && style.bold) || (marks.italic && style.italic) || (marks.strike && style.strike))) return marks;
    return { ...marks, ...(style.bold ? { bold: false } : {}), ...(style.italic ? { italic: false } : {}), ...(style.strike ? { strike: false } : {}) };
  }

  /** Reads a control word at `depth` ({@link CHARACTER_WORDS}); false when it is not one. */
  word(word: string, arg: number | undefined, depth: number): boolean {
    if (!CHARACTER_WORDS.has(word)) return false;
    const on = arg !== 0;
    if (word === "b") this.set("bold", on, depth);
    else if (word === "i") this.set("italic", on, depth);
    else if (word === "strike" || word === "striked") this.set("strike", on, depth);
    else if (word === "v") this.set("hidden", on, depth);
    else if (word === "deleted") this.set("deleted", on, depth);
    else if (word === "f") this.set("font", arg ?? 0, depth);
    else if (word === "cs") this.set("codeStyle", this.codeStyle(arg ?? 0), depth);
    else if (!samePlain(this.state)) this.replace({ ...PLAIN }, depth);
    return true;
  }

  /** A group at `depth` ends: what it changed is restored. */
  close(depth: number): void {
    const top = this.saved[this.saved.length - 1];
    if (top && top.depth === depth) {
      const { depth: _, ...state } = top;
      this.state = state;
      this.cached = undefined;
      this.saved.pop();
    }
  }

  /** Sets one property (a word is read per run: one comparison, and a copy only when it changes something). */
  private set<K extends keyof CharacterState>(key: K, value: CharacterState[K], depth: number): void {
    if (this.state[key] === value) return;
    const next = copy(this.state);
    next[key] = value;
    this.replace(next, depth);
  }

  /** Makes `next` the state, saving the one it replaces for the group at `depth` (once per group). */
  private replace(next: CharacterState, depth: number): void {
    const top = this.saved[this.saved.length - 1];
    if (!top || top.depth < depth) {
      if (this.saved.length >= MAX_SAVED_STATES) return;
      this.saved.push({ ...copy(this.state), depth });
    }
    this.state = next;
    this.cached = undefined;
  }
}
