/**
 * @module documents/office/odt
 * ODT (OpenDocument text) → blocks: `text:h` headings with their outline level (a paragraph in the Title style is
 * a level-1 heading), paragraphs with their runs' marks, quotations and code blocks from paragraph styles
 * (odt-styles.ts), bulleted and numbered lists as their list styles number them (odt-lists.ts), tables (merged
 * cells kept in their columns), web links, text boxes' paragraphs after the paragraph they are anchored in, and
 * footnotes and endnotes as a DOCX's are (note-labels.ts). A table of contents is kept as its paragraphs, as a
 * DOCX's, DOC's and RTF's are: it was left out before, so the four formats of one document disagreed.
 */
import { unzipParts } from "./unzip.ts";
import { DocumentCorruptError } from "../errors.ts";
import type { Block, Inline, ListItem } from "../layout/model.ts";
import { allMonospace, codeLine, holdsParagraphs, OdtNotes, paragraphInline, paragraphsIn, type OdtText } from "./odt-inline.ts";
import { OdtOutline } from "./odt-outline.ts";
import { OdtListNumbering, settleListItems, type OdtList } from "./odt-lists.ts";
import { MAX_LIST_NUMBER, OdtStyles } from "./odt-styles.ts";
import { SpanPadding } from "./span-padding.ts";
import { TextBudget } from "./text-budget.ts";
import { checkDepth, children, descendants, intAttr, MAX_LIST_DEPTH, parseXml, type XmlElement } from "./xml.ts";

/** The indexes of a text (ODF 1.2 §8): a table of contents, an alphabetical index, a list of figures… */
const INDEXES: ReadonlySet<string> = new Set([
  "text:table-of-content",
  "text:alphabetical-index",
  "text:illustration-index",
  "text:table-index",
  "text:object-index",
  "text:user-index",
  "text:bibliography",
]);

/** Row groups a table's rows may sit in (ODF 1.2 §9.1). */
const ROW_GROUPS = new Set(["table:table-header-rows", "table:table-rows", "table:table-row-group"]);

/**
 * Most columns one cell's `table:number-columns-spanned` is taken to cover: a Writer table has tens of columns;
 * `1000000000` must not become a billion empty cells. The padding it adds is bounded per document (span-padding.ts).
 */
const MAX_COLUMNS_SPANNED = 1024;

/** The cell a merged cell covers (and a missing one a span pads with): one empty array, shared. */
const EMPTY_CELL: Inline[] = [];

/**
 * A table's own rows, in order, through its row groups: not a nested table's, whose text is already in the cell
 * holding it (all descendant rows printed it twice). Row groups nest (a group of groups), so the walk counts its
 * depth from the table's `nesting`: 200,000 nested `table:table-row-group`s in a 23 KB file overflowed the stack.
 * A spreadsheet's (ODS) sheets are tables too.
 */
export function ownRows(table: XmlElement, nesting: number, kind = "ODT"): XmlElement[] {
  const rows: XmlElement[] = [];
  const walk = (el: XmlElement, depth: number) => {
    checkDepth(depth, kind);
    for (const c of children(el)) {
      if (c.tagName === "table:table-row") rows.push(c);
      else if (ROW_GROUPS.has(c.tagName)) walk(c, depth + 1);
    }
  };
  walk(table, nesting);
  return rows;
}

/** The body's blocks, read element by element. */
class OdtBody {
  readonly blocks: Block[] = [];
  private readonly lists = new OdtListNumbering();
  /** The code block the paragraphs just before went into, and the empty code lines waiting for the next line. */
  private code: { block: Extract<Block, { kind: "code" }>; blanks: number } | undefined;
  /** Empty cells spans with no covered cells after them may still be padded with (span-padding.ts). */
  private readonly padding: SpanPadding;

  constructor(
    private readonly text: OdtText,
    private readonly outline: OdtOutline,
  ) {
    this.padding = new SpanPadding(text.budget);
  }

  private push(block: Block): void {
    this.code = undefined;
    this.blocks.push(block);
  }

  /** The blocks of `container`'s elements (the text, a section, a text box). */
  visit(container: XmlElement, nesting: number): void {
    checkDepth(nesting, "ODT");
    for (const el of children(container)) {
      if (this.text.budget.cut) return; // the converter ends the document with a line saying so
      this.element(el, nesting);
    }
  }

  /**
   * The blocks of one element. A table of contents (or any other index) is its generated text, `text:index-body`:
   * its title's paragraphs and its entries (`Intro 1`, the heading and its page), as a DOCX's, DOC's and RTF's are;
   * its template (`text:table-of-content-source`) is not text.
   */
  private element(el: XmlElement, nesting: number): void {
    if (el.tagName === "text:h") this.heading(el, intAttr(el.getAttribute("text:outline-level"), 1, 6, 1), nesting);
    else if (el.tagName === "text:p") this.paragraph(el, nesting);
    else if (el.tagName === "text:list") this.list(el, nesting + 1);
    else if (el.tagName === "table:table") this.table(el, nesting + 1);
    else if (INDEXES.has(el.tagName)) for (const body of children(el, "text:index-body")) this.visit(body, nesting + 1);
    else if (el.tagName === "text:section" || el.tagName === "text:index-title" || holdsParagraphs(el)) this.visit(el, nesting + 1);
  }

  /** The paragraphs of the text boxes and shapes a paragraph holds, after it. */
  private drawings(drawings: XmlElement[], nesting: number): void {
    for (const d of drawings) if (holdsParagraphs(d)) this.visit(d, nesting + 1);
  }

  /** A heading, with the number its outline level shows (odt-outline.ts). */
  private heading(el: XmlElement, level: number, nesting: number): void {
    const drawings: XmlElement[] = [];
    const label = this.outline.label(el);
    const content = paragraphInline(el, this.text, { drawings, plain: true, numbered: label !== "" });
    const number = label && content.length ? this.text.budget.take(`${label} `) : "";
    if (number) content.unshift({ text: number });
    if (content.length) this.push({ kind: "heading", level, content });
    this.drawings(drawings, nesting);
  }

  /**
   * A paragraph: by its style's part a title (a level-1 heading), a quotation, a line of code, or a paragraph. One
   * whose text is all in a monospace font is a line of code too, unless the whole document is (a typewriter look).
   */
  private paragraph(el: XmlElement, nesting: number): void {
    const styles = this.text.styles;
    const role = styles.role(el.getAttribute("text:style-name"));
    const drawings: XmlElement[] = [];
    if (role === "code" || (!role && !styles.bodyMono && allMonospace(el, styles))) this.codeLine(codeLine(el, this.text, drawings));
    else {
      const content = paragraphInline(el, this.text, { drawings, plain: role === "title" });
      if (content.length) this.push(role === "title" ? { kind: "heading", level: 1, content } : role === "quote" ? { kind: "quote", content } : { kind: "paragraph", content });
      else this.code = undefined; // an empty paragraph between two code paragraphs parts their blocks
    }
    this.drawings(drawings, nesting);
  }

  /** A line of code: consecutive code paragraphs are one block, an empty one inside it an empty line. */
  private codeLine(line: string): void {
    if (this.code && !line) this.code.blanks++;
    else if (this.code) {
      this.code.block.text += "\n".repeat(this.code.blanks + 1) + line;
      this.code.blanks = 0;
    } else if (line) {
      const block = { kind: "code" as const, text: line };
      this.push(block);
      this.code = { block, blanks: 0 };
    }
  }

  /** A `text:list` of the text: a list of its own, or the one it continues (odt-lists.ts). */
  private list(el: XmlElement, nesting: number): void {
    const style = el.getAttribute("text:style-name") ?? undefined;
    this.items(el, 0, style, this.lists.open(el, style), nesting);
  }

  /**
   * The items of `el` at `depth`, in `style` (a nested list's own, or its parent's). An item is its first paragraph;
   * its later ones join it after a line break, a text box's or table's paragraphs after a space (a list item is one
   * paragraph in the model). A heading in an item is a heading (numbered headings are lists in ODF); a list header's
   * paragraphs are paragraphs, numbered by nothing.
   */
  private items(el: XmlElement, depth: number, style: string | undefined, list: OdtList, nesting: number): void {
    checkDepth(nesting, "ODT");
    const at = Math.min(depth, MAX_LIST_DEPTH);
    for (const item of children(el)) {
      if (item.tagName === "text:list-header") this.visit(item, nesting + 1);
      if (item.tagName !== "text:list-item") continue;
      const own = item.getAttribute("text:style-override") || style;
      let entry: ListItem | undefined;
      let counted = false;
      for (const c of children(item)) {
        if (this.text.budget.cut) return;
        if (c.tagName === "text:list") {
          this.items(c, depth + 1, c.getAttribute("text:style-name") || own, list, nesting + 1);
          continue;
        }
        const paragraph = c.tagName === "text:p" || c.tagName === "text:h";
        if (paragraph && !counted) {
          const level = this.text.styles.listLevel(own ?? this.text.styles.listStyleOf(c.getAttribute("text:style-name")), at + 1);
          const start = item.getAttribute("text:start-value");
          const number = this.lists.next(list, at, start === null ? undefined : intAttr(start, 0, MAX_LIST_NUMBER, 1), level.start);
          counted = true;
          if (c.tagName === "text:p") entry = { depth: at, content: [], ordered: level.ordered, number, ...(level.format ? { format: level.format } : {}), ...(level.letterSync ? { letterSync: true } : {}) };
        }
        if (!entry) this.element(c, nesting + 1);
        else if (paragraph) {
          const drawings: XmlElement[] = [];
          this.join(entry, paragraphInline(c, this.text, { drawings, numbered: true }), list, { text: "", lineBreak: true });
          for (const d of drawings) for (const p of paragraphsIn(d, this.text, nesting + 1)) this.join(entry, p, list, { text: " " });
        } else for (const p of paragraphsIn(c, this.text, nesting + 1)) this.join(entry, p, list, { text: " " });
      }
    }
  }

  /** Adds `content` to the list item `entry`, after `separator` when it has some; the item joins its list's block when it gets its first. */
  private join(entry: ListItem, content: Inline[], list: OdtList, separator: Inline): void {
    if (content.length === 0) return;
    if (entry.content.length === 0) {
      if (!list.block || this.blocks[this.blocks.length - 1] !== list.block) this.push((list.block = { kind: "list", ordered: entry.ordered === true, items: [] }));
      list.block.items.push(entry);
    } else entry.content.push(separator);
    for (const span of content) entry.content.push(span);
  }

  /**
   * A table, its first row its head. A merged cell's columns stay: the `table:covered-table-cell`s after it (and
   * below it) are empty cells, and a span with none after it is padded with as many (within span-padding.ts's
   * bounds). A cell's paragraphs, list items and nested table cells are joined with a space, as a DOCX cell's
   * paragraphs are.
   */
  private table(el: XmlElement, nesting: number): void {
    const rows = ownRows(el, nesting).map((row) => {
      const cells: Inline[][] = [];
      let owed = 0;
      const pad = () => {
        for (let n = owed > 0 ? this.padding.take(owed) : 0; n > 0; n--) cells.push(EMPTY_CELL);
        owed = 0;
      };
      for (const c of children(row)) {
        if (c.tagName === "table:covered-table-cell") {
          if (owed > 0) owed--;
          cells.push(EMPTY_CELL);
        } else if (c.tagName === "table:table-cell") {
          pad();
          const cell: Inline[] = [];
          for (const p of paragraphsIn(c, this.text, nesting + 1)) {
            if (p.length && cell.length) cell.push({ text: " " });
            for (const span of p) cell.push(span);
          }
          cells.push(cell);
          owed = intAttr(c.getAttribute("table:number-columns-spanned"), 1, MAX_COLUMNS_SPANNED, 1) - 1;
        }
      }
      pad();
      return cells;
    });
    if (rows.length) this.push({ kind: "table", rows });
  }
}

const decoder = new TextDecoder();

/** The part `name` parsed, if the archive has it. */
function part(files: Record<string, Uint8Array>, name: string): XmlElement | undefined {
  const bytes = files[name];
  return bytes ? parseXml(decoder.decode(bytes), "ODT", name) : undefined;
}

/** Converts ODT bytes to blocks, within the document's text `budget` (text-budget.ts). */
export function odtToBlocks(bytes: Uint8Array, budget: TextBudget = new TextBudget()): { blocks: Block[]; title?: string } {
  const files = unzipParts(bytes, "ODT", (name) => name === "content.xml" || name === "styles.xml" || name === "meta.xml");
  if (!files["content.xml"]) throw new DocumentCorruptError("ODT", "content.xml is missing");
  const root = part(files, "content.xml")!;
  const meta = part(files, "meta.xml");
  const title = meta ? descendants(meta, "dc:title")[0]?.textContent?.trim() || undefined : undefined;
  const notes = new OdtNotes();
  const common = part(files, "styles.xml");
  const styles = new OdtStyles(root, common);
  const body = new OdtBody({ budget, styles, notes }, new OdtOutline(common));
  const text = descendants(root, "office:text")[0];
  if (text) body.visit(text, 0);
  const blocks = body.blocks;
  for (const b of blocks) if (b.kind === "list") settleListItems(b);
  const noteBlock = notes.labels.block((note) => paragraphsIn(note, { budget, styles }, 0));
  if (noteBlock) blocks.push(noteBlock);
  return { blocks, title };
}
