/**
 * @module documents/office/rtf-fonts
 * Which fonts of an RTF document are monospace, from its `{\fonttbl}`: text set in one is code (a command, a file
 * name, a listing), as a DOCX's run in Courier New is, so the reader marks it (rtf-character-state.ts), unless it
 * is the document's body font (its Normal style's, or its default), in which every paragraph is set. A font is
 * `{\fN\fmodern\fprq1\fcharset0 Liberation Mono{\*\falt Courier New};}`, or, in older files, one entry of a group
 * of them, each ended by its `;`. A font is monospace when its name says so (Courier, Consolas, "… Mono"), or when
 * its family is `\fmodern` (fixed-pitch) and its character set is not East Asian: Word files MS Mincho and MS Gothic
 * as `\fmodern\fcharset128`, and a Japanese document's text is not code. DOC's font table says the same things in
 * the same words (doc-fonts.ts), so the rule is here once.
 */

/** Names of monospace fonts (a font table may not give their family, or give it wrong). */
const MONOSPACE_NAME = /\bmono(space|spaced)?\b|courier|consolas|menlo|monaco|inconsolata|source code|lucida console|lucida sans typewriter|fira code|jetbrains|fixedsys|\bcode pro\b/i;

/** Character sets of East Asian fonts (SHIFTJIS, HANGUL, JOHAB, GB2312, CHINESEBIG5): fixed-pitch, not code. */
const EAST_ASIAN_CHARSETS: ReadonlySet<number> = new Set([128, 129, 130, 134, 136]);

/** Longest font name read; the rest of a longer one is dropped. */
const MAX_FONT_NAME_CHARS = 64;

/** Most fonts read from a table (Word's documents list a few dozen). */
const MAX_FONTS = 10_000;

/**
 * Whether a font is monospace: by its `name`, or by its family being the fixed-pitch "modern" one (`modern`) outside
 * the East Asian character sets (`charset`, as RTF's `\fcharsetN` and DOC's FFN `chs` number them).
 */
export function monospaceFont(name: string, modern: boolean, charset: number): boolean {
  return MONOSPACE_NAME.test(name) || (modern && !EAST_ASIAN_CHARSETS.has(charset));
}

/** A font entry being read. */
interface FontEntry {
  number: number | undefined;
  modern: boolean;
  charset: number;
  name: string;
  /** Depth of its own group, or -1 for an entry of the table's group (an old file's `\f0\fswiss Arial;\f1…`). */
  depth: number;
}

/** The words this table reads (the reader drops any other before asking). */
export const FONT_WORDS: ReadonlySet<string> = new Set(["fonttbl", "f", "fmodern", "fcharset", "deff"]);

/** An RTF document's monospace fonts, read from its `{\fonttbl}` as the reader meets it. */
export class RtfFonts {
  private readonly mono = new Set<number>();
  private count = 0;
  /** Depth of the `{\fonttbl}` group being read, or -1. */
  private tableDepth = -1;
  private entry: FontEntry | undefined;
  /** The document's default font (`\deffN`): what `\plain` sets. */
  defaultFont = 0;
  /** The Normal style's font (`\s0`'s `\fN` in the stylesheet), if it sets one: the document's body text font. */
  normalFont: number | undefined;

  /** Whether font `n` is monospace. */
  isMono(n: number): boolean {
    return this.mono.has(n);
  }

  /**
   * Whether text in font `n` is code: a monospace font that is not the document's body font (a manuscript or a
   * screenplay typed all in Courier is not one long listing).
   */
  isCode(n: number): boolean {
    return this.mono.has(n) && n !== (this.normalFont ?? this.defaultFont);
  }

  /** Whether the font table is being read (its text is font names, never the document's). */
  get reading(): boolean {
    return this.tableDepth >= 0;
  }

  /** A group opens at `depth`: in the table, one font's entry. */
  open(depth: number): void {
    if (this.tableDepth >= 0 && depth === this.tableDepth + 1) this.begin(depth);
  }

  /**
   * Reads a control word at `depth` ({@link FONT_WORDS}): `\fonttbl` opens the table, `\deffN` names the default
   * font; in the table, a font's number, family and character set. False for a word that is not the table's.
   */
  word(word: string, arg: number | undefined, depth: number): boolean {
    if (word === "deff") {
      if (arg !== undefined) this.defaultFont = arg;
      return true;
    }
    if (word === "fonttbl") {
      if (this.tableDepth < 0) this.tableDepth = depth;
      return true;
    }
    if (this.tableDepth < 0) return false;
    if (word === "f") {
      // In the table's own group, `\fN` starts the next entry (the one before ended at its `;`).
      if (!this.entry || (this.entry.number !== undefined && this.entry.depth < 0)) this.begin(-1);
      this.entry!.number = arg ?? 0;
    } else if (this.entry) {
      if (word === "fmodern") this.entry.modern = true;
      else if (word === "fcharset") this.entry.charset = arg ?? 0;
    }
    return true;
  }

  /** Whether `s` is font-table text (a font's name, which `;` ends), and so never the document's text. */
  text(s: string): boolean {
    if (this.tableDepth < 0) return false;
    const entry = this.entry;
    if (!entry) return true;
    const end = s.indexOf(";");
    const part = end < 0 ? s : s.slice(0, end);
    if (entry.name.length < MAX_FONT_NAME_CHARS) entry.name += part.slice(0, MAX_FONT_NAME_CHARS - entry.name.length);
    if (end >= 0) this.define();
    return true;
  }

  /** A group at `depth` ends: a font's entry, or the table. */
  close(depth: number): void {
    if (this.tableDepth < 0) return;
    if (this.entry && depth === this.entry.depth) this.define();
    if (depth === this.tableDepth) {
      this.define();
      this.tableDepth = -1;
    }
  }

  private begin(depth: number): void {
    this.define();
    this.entry = { number: undefined, modern: false, charset: 0, name: "", depth };
  }

  /** The entry being read is complete (its `;`, or its group's end). */
  private define(): void {
    const entry = this.entry;
    this.entry = undefined;
    if (!entry || entry.number === undefined || this.count >= MAX_FONTS) return;
    this.count++;
    if (monospaceFont(entry.name.trim(), entry.modern, entry.charset)) this.mono.add(entry.number);
    else this.mono.delete(entry.number);
  }
}
