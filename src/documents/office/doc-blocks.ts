/**
 * @module documents/office/doc-blocks
 * A Word 97–2003 document's paragraphs → blocks, one at a time as doc.ts cuts them at their marks, each shaped by
 * its properties (doc-paragraphs.ts) and its style (doc-styles.ts): a heading (its text unmarked, its number
 * written before it as an RTF's is: `# 1. Scope`), a list item (numbered as Word counts, doc-lists.ts), a quotation,
 * a line of a code block (a code style, or all its text monospace), a table's cell or row end, or a paragraph.
 *
 * A list item joins the list block before it when it is nested (an item under another stays in its parent's list,
 * whatever its own kind) or of the same list override and kind; another override is another list block, which the
 * renderer keeps apart from the one before. Each item says its own kind and, when numbered, its number: a list that
 * starts at 5, or counts on after a paragraph between its items, is shown so.
 */
import type { Block, Inline, ListItem } from "../layout/model.ts";
import type { DocLists } from "./doc-lists.ts";
import type { NoteRefs } from "./doc-notes.ts";
import type { ParagraphProps } from "./doc-paragraphs.ts";
import type { DocParagraphStyles } from "./doc-styles.ts";
import { HIDDEN } from "./doc-characters.ts";
import { codeLineOf, inlineOf } from "./doc-inline.ts";
import { CodeLines } from "./rtf-code-block.ts";
import { allCode, unmarked } from "./rtf-spans.ts";
import type { TextBudget } from "./text-budget.ts";
import { MAX_LIST_DEPTH } from "./xml.ts";

const CELL_END = "\x07";

/** Appends `add` to `into` with a space between (a table cell's paragraphs). */
function joinInline(into: Inline[], add: Inline[]): void {
  if (add.length === 0) return;
  if (into.length > 0) into.push({ text: " " });
  into.push(...add);
}

/** Builds blocks from paragraphs, one at a time (tables are collected row by row). */
export class DocBlocks {
  readonly blocks: Block[] = [];
  private rows: Inline[][][] = [];
  private row: Inline[][] = [];
  private cell: Inline[] = [];
  /** The list block items join (the last block, while it is), and its list override. */
  private list: { block: Block & { kind: "list" }; ilfo: number } | undefined;
  /** The listing's lines (code-styled paragraphs) as code blocks. */
  private readonly code: CodeLines;
  /** Blocks to follow the paragraph being read (a text box's, which it anchors), or the table it is in. */
  private pending: Block[] = [];

  constructor(
    private readonly styles: DocParagraphStyles,
    private readonly lists: DocLists,
    private readonly budget: TextBudget,
    private readonly notes?: NoteRefs,
  ) {
    this.code = new CodeLines(this.blocks, (chars) => budget.spend(chars));
  }

  /**
   * Adds the paragraph `text` (starting at body CP `firstCp`, its characters' `flags` from doc-characters.ts, its
   * mark's last), ended by `mark`, with properties `p`.
   */
  add(text: string, firstCp: number, mark: string, p: ParagraphProps, flags?: Uint8Array): void {
    // A nested table's row end holds nothing; its cells' text went into the outer cell.
    if (p.innerRowEnd) return;
    if (p.inTable) return this.addToTable(inlineOf(text, this.budget, this.notes, firstCp, flags), mark, p);
    this.flushTable();
    const kind = this.styles.kinds.get(p.istd);
    const level = this.styles.headings.get(p.istd);
    const plain = !level && !(p.ilfo > 0);
    if (plain && kind === "code") {
      this.code.add(this.budget.take(codeLineOf(text, flags)));
      return void this.blocks.push(...this.pending.splice(0));
    }
    const content = inlineOf(text, this.budget, this.notes, firstCp, flags);
    // A list paragraph counts, empty or not (Word numbers an empty item), unless its mark is deleted.
    const counted = p.ilfo > 0 && !((flags?.[text.length] ?? 0) & HIDDEN) ? this.lists.next(p.ilfo, p.ilvl, level !== undefined) : undefined;
    if (plain && allCode(content)) this.code.add(codeLineOf(text, flags));
    else if (content.length === 0) {
      // Nothing to show; an empty paragraph between two of a listing's lines is a blank line of it.
    } else if (level) {
      const heading = content.map(unmarked);
      if (counted?.label) heading.unshift({ text: `${counted.label} ` });
      this.blocks.push({ kind: "heading", level: Math.min(6, level), content: heading });
    } else if (p.ilfo > 0) this.listItem(p, content, counted?.number);
    else this.blocks.push(kind === "quote" ? { kind: "quote", content } : { kind: "paragraph", content });
    this.blocks.push(...this.pending.splice(0));
  }

  /** Blocks (a text box's) that follow the paragraph being read, or the table it is in once that ends. */
  follow(blocks: readonly Block[]): void {
    this.pending.push(...blocks);
  }

  /** Ends a table in progress (a row whose end mark never came still counts), then what follows it. */
  flushTable(): void {
    if (this.cell.length > 0) this.row.push(this.cell);
    if (this.row.length > 0) this.rows.push(this.row);
    if (this.rows.length > 0) this.blocks.push({ kind: "table", rows: this.rows });
    this.rows = [];
    this.row = [];
    this.cell = [];
  }

  /** The document ends: a table it ends in, and what follows its last paragraph. */
  end(): void {
    this.flushTable();
    this.blocks.push(...this.pending.splice(0));
  }

  private addToTable(content: Inline[], mark: string, p: ParagraphProps): void {
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
  }

  /** A list item (see the module comment); `number` its count, kept when its level is numbered. */
  private listItem(p: ParagraphProps, content: Inline[], number: number | undefined): void {
    const ordered = this.lists.numbered(p.ilfo, p.ilvl);
    const depth = Math.min(p.ilvl, MAX_LIST_DEPTH);
    const format = ordered ? this.lists.format(p.ilfo, p.ilvl) : undefined;
    // Word's letters past z repeat one letter (aa, bb), as a DOCX's do.
    const letterSync = format === "a" || format === "A";
    const item: ListItem = { depth, content, ordered, ...(ordered && number !== undefined ? { number } : {}), ...(format ? { format } : {}), ...(letterSync ? { letterSync } : {}) };
    const list = this.list;
    const last = this.blocks[this.blocks.length - 1];
    if (list && last === list.block && (depth > 0 || (list.ilfo === p.ilfo && list.block.ordered === ordered))) list.block.items.push(item);
    else {
      const block: Block & { kind: "list" } = { kind: "list", ordered, items: [item] };
      this.blocks.push(block);
      this.list = { block, ilfo: p.ilfo };
    }
  }
}
