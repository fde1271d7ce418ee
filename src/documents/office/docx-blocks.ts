/**
 * @module documents/office/docx-blocks
 * A DOCX body (or a text box's content) → blocks, paragraph by paragraph as docx-inline.ts reads them: headings
 * (the style's outline level; a numbered heading keeps its number, `1.2 Scope`), list items numbered as Word counts
 * them (docx-numbering.ts), quotations, code (consecutive paragraphs in a code style, or typed in a monospace font,
 * are one block with their indentation), tables (a merged cell keeps its columns), and plain paragraphs. Content
 * controls, custom XML and tracked insertions are read through; the text boxes a paragraph anchors come after it; a
 * drop cap begins the paragraph after it; an imported chunk (`w:altChunk`) is its blocks (docx-alt-chunk.ts).
 */
import type { Block, Inline, ListItem } from "../layout/model.ts";
import { allMonospace, type DocxContext, type ParagraphFormat, type ParagraphRead, type Piece, piecesCode, piecesInline, readParagraph } from "./docx-inline.ts";
import { mathText } from "./docx-math.ts";
import type { DocxNumbering, ListNumber } from "./docx-numbering.ts";
import { isMonospace, outlineLevel, type ParagraphStyle } from "./docx-styles.ts";
import { InlineRuns } from "./inline-runs.ts";
import { SpanPadding } from "./span-padding.ts";
import type { TextBudget } from "./text-budget.ts";
import { checkDepth, child, children, intAttr, MAX_LIST_DEPTH, type XmlElement } from "./xml.ts";

/** Most grid columns one cell spans or a row skips (`w:gridSpan`, `w:gridBefore`); Word's tables have at most 63. */
const MAX_GRID_SPAN = 64;

/** Text budget a table row without text costs (it prints `|  |`: 4.5M `<w:tr/>` were 2.5 GB); one with text, its text. */
export const TABLE_ROW_CHARS = 4;

/** Block-level elements whose content is read as if it stood in their place. */
const BLOCK_WRAPPERS = new Set(["w:customXml", "w:ins", "w:moveTo"]);

/** A paragraph as its properties and styles make it. */
interface Paragraph {
  style: ParagraphStyle;
  /** Heading level 1–6, if it is a heading. */
  level?: number;
  /** Its number, when a list definition numbers it. */
  num?: ListNumber;
  /** Its list level (`w:ilvl`, 0–8), and whether it is a list item at all. */
  ilvl: number;
  item: boolean;
  /** The list it belongs to: an abstract definition, or the style or instance that made it an item. */
  list: string;
  read: ParagraphRead;
}

/**
 * Whether paragraph `p` is a drop cap: a frame (`w:framePr w:dropCap="drop"` or `"margin"`) holding the first
 * letter of the next paragraph, which Word sets large beside it. Read as a paragraph of its own, it split the word.
 */
function isDropCap(p: XmlElement): boolean {
  const type = child(child(p, "w:pPr"), "w:framePr")?.getAttribute("w:dropCap");
  return type === "drop" || type === "margin";
}

/**
 * A drop cap joined to the paragraph it begins: a letter or two of its first word join it ("O" + "nce"), a longer one
 * is a word of its own ("ONCE" + " upon").
 */
function joinDropCap(dropCap: Piece[], pieces: Piece[]): Piece[] {
  const first = pieces.find((piece) => piece.text.length > 0 || piece.lineBreak);
  const word = [...dropCap.map((piece) => piece.text).join("").trim()].length > 2 && first !== undefined && !/^\s/.test(first.text);
  return word ? [...dropCap, { text: " " }, ...pieces] : dropCap.concat(pieces);
}

/** A block's text as one line, for a table cell (an imported chunk's blocks in a cell). */
function blockInline(block: Block): Inline[] {
  const out: Inline[] = [];
  const add = (content: Inline[]) => {
    if (content.length && out.length) out.push({ text: " " });
    for (const span of content) out.push(span);
  };
  if (block.kind === "heading" || block.kind === "paragraph" || block.kind === "quote") add(block.content);
  else if (block.kind === "list") for (const item of block.items) add(item.content);
  else if (block.kind === "table") for (const row of block.rows) for (const cell of row) add(cell);
  else if (block.kind === "code") add([{ text: block.text.replace(/\s+/g, " ") }]);
  return out;
}

/** Collects the blocks of a body. */
export class DocxBody {
  readonly blocks: Block[] = [];
  /** The list block being filled: its list, and the shallowest level of its items. */
  private open?: { block: Extract<Block, { kind: "list" }>; list: string; ilvl: number };
  /** Empty paragraphs since the last code line: blank lines, if more code follows. */
  private codeBlanks = 0;
  /** The document's body font is monospace: a paragraph in one is not code for that (a typewriter-style document). */
  private readonly bodyMono: boolean;
  /** Empty cells merged cells may still be padded with (span-padding.ts). */
  private readonly padding: SpanPadding;
  /** A drop cap's pieces and the text boxes it anchors (they come after the paragraph it begins), waiting for it. */
  private dropCap?: { pieces: Piece[]; boxes: XmlElement[]; nesting: number };

  constructor(
    private readonly ctx: DocxContext,
    private readonly numbering: DocxNumbering,
    private readonly budget: TextBudget,
    /** The blocks of the chunk a `w:altChunk r:id` imports (docx-alt-chunk.ts); without it, chunks are skipped. */
    private readonly altChunk?: (id: string) => Block[],
  ) {
    this.bodyMono = isMonospace(ctx.styles.paragraph("").props.font);
    this.padding = new SpanPadding(budget);
  }

  /** Reads the block content of `container` (a body, a content control's content, a text box). */
  visit(container: XmlElement, nesting: number): void {
    checkDepth(nesting, "DOCX");
    for (const el of children(container)) {
      if (this.budget.cut) return; // the converter ends the document with a line saying so
      const tag = el.tagName;
      if (tag === "w:p") this.paragraph(el, nesting);
      else if (tag === "w:tbl") {
        this.end();
        this.table(el, nesting);
      } else if (tag === "w:altChunk") {
        // Another document's content (HTML, text, RTF, DOCX) imported in its place.
        this.end();
        for (const block of this.altChunk?.(el.getAttribute("r:id") ?? "") ?? []) this.blocks.push(block);
      } else if (tag === "w:sdt") {
        const content = child(el, "w:sdtContent");
        if (content) this.visit(content, nesting + 1);
      } else if (BLOCK_WRAPPERS.has(tag)) this.visit(el, nesting + 1);
      else if (tag === "m:oMathPara" || tag === "m:oMath") {
        this.end();
        const runs = new InlineRuns(this.budget);
        runs.push(mathText(el, nesting + 1));
        const content = runs.spans();
        if (content.length) this.blocks.push({ kind: "paragraph", content });
      }
    }
  }

  /** Reads paragraph `p`: its style, level, numbering, and runs. */
  private read(p: XmlElement): Paragraph {
    const pPr = child(p, "w:pPr");
    const styleId = child(pPr, "w:pStyle")?.getAttribute("w:val") ?? "";
    const style = this.ctx.styles.paragraph(styleId);
    const level = style.level ?? (outlineLevel(child(pPr, "w:outlineLvl")?.getAttribute("w:val")) || undefined);
    const numPr = child(pPr, "w:numPr");
    const numId = child(numPr, "w:numId")?.getAttribute("w:val") ?? style.numId;
    const ilvl = intAttr(child(numPr, "w:ilvl")?.getAttribute("w:val") ?? style.ilvl, 0, MAX_LIST_DEPTH, 0);
    // Counted even when the paragraph turns out empty or a heading: Word numbers those too.
    const num = numId !== undefined ? this.numbering.next(numId, ilvl, Boolean(level)) : undefined;
    // numId 0 is "no numbering"; an instance the file does not define still makes an item, as Word shows one.
    const item = num !== undefined ? num.shown : (numId !== undefined && numId !== "0") || (numId === undefined && style.listByName !== undefined);
    const list = num?.list ?? (numId !== undefined ? `num:${numId}` : `style:${styleId}`);
    // A heading's marks are noise: its style sets it apart already (and Word's headings are bold anyway).
    const format: ParagraphFormat = { base: style.props, marks: !level, mono: isMonospace(style.props.font) };
    const read = readParagraph(p, this.ctx, format);
    // A numbered heading's number is part of its title (`2.1 Scope`): contracts and standards refer to them so.
    if (level && num?.label && read.pieces.some((piece) => piece.text.trim())) read.pieces.unshift({ text: `${num.label} ` });
    return { style, level, num, ilvl, item, list, read };
  }

  /**
   * A drop cap before no paragraph it begins (a table, a heading, code, the end of the blocks: called then) is a
   * paragraph of its own, its text boxes after it.
   */
  end(): void {
    const dropCap = this.dropCap;
    this.dropCap = undefined;
    if (!dropCap) return;
    this.plain("paragraph", dropCap.pieces);
    for (const box of dropCap.boxes) this.visit(box, dropCap.nesting + 1);
  }

  private paragraph(p: XmlElement, nesting: number): void {
    const dropCap = isDropCap(p);
    if (dropCap) this.end();
    const para = this.read(p);
    if (dropCap && para.read.pieces.some((piece) => piece.text.trim())) {
      this.dropCap = { pieces: para.read.pieces, boxes: para.read.boxes, nesting };
      return;
    }
    const { pieces } = para.read;
    const code = !para.level && !para.item && (para.style.kind === "code" || (!this.bodyMono && allMonospace(pieces)));
    // A drop cap begins a paragraph of text, not a heading or a line of code (`c` + "`ode line`").
    if (para.level || code) this.end();
    const before = this.dropCap;
    this.dropCap = undefined;
    const joined = before ? joinDropCap(before.pieces, pieces) : pieces;
    if (para.level || para.item) {
      const content = piecesInline(joined, this.budget);
      if (content.length === 0) this.blank();
      else if (para.level) this.blocks.push({ kind: "heading", level: para.level, content });
      else this.item(para, content);
    } else if (code) this.code(piecesCode(pieces, this.budget));
    else this.plain(para.style.kind === "quote" ? "quote" : "paragraph", joined);
    for (const box of before?.boxes ?? []) this.visit(box, before!.nesting + 1);
    for (const box of para.read.boxes) this.visit(box, nesting + 1);
  }

  /** An empty paragraph: nothing, or a blank line in code if more code follows. */
  private blank(): void {
    if (this.blocks[this.blocks.length - 1]?.kind === "code") this.codeBlanks++;
  }

  /**
   * A paragraph or quotation, one block per part between its page breaks: Word goes on with the paragraph on the
   * next page, LibreOffice (and so the ODT, DOC and RTF of the same document) starts a new one there.
   */
  private plain(kind: "paragraph" | "quote", pieces: Piece[]): void {
    let from = 0;
    let any = false;
    for (let i = 0; i <= pieces.length; i++) {
      if (i < pieces.length && !pieces[i]!.pageBreak) continue;
      const content = piecesInline(from === 0 && i === pieces.length ? pieces : pieces.slice(from, i), this.budget);
      if (content.length) this.blocks.push({ kind, content });
      any ||= content.length > 0;
      from = i + 1;
    }
    if (!any) this.blank();
  }

  /** A line (or lines) of code: joined to the code block just before, blank lines between kept. */
  private code(text: string): void {
    if (!text.trim()) return this.blank();
    const last = this.blocks[this.blocks.length - 1];
    if (last?.kind === "code") last.text += "\n".repeat(this.codeBlanks + 1) + text;
    else this.blocks.push({ kind: "code", text });
    this.codeBlanks = 0;
  }

  /**
   * A list item: into the list block just before when it is the same list (a deeper item always is), else a list
   * block of its own. Another list, or this one restarted, is a new block: the renderer keeps the two apart.
   */
  private item(para: Paragraph, content: Inline[]): void {
    const { num, ilvl, list } = para;
    const item: ListItem = { depth: ilvl, content };
    if (num) {
      item.ordered = num.ordered;
      if (num.ordered) item.number = num.number;
      if (num.format) item.format = num.format;
      if (num.letterSync) item.letterSync = true;
    }
    const open = this.open;
    if (open && this.blocks[this.blocks.length - 1] === open.block && !(ilvl <= open.ilvl && (list !== open.list || num?.restarted))) {
      open.block.items.push(item);
      open.ilvl = Math.min(open.ilvl, ilvl);
      return;
    }
    const block: Extract<Block, { kind: "list" }> = { kind: "list", ordered: num?.ordered ?? para.style.listByName === "number", items: [item] };
    this.blocks.push(block);
    this.open = { block, list, ilvl };
  }

  /** A table: a row per `w:tr`, a cell per `w:tc`, a merged cell followed by the empty cells it spans. */
  private table(tbl: XmlElement, nesting: number): void {
    const rows: Inline[][][] = [];
    for (const tr of this.through(tbl, "w:tr", nesting)) {
      const row: Inline[][] = [];
      const pad = (wanted: number) => {
        for (let n = this.padding.take(wanted); n > 0; n--) row.push([]);
      };
      pad(intAttr(child(child(tr, "w:trPr"), "w:gridBefore")?.getAttribute("w:val"), 0, MAX_GRID_SPAN, 0));
      for (const tc of this.through(tr, "w:tc", nesting)) {
        const cell: Inline[] = [];
        this.cell(tc, nesting + 1, cell);
        row.push(cell);
        pad(intAttr(child(child(tc, "w:tcPr"), "w:gridSpan")?.getAttribute("w:val"), 1, MAX_GRID_SPAN, 1) - 1);
      }
      if (row.every((cell) => cell.length === 0) && !this.budget.spend(TABLE_ROW_CHARS)) break;
      rows.push(row);
    }
    if (rows.length) this.blocks.push({ kind: "table", rows });
  }

  /** The `tag` children of `el`, through the content controls and custom XML a row or a cell may sit in. */
  private through(el: XmlElement, tag: string, nesting: number, out: XmlElement[] = []): XmlElement[] {
    checkDepth(nesting, "DOCX");
    for (const c of children(el)) {
      if (c.tagName === tag) out.push(c);
      else if (c.tagName === "w:sdt") {
        const content = child(c, "w:sdtContent");
        if (content) this.through(content, tag, nesting + 1, out);
      } else if (BLOCK_WRAPPERS.has(c.tagName)) this.through(c, tag, nesting + 1, out);
    }
    return out;
  }

  /** A cell's paragraphs (its nested tables' and text boxes' included) as one line, joined with spaces. */
  private cell(container: XmlElement, nesting: number, out: Inline[]): void {
    checkDepth(nesting, "DOCX");
    const add = (content: Inline[]) => {
      if (content.length && out.length) out.push({ text: " " });
      for (const span of content) out.push(span); // not push(...c): a paragraph of a million spans passes the argument limit
    };
    for (const el of children(container)) {
      if (this.budget.cut) return;
      if (el.tagName === "w:p") {
        const para = this.read(el);
        add(piecesInline(para.read.pieces, this.budget));
        for (const box of para.read.boxes) this.cell(box, nesting + 1, out);
      } else if (el.tagName === "w:tbl") {
        for (const tr of this.through(el, "w:tr", nesting + 1)) for (const tc of this.through(tr, "w:tc", nesting + 1)) this.cell(tc, nesting + 2, out);
      } else if (el.tagName === "w:altChunk") {
        for (const block of this.altChunk?.(el.getAttribute("r:id") ?? "") ?? []) add(blockInline(block));
      } else if (el.tagName === "w:sdt") {
        const content = child(el, "w:sdtContent");
        if (content) this.cell(content, nesting + 1, out);
      } else if (BLOCK_WRAPPERS.has(el.tagName)) this.cell(el, nesting + 1, out);
    }
  }
}
