/**
 * @module documents/office/rtf-paragraph-state
 * The properties of the RTF paragraph being read that shape its block: whether it is in a table (`\intbl`, or
 * `\itapN` with N ≥ 1: Word's nesting level), and its heading level, so an RTF's tables and headings come out as a
 * DOCX's, DOC's and ODT's do. A heading is said two ways, and writers use either or both:
 * - `\outlinelevelN` among a paragraph's properties (N 0–8 for headings 1–9; 9 is body text): Word, LibreOffice
 *   and pandoc write it;
 * - `\sN`, the paragraph's style, whose definition in the `{\stylesheet}` has an `\outlinelevelN` or is named
 *   "heading N" (Word names its built-in styles so in every language; LibreOffice "Heading N").
 *
 * Paragraph properties belong to a group as the rest of RTF's state does: `\pard` in `{\listtext\pard\plain …}` (a
 * numbered heading's number, or a list item's bullet in a table cell) resets them only until the group closes. So a
 * change made in a group saves the state it replaced, restored when the group ends; at most
 * {@link MAX_SAVED_STATES} groups deep (a change deeper is ignored), so a hostile file's million nested groups cost
 * nothing.
 */

/** Deepest markdown heading: outline levels past it are written at this level. */
const MAX_HEADING_LEVEL = 6;

/** Outline levels 0–8 are headings; 9 is Word's body-text level. */
const BODY_OUTLINE_LEVEL = 9;

/** Most nested groups that save a paragraph's state (see the module comment). */
export const MAX_SAVED_STATES = 256;

/** Most styles read from a stylesheet (Word's documents define a few hundred). */
const MAX_STYLES = 10_000;

/** Longest style name read: "heading 1" and its aliases; the rest of a longer name is dropped. */
const MAX_STYLE_NAME_CHARS = 64;

/** The heading level an outline level gives: 1–6, or 0 for body text. */
function headingOf(outlineLevel: number): number {
  if (!Number.isInteger(outlineLevel) || outlineLevel < 0 || outlineLevel >= BODY_OUTLINE_LEVEL) return 0;
  return Math.min(outlineLevel + 1, MAX_HEADING_LEVEL);
}

/** A style definition being read: its number, its own outline level, and its name. */
interface StyleDefinition {
  depth: number;
  number: number | undefined;
  level: number | undefined;
  name: string;
}

/** A paragraph's state, as a group saves it. */
interface ParagraphState {
  level: number;
  inTable: boolean;
}

/** Tracks the heading level and table membership of the paragraph being read, and the stylesheet's heading styles. */
export class RtfParagraphState {
  /** Heading level (1–6) of each paragraph style that has one. */
  private readonly headingStyles = new Map<number, number>();
  /** Depth of the `{\stylesheet}` group being read, or -1. */
  private sheetDepth = -1;
  private style: StyleDefinition | undefined;
  /** The heading level of the paragraph being read; 0 for body text. */
  level = 0;
  /** Whether the paragraph being read is in a table's cell. */
  inTable = false;
  /** For each group (by depth) that changed the state, the state it replaced. */
  private readonly saved: (ParagraphState & { depth: number })[] = [];

  /** `\stylesheet` in a group at `depth`: the style definitions follow, one group each. */
  sheet(depth: number): void {
    if (this.sheetDepth < 0) this.sheetDepth = depth;
  }

  /** A group opens at `depth`: in the stylesheet, a style definition. */
  open(depth: number): void {
    if (this.sheetDepth >= 0 && depth === this.sheetDepth + 1) this.style = { depth, number: undefined, level: undefined, name: "" };
  }

  /** Whether `s` is stylesheet text (a style's name), and so never the document's. */
  text(s: string): boolean {
    if (this.sheetDepth < 0) return false;
    if (this.style && this.style.name.length < MAX_STYLE_NAME_CHARS) this.style.name += s;
    return true;
  }

  /** Reads a control word at `depth` (`\pard`, `\sN`, `\outlinelevelN`, `\intbl`, `\itapN`); false when it is none of them. */
  word(word: string, arg: number | undefined, depth: number): boolean {
    if (word !== "pard" && word !== "s" && word !== "outlinelevel" && word !== "intbl" && word !== "itap") return false;
    if (this.sheetDepth >= 0) {
      const style = this.style;
      if (style && depth === style.depth) {
        if (word === "s") style.number = arg ?? 0;
        else if (word === "outlinelevel" && arg !== undefined) style.level = headingOf(arg);
      }
      return true;
    }
    if (word === "pard") this.set({ level: 0, inTable: false }, depth);
    else if (word === "s") this.set({ level: this.headingStyles.get(arg ?? 0) ?? 0, inTable: this.inTable }, depth);
    else if (word === "intbl") this.set({ level: this.level, inTable: true }, depth);
    else if (word === "itap") this.set({ level: this.level, inTable: (arg ?? 1) > 0 }, depth);
    else if (arg !== undefined) this.set({ level: headingOf(arg), inTable: this.inTable }, depth);
    return true;
  }

  /** A group at `depth` ends: a style definition is complete; a level the group changed is restored. */
  close(depth: number): void {
    if (this.sheetDepth >= 0) {
      if (this.style && depth === this.style.depth) {
        this.define(this.style);
        this.style = undefined;
      }
      if (depth === this.sheetDepth) this.sheetDepth = -1;
      return;
    }
    const top = this.saved[this.saved.length - 1];
    if (top && top.depth === depth) {
      this.level = top.level;
      this.inTable = top.inTable;
      this.saved.pop();
    }
  }

  private set(next: ParagraphState, depth: number): void {
    if (next.level === this.level && next.inTable === this.inTable) return;
    const top = this.saved[this.saved.length - 1];
    if (!top || top.depth < depth) {
      if (this.saved.length >= MAX_SAVED_STATES) return;
      this.saved.push({ depth, level: this.level, inTable: this.inTable });
    }
    this.level = next.level;
    this.inTable = next.inTable;
  }

  private define(style: StyleDefinition): void {
    if (style.number === undefined || this.headingStyles.size >= MAX_STYLES) return;
    // The name ends at ';' (aliases after a comma: "heading 1,h1").
    const name = style.name.split(";")[0]!.split(",")[0]!.trim();
    const named = /^heading\s*([1-9])$/i.exec(name);
    const level = style.level ?? (named ? Math.min(Number(named[1]), MAX_HEADING_LEVEL) : 0);
    if (level > 0) this.headingStyles.set(style.number, level);
  }
}
