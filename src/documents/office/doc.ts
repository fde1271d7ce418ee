/**
 * @module documents/office/doc
 * DOC (Word 97–2003, MS-DOC in a compound file) → blocks: the body text (doc-text.ts) cut into paragraphs at their
 * marks, each shaped by its properties (doc-paragraphs.ts): headings from heading styles, list items with their
 * level (numbered or bulleted as their list says), tables from cell and row-end marks, hyperlinks from HYPERLINK
 * fields. Field codes are dropped and their results kept (a date field shows its date); pictures and comment
 * anchors leave nothing behind. Footnote and endnote references become note references and the notes are listed at
 * the end, as a DOCX's are (doc-notes.ts). Headers and comments are not read (they follow the body in the text,
 * outside `ccpText`).
 */
import { DocumentCorruptError } from "../errors.ts";
import type { Block, Inline } from "../layout/model.ts";
import { CompoundFile } from "./cfb.ts";
import { DocParagraphs, type ParagraphProps } from "./doc-paragraphs.ts";
import { DocNotes, type NoteRefs } from "./doc-notes.ts";
import { bodyText, PieceTable, readFib } from "./doc-text.ts";
import { hyperlinkTarget, InlineRuns } from "./inline-runs.ts";
import { TextBudget } from "./text-budget.ts";
import { summaryTitle } from "./summary-info.ts";
import { MAX_LIST_DEPTH } from "./xml.ts";

const PARAGRAPH_END = "\r";
const CELL_END = "\x07";
const PAGE_BREAK = "\x0c";
const FIELD_BEGIN = "\x13";
const FIELD_SEPARATOR = "\x14";
const FIELD_END = "\x15";

/** Deepest field nesting kept (real documents nest a few: a HYPERLINK inside an IF). */
const MAX_FIELD_DEPTH = 64;

/** Characters that stand for something else in a paragraph's text: line breaks, special hyphens, spaces. */
const REPLACE: Record<string, string> = { "\x0b": " ", "\x09": " ", "\x1e": "-", "\x1f": "", "\xa0": " " };

/**
 * One paragraph's text as inline spans, fields resolved: a field's code (between its begin and separator marks) is
 * dropped and its result kept, linked when the code is `HYPERLINK "url"`. Fields nest; `depth` counts open ones.
 * Counted against the document's text `budget` when given (text-budget.ts). With `notes`, the character at a note
 * reference's CP (the paragraph starts at body CP `firstCp`) becomes a reference to the note's label.
 */
export function inlineOf(text: string, budget?: TextBudget, notes?: NoteRefs, firstCp = 0): Inline[] {
  const runs = new InlineRuns(budget);
  // Each open field knows the link its result belongs to (its own, or the enclosing field's): one lookup per
  // character, where searching the stack for it made nested fields quadratic (20,000 of them: 2 s for 68 KB).
  const stack: { inCode: boolean; code: string; href?: string }[] = [];
  // Fields nested deeper than MAX_FIELD_DEPTH are counted, not kept (their marks still pair up).
  let beyond = 0;
  // By UTF-16 unit, not code point: a CP is one unit, and note references are found by CP.
  for (let k = 0; k < text.length; k++) {
    const ch = text[k]!;
    const top = stack[stack.length - 1];
    if (ch === FIELD_BEGIN) {
      if (stack.length >= MAX_FIELD_DEPTH) beyond++;
      else stack.push({ inCode: true, code: "", ...(top?.href ? { href: top.href } : {}) });
    } else if (ch === FIELD_SEPARATOR && top) {
      if (beyond > 0) continue;
      top.inCode = false;
      const href = hyperlinkTarget(top.code);
      if (href) top.href = href;
    } else if (ch === FIELD_END && top) {
      if (beyond > 0) beyond--;
      else stack.pop();
    } else if (top?.inCode) {
      if (top.code.length < 2048) top.code += ch;
    } else {
      const label = notes?.at(firstCp + k);
      if (label !== undefined) runs.note(label);
      else {
        const c = REPLACE[ch] ?? (ch < " " ? "" : ch);
        if (c) runs.push(c, top?.href);
      }
    }
  }
  return runs.spans();
}

/** Appends `add` to `into` with a space between (a table cell's paragraphs). */
function joinInline(into: Inline[], add: Inline[]): void {
  if (add.length === 0) return;
  if (into.length > 0) into.push({ text: " " });
  into.push(...add);
}

/** Builds blocks from paragraphs, one at a time (tables are collected row by row). */
class BlockBuilder {
  readonly blocks: Block[] = [];
  private rows: Inline[][][] = [];
  private row: Inline[][] = [];
  private cell: Inline[] = [];

  constructor(
    private readonly paragraphs: DocParagraphs,
    private readonly budget: TextBudget,
    private readonly notes: DocNotes,
  ) {}

  /** Adds the paragraph `text` (starting at body CP `firstCp`), ended by `mark`, with properties `p`. */
  add(text: string, firstCp: number, mark: string, p: ParagraphProps): void {
    const content = inlineOf(text, this.budget, this.notes, firstCp);
    // A nested table's row end holds nothing; its cells' text went into the outer cell.
    if (p.innerRowEnd) return;
    if (p.inTable) {
      if (p.rowEnd) {
        // The row-end paragraph holds no cell of its own; a row left with a half-filled cell keeps it.
        if (this.cell.length > 0) this.row.push(this.cell);
        if (this.row.length > 0) this.rows.push(this.row);
        this.row = [];
        this.cell = [];
        return;
      }
      joinInline(this.cell, content);
      if (mark === CELL_END && p.depth <= 1) {
        this.row.push(this.cell);
        this.cell = [];
      }
      return;
    }
    this.flushTable();
    if (content.length === 0) return;
    const level = this.paragraphs.headings.get(p.istd);
    if (level) this.blocks.push({ kind: "heading", level: Math.min(6, level), content });
    else if (p.ilfo > 0) {
      const ordered = this.paragraphs.numbered(p.ilfo, p.ilvl);
      const item = { depth: Math.min(p.ilvl, MAX_LIST_DEPTH), content };
      const last = this.blocks[this.blocks.length - 1];
      if (last?.kind === "list" && last.ordered === ordered) last.items.push(item);
      else this.blocks.push({ kind: "list", ordered, items: [item] });
    } else this.blocks.push({ kind: "paragraph", content });
  }

  /** Ends a table in progress (a row whose end mark never came still counts). */
  flushTable(): void {
    if (this.cell.length > 0) this.row.push(this.cell);
    if (this.row.length > 0) this.rows.push(this.row);
    if (this.rows.length > 0) this.blocks.push({ kind: "table", rows: this.rows });
    this.rows = [];
    this.row = [];
    this.cell = [];
  }
}

/** Converts DOC bytes to blocks, within the document's text `budget` (text-budget.ts). */
export function docToBlocks(bytes: Uint8Array, budget: TextBudget = new TextBudget()): { blocks: Block[]; title?: string } {
  const file = new CompoundFile(bytes, "DOC");
  const word = file.stream("WordDocument");
  if (!word) throw new DocumentCorruptError("DOC", "the compound file has no WordDocument stream");
  const fib = readFib(word, file);
  const pieces = new PieceTable(word, fib);
  const { text, offsets } = bodyText(word, fib, pieces);
  const paragraphs = new DocParagraphs(word, fib);
  const notes = DocNotes.read(fib, pieces, text);
  const builder = new BlockBuilder(paragraphs, budget, notes);
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (budget.cut) break; // the converter ends the document with a line saying so
    const ch = text[i]!;
    if (ch !== PARAGRAPH_END && ch !== CELL_END && ch !== PAGE_BREAK) continue;
    const props = paragraphs.at(offsets[i]!);
    builder.add(text.slice(start, i), start, ch, props);
    start = i + 1;
  }
  if (start < text.length && !budget.cut) builder.add(text.slice(start), start, PARAGRAPH_END, paragraphs.at(offsets[text.length - 1]!));
  builder.flushTable();
  // A note's paragraphs: its text cut at paragraph, cell and page marks, fields resolved as the body's are.
  const noteBlock = notes.block((note) => note.split(/[\r\x07\x0c]/).map((p) => inlineOf(p, budget)));
  if (noteBlock) builder.blocks.push(noteBlock);
  return { blocks: builder.blocks, title: summaryTitle(file) };
}
