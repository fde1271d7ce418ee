/**
 * @module documents/office/rtf-paragraph-state
 * The properties of the RTF paragraph being read that shape its block: whether it is in a table (`\intbl`, or
 * `\itapN` with N ≥ 1: Word's nesting level), a list item (`\lsN`, its depth `\ilvlN`, its marker the text of its
 * `{\listtext}` group; numbered by rtf-lists.ts), and its heading level, so an RTF's tables, lists and headings
 * come out as a DOCX's, DOC's and ODT's do. A heading is said two ways, and writers use either or both:
 * - `\outlinelevelN` among a paragraph's properties (N 0–8 for headings 1–9; 9 is body text): Word, LibreOffice
 *   and pandoc write it;
 * - `\sN`, the paragraph's style, whose definition in the `{\stylesheet}` has an `\outlinelevelN` or is named
 *   "heading N" (Word names its built-in styles so in every language; LibreOffice "Heading N"), or "Title" (level 1).
 *
 * A style's name also makes its paragraphs a quotation or a line of code, and a character style (`{\*\csN …}`) its
 * text code (rtf-style-names.ts); a character style set in a monospace font is code too (rtf-fonts.ts). A list
 * item's number is the one its `{\listtext}` marker shows (`5.`: a list that starts at 5, or counts on after a
 * paragraph between its items), which is what the writer computed from its list table, or without a marker the one
 * the list table gives (rtf-lists.ts).
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

import type { Marks } from "../layout/model.ts";
import type { RtfFonts } from "./rtf-fonts.ts";
import type { RtfListItem, RtfLists } from "./rtf-lists.ts";
import { isCodeCharacterStyle, isTitleStyle, paragraphKindOf, type ParagraphKind } from "./rtf-style-names.ts";

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
  /** The style it is based on (`\sbasedonN`): a heading style's child is a heading of its level. */
  basedOn?: number;
  /** A character style (`\csN`), whose number is in another set than paragraph styles'. */
  character: boolean;
  /** Its font (`\fN`), if it sets one. */
  font?: number;
  /** The marks it sets (`\b`, `\i`, `\strike`). */
  marks: Marks;
}

/** A paragraph's state, as a group saves it. */
interface ParagraphState {
  /** Heading level; 0 for body text. */
  level: number;
  /** In a table's cell. */
  inTable: boolean;
  /** The list (`\lsN`) the paragraph is an item of; 0 for none. */
  list: number;
  /** Its depth in the list (`\ilvlN`, 0–8). */
  listLevel: number;
  /** A quotation or a line of code, by its style's name. */
  kind: ParagraphKind;
  /** The marks its style sets, if any. */
  styleMarks: Marks | undefined;
}

const PLAIN: ParagraphState = { level: 0, inTable: false, list: 0, listLevel: 0, kind: undefined, styleMarks: undefined };

/** Deepest list level RTF has (`\ilvl` 0–8). */
const MAX_LIST_LEVEL = 8;

/** Longest list marker kept (`1.2.3.`, a bullet). */
const MAX_MARKER_CHARS = 32;

/** The words this state reads; any other is the reader's. */
export const PARAGRAPH_WORDS: ReadonlySet<string> = new Set(["pard", "s", "outlinelevel", "intbl", "itap", "ls", "ilvl", "sbasedon"]);

/** The words a style definition in the stylesheet is read for (character formatting is the body's elsewhere). */
const STYLE_WORDS: ReadonlySet<string> = new Set([...PARAGRAPH_WORDS, "cs", "f", "b", "i", "strike", "striked"]);

/** A paragraph style's heading level, kind and marks. */
interface ParagraphStyle {
  level: number;
  kind: ParagraphKind;
  marks: Marks | undefined;
}

/**
 * Tracks the state of the paragraph being read (heading level, table cell, list item and its marker) and the
 * stylesheet's heading styles.
 */
export class RtfParagraphState {
  /** Heading level (1–6; 0 for none) and kind of each paragraph style that has either. */
  private readonly paragraphStyles = new Map<number, ParagraphStyle>();
  /** Character styles that are code. */
  private readonly codeStyles = new Set<number>();
  private styleCount = 0;
  /** Depth of the `{\stylesheet}` group being read, or -1. */
  private sheetDepth = -1;
  private style: StyleDefinition | undefined;
  private state: ParagraphState = PLAIN;
  /** For each group (by depth) that changed the state, the state it replaced. */
  private readonly saved: (ParagraphState & { depth: number })[] = [];
  /** Depth of the `{\listtext}` (or legacy `{\pntext}`) group being read, or -1: its text is the item's marker. */
  private markerDepth = -1;
  /** The current paragraph's list marker (`•`, `1.`, `a)`), as its `{\listtext}` gives it. */
  marker = "";

  /** `fonts`: the document's font table, so a character style set in a monospace font is code. */
  constructor(private readonly fonts?: RtfFonts) {}

  /** Whether the stylesheet is being read. */
  get inSheet(): boolean {
    return this.sheetDepth >= 0;
  }

  /** The kind of the paragraph being read (a quotation, a line of code), by its style. */
  get kind(): ParagraphKind {
    return this.state.kind;
  }

  /**
   * The marks the paragraph's style sets: its text's bold is the style's, not the author's stress (a table's
   * heading row, a quotation's italics), as a DOCX's run is marked by its own properties, not its paragraph style's.
   */
  get styleMarks(): Marks | undefined {
    return this.state.styleMarks;
  }

  /** Whether character style `n` is code. */
  isCodeStyle(n: number): boolean {
    return this.codeStyles.has(n);
  }
  /** The heading level of the paragraph being read; 0 for body text. */
  get level(): number {
    return this.state.level;
  }

  /** Whether the paragraph being read is in a table's cell. */
  get inTable(): boolean {
    return this.state.inTable;
  }

  /**
   * The list item the paragraph being read is, if any: its depth, and whether and how its list is numbered (its
   * marker is a number or letter, `1.`, `a)`, `iv.`, or its list's level says so; a bullet or none is not), as
   * `lists` (the document's list tables) count it. A paragraph is an item when it names a list (`\lsN`, Word and
   * LibreOffice) or has a marker (`{\pntext}`, older writers). Counts the paragraph: asked once per paragraph.
   */
  listItem(lists: RtfLists): RtfListItem | undefined {
    return lists.item(this.state.list, this.state.listLevel, this.marker.trim());
  }

  /** `\stylesheet` in a group at `depth`: the style definitions follow, one group each. */
  sheet(depth: number): void {
    if (this.sheetDepth < 0) this.sheetDepth = depth;
  }

  /** `\listtext` (or `\pntext`) in a group at `depth`: its text is the paragraph's list marker, not its text. */
  markerGroup(depth: number): void {
    if (this.sheetDepth < 0 && this.markerDepth < 0) this.markerDepth = depth;
  }

  /** The paragraph ended: the next one has its own marker. */
  paragraphEnded(): void {
    this.marker = "";
  }

  /** A group opens at `depth`: in the stylesheet, a style definition. */
  open(depth: number): void {
    if (this.sheetDepth >= 0 && depth === this.sheetDepth + 1) this.style = { depth, number: undefined, level: undefined, name: "", character: false, marks: {} };
  }

  /** Whether `s` is stylesheet text (a style's name) or a list marker, and so never the document's text. */
  text(s: string): boolean {
    if (this.markerDepth >= 0) {
      if (this.marker.length < MAX_MARKER_CHARS) this.marker += s;
      return true;
    }
    if (this.sheetDepth < 0) return false;
    if (this.style && this.style.name.length < MAX_STYLE_NAME_CHARS) this.style.name += s;
    return true;
  }

  /** Reads a control word at `depth` that sets a paragraph property ({@link PARAGRAPH_WORDS}); false when it is not one. */
  word(word: string, arg: number | undefined, depth: number): boolean {
    if (this.sheetDepth >= 0 && STYLE_WORDS.has(word)) {
      const style = this.style;
      if (style && depth === style.depth) {
        if (word === "s") style.number = arg ?? 0;
        else if (word === "cs") {
          style.number = arg ?? 0;
          style.character = true;
        } else if (word === "f") style.font = arg ?? 0;
        else if (word === "b") style.marks.bold = arg !== 0;
        else if (word === "i") style.marks.italic = arg !== 0;
        else if (word === "strike" || word === "striked") style.marks.strike = arg !== 0;
        else if (word === "outlinelevel" && arg !== undefined) style.level = headingOf(arg);
        else if (word === "sbasedon" && arg !== undefined) style.basedOn = arg;
      }
      return true;
    }
    if (!PARAGRAPH_WORDS.has(word)) return false;
    const n = arg ?? 0;
    if (word === "sbasedon") return true; // a style definition's, meaningless outside the stylesheet
    if (word === "pard") this.change(PLAIN, depth);
    else if (word === "s") {
      const style = this.paragraphStyles.get(n);
      this.change({ level: style?.level ?? 0, kind: style?.kind, styleMarks: style?.marks }, depth);
    }
    else if (word === "intbl") this.change({ inTable: true }, depth);
    else if (word === "itap") this.change({ inTable: (arg ?? 1) > 0 }, depth);
    else if (word === "ls") this.change({ list: n }, depth);
    else if (word === "ilvl") this.change({ listLevel: Math.min(Math.max(0, n), MAX_LIST_LEVEL) }, depth);
    else if (arg !== undefined) this.change({ level: headingOf(arg) }, depth);
    return true;
  }

  /** A group at `depth` ends: a style definition is complete, a marker read; what the group changed is restored. */
  close(depth: number): void {
    if (depth === this.markerDepth) this.markerDepth = -1;
    if (this.sheetDepth >= 0) {
      if (this.style && depth === this.style.depth) {
        this.define(this.style);
        this.style = undefined;
      }
      if (depth !== this.sheetDepth) return;
      // The stylesheet's own group ends: what it changed before `\stylesheet` (`{\intbl\stylesheet …}`) is restored.
      this.sheetDepth = -1;
    }
    const top = this.saved[this.saved.length - 1];
    if (top && top.depth === depth) {
      const { depth: _, ...state } = top;
      this.state = state;
      this.saved.pop();
    }
  }

  private change(next: Partial<ParagraphState>, depth: number): void {
    const s = this.state;
    // Most properties a paragraph sets are the ones it has (`\s0`, `\ilvl0`): compared before any copy is made.
    if (
      (next.level ?? s.level) === s.level &&
      (next.inTable ?? s.inTable) === s.inTable &&
      (next.list ?? s.list) === s.list &&
      (next.listLevel ?? s.listLevel) === s.listLevel &&
      (!("kind" in next) || next.kind === s.kind) &&
      (!("styleMarks" in next) || next.styleMarks === s.styleMarks)
    )
      return;
    const top = this.saved[this.saved.length - 1];
    if (!top || top.depth < depth) {
      if (this.saved.length >= MAX_SAVED_STATES) return;
      this.saved.push({ depth, ...s });
    }
    this.state = { ...s, ...next };
  }

  private define(style: StyleDefinition): void {
    if (style.number === undefined || this.styleCount >= MAX_STYLES) return;
    this.styleCount++;
    // The name ends at ';' (aliases after a comma: "heading 1,h1").
    const name = style.name.split(";")[0]!.split(",")[0]!.trim();
    if (style.number === 0 && !style.character && style.font !== undefined && this.fonts) this.fonts.normalFont = style.font;
    if (style.character) {
      if (isCodeCharacterStyle(name) || (style.font !== undefined && this.fonts?.isCode(style.font))) this.codeStyles.add(style.number);
      return;
    }
    const named = /^heading\s*([1-9])$/i.exec(name);
    const base = style.basedOn !== undefined && style.basedOn !== style.number ? this.paragraphStyles.get(style.basedOn) : undefined;
    const level = style.level ?? (named ? Math.min(Number(named[1]), MAX_HEADING_LEVEL) : isTitleStyle(name) ? 1 : (base?.level ?? 0));
    const kind = paragraphKindOf(name) ?? base?.kind;
    const marks: Marks = { ...base?.marks, ...style.marks };
    const marked = marks.bold || marks.italic || marks.strike;
    if (level > 0 || kind || marked) this.paragraphStyles.set(style.number, { level, kind, marks: marked ? marks : undefined });
  }
}
