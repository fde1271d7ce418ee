/**
 * @module documents/office/docx-html-chunk
 * An HTML `w:altChunk` (docx-alt-chunk.ts) → the document model's blocks, as Word imports it when it opens the file:
 * headings (`h1`–`h6`), paragraphs, lists (nested lists as deeper items, an `ol`'s `start` kept), tables (a cell's
 * content on one line, a `colspan` followed by the cells it covers), block quotes, preformatted text as code, and
 * runs with their links (web, mail and FTP addresses) and marks (bold, italic, struck, code). HTML-to-Word converters
 * put a whole document's body in such a chunk, and a file they make is often never opened in Word, so the chunk is
 * the document.
 *
 * The markup is parsed by the same reader as web pages (pipeline/parse.ts: linkedom, nesting bounded at 256 levels),
 * and the text is counted against the document's {@link TextBudget} as it is produced, as a paragraph's runs are.
 */
import { parseHtml } from "../../pipeline/parse.ts";
import type { Block, Inline, ListItem, Marks } from "../layout/model.ts";
import { TABLE_ROW_CHARS } from "./docx-blocks.ts";
import { InlineRuns } from "./inline-runs.ts";
import { SpanPadding } from "./span-padding.ts";
import type { TextBudget } from "./text-budget.ts";
import { intAttr, MAX_LIST_DEPTH } from "./xml.ts";

/** Elements whose content a reader of the page does not see. */
const SKIPPED = new Set(["head", "title", "script", "style", "template", "noscript", "svg", "math", "iframe", "object", "embed", "canvas", "select", "textarea", "button"]);
/** Elements that end the paragraph before them and start a new one after (their content flows as paragraphs). */
const BLOCKS = new Set(["p", "div", "section", "article", "main", "header", "footer", "nav", "aside", "address", "center", "figure", "figcaption", "form", "fieldset", "details", "summary", "dl", "dt", "dd", "hr", "body", "html", "li", "caption"]);
const MARKS: Record<string, keyof Marks> = { b: "bold", strong: "bold", i: "italic", em: "italic", cite: "italic", dfn: "italic", var: "italic", s: "strike", strike: "strike", del: "strike", code: "code", kbd: "code", samp: "code", tt: "code" };
/** The link schemes a reader of the markdown can follow (a chunk's relative links have no base to resolve against). */
const LINKABLE = /^(https?|mailto|ftp):/i;
/** Most columns one cell's `colspan` pads, as a Word table's `w:gridSpan` (docx-blocks.ts). */
const MAX_COLSPAN = 64;

/** What text inside an element is: its marks and its link. */
interface Style {
  marks: Marks;
  href?: string;
}

/** Reads one chunk's body into blocks. */
class HtmlBlocks {
  readonly blocks: Block[] = [];
  private runs: InlineRuns;
  /** The block the current runs become (a heading's level, a quotation), when they are not a list item or a cell's. */
  private head: { kind: "paragraph" | "quote" } | { kind: "heading"; level: number } = { kind: "paragraph" };
  /** Inside a list item or a table cell: a block boundary is a space there, the content one line. */
  private flat = 0;
  /** Whether the text so far ends in a space (HTML collapses a run of white space to one). */
  private spaced = true;
  private quoteDepth = 0;
  private readonly padding: SpanPadding;

  constructor(private readonly budget: TextBudget) {
    this.runs = new InlineRuns(budget);
    this.padding = new SpanPadding(budget);
  }

  /** The content of `el`, in order. */
  walk(el: Element, style: Style): void {
    for (let node = el.firstChild; node && !this.budget.cut; node = node.nextSibling) {
      if (node.nodeType === 3) this.text((node as Text).data, style);
      else if (node.nodeType === 1) this.element(node as Element, style);
    }
  }

  /** Ends the current paragraph: pushed as its block (outside lists and cells), or a space (inside them). */
  boundary(): void {
    if (this.flat) return this.text(" ", { marks: {} });
    const content = this.runs.spans();
    if (content.length) this.blocks.push(this.head.kind === "heading" ? { kind: "heading", level: this.head.level, content } : { kind: this.quoteDepth ? "quote" : "paragraph", content });
    this.runs = new InlineRuns(this.budget);
    this.head = { kind: "paragraph" };
    this.spaced = true;
  }

  private text(data: string, style: Style): void {
    let text = data.replace(/[\t\n\f\r ]+/g, " ");
    if (this.spaced && text.startsWith(" ")) text = text.slice(1);
    if (!text) return;
    this.runs.push(text, style.href, style.marks);
    this.spaced = text.endsWith(" ");
  }

  private element(el: Element, style: Style): void {
    const tag = el.localName;
    if (SKIPPED.has(tag)) return;
    const heading = /^h([1-6])$/.exec(tag);
    if (heading) {
      this.boundary();
      if (!this.flat) this.head = { kind: "heading", level: Number(heading[1]) };
      this.walk(el, { marks: {}, href: style.href });
      this.boundary();
    } else if (tag === "br") {
      if (this.flat) this.text(" ", style);
      else this.runs.lineBreak();
      this.spaced = true;
    } else if (tag === "ul" || tag === "ol") this.flat ? this.flatten(el, style) : this.list(el, 0, undefined);
    else if (tag === "table") this.flat ? this.flatten(el, style) : this.table(el);
    else if (tag === "pre" && !this.flat) {
      this.boundary();
      const text = this.budget.take((el.textContent ?? "").replace(/^\r?\n/, "").replace(/\s+$/, ""));
      if (text) this.blocks.push({ kind: "code", text });
    } else if (tag === "blockquote" && !this.flat) {
      this.boundary();
      this.quoteDepth++;
      this.walk(el, style);
      this.boundary();
      this.quoteDepth--;
    } else if (BLOCKS.has(tag) || tag === "pre" || tag === "blockquote") this.flatten(el, style);
    else {
      const mark = MARKS[tag];
      const href = tag === "a" ? el.getAttribute("href")?.trim() : undefined;
      this.walk(el, {
        marks: mark ? { ...style.marks, [mark]: true } : style.marks,
        href: href !== undefined ? (LINKABLE.test(href) ? href : undefined) : style.href,
      });
    }
  }

  /** A block element's content between two boundaries. */
  private flatten(el: Element, style: Style): void {
    this.boundary();
    this.walk(el, style);
    this.boundary();
  }

  /** A list and the lists nested in its items, as items of one block (`into`, when nested) at their depth. */
  private list(el: Element, depth: number, into: Extract<Block, { kind: "list" }> | undefined): void {
    this.boundary();
    const ordered = el.localName === "ol";
    const block = into ?? { kind: "list", ordered, items: [] };
    if (!into) this.blocks.push(block);
    let number = intAttr(el.getAttribute("start"), -1e9, 1e9, 1);
    // `<ol type="a">`: letters or roman numerals, kept as the document's own HTML says them.
    const type = el.getAttribute("type");
    const format = ordered && (type === "a" || type === "A" || type === "i" || type === "I") ? type : undefined;
    const item = (content: Inline[]) => {
      if (!content.length) return;
      const out: ListItem = { depth: Math.min(depth, MAX_LIST_DEPTH), content, ordered };
      if (ordered) out.number = number++;
      if (format) out.format = format;
      block.items.push(out);
    };
    for (let li = el.firstElementChild; li && !this.budget.cut; li = li.nextElementSibling) {
      // An item's text up to a nested list is one item; the nested list's items follow it, a level deeper.
      const outer = this.runs;
      this.runs = new InlineRuns(this.budget);
      this.spaced = true;
      this.flat++;
      for (let node = li.firstChild; node && !this.budget.cut; node = node.nextSibling) {
        const tag = node.nodeType === 1 ? (node as Element).localName : "";
        if (tag === "ul" || tag === "ol") {
          item(this.runs.spans());
          this.runs = new InlineRuns(this.budget);
          this.flat--;
          this.list(node as Element, depth + 1, block);
          this.flat++;
        } else if (node.nodeType === 3) this.text((node as Text).data, { marks: {} });
        else if (node.nodeType === 1) this.element(node as Element, { marks: {} });
      }
      this.flat--;
      item(this.runs.spans());
      this.runs = outer;
      this.spaced = true;
    }
    if (!into && block.items.length === 0) this.blocks.pop();
  }

  /** A table: a row per `tr` (through `thead`, `tbody`, `tfoot`), a cell per `td`/`th`, nested tables flattened. */
  private table(el: Element): void {
    this.boundary();
    const rows: Inline[][][] = [];
    const readRow = (tr: Element) => {
      const row: Inline[][] = [];
      for (let td = tr.firstElementChild; td && !this.budget.cut; td = td.nextElementSibling) {
        if (td.localName !== "td" && td.localName !== "th") continue;
        const outer = this.runs;
        this.runs = new InlineRuns(this.budget);
        this.spaced = true;
        this.flat++;
        this.walk(td, { marks: {} });
        this.flat--;
        row.push(this.runs.spans());
        this.runs = outer;
        for (let n = this.padding.take(intAttr(td.getAttribute("colspan"), 1, MAX_COLSPAN, 1) - 1); n > 0; n--) row.push([]);
      }
      // A row without text costs its line (docx-blocks.ts): empty rows stop at the budget too.
      if (row.some((cell) => cell.length > 0) || this.budget.spend(TABLE_ROW_CHARS)) rows.push(row);
    };
    for (let c = el.firstElementChild; c && !this.budget.cut; c = c.nextElementSibling) {
      if (c.localName === "tr") readRow(c);
      else if (c.localName === "thead" || c.localName === "tbody" || c.localName === "tfoot") {
        for (let tr = c.firstElementChild; tr && !this.budget.cut; tr = tr.nextElementSibling) if (tr.localName === "tr") readRow(tr);
      }
    }
    this.spaced = true;
    if (rows.length) this.blocks.push({ kind: "table", rows });
  }
}

/** The blocks of an HTML chunk's markup, its text counted against `budget`. */
export function htmlChunkBlocks(html: string, budget: TextBudget): Block[] {
  const document = parseHtml(html);
  const reader = new HtmlBlocks(budget);
  reader.walk(document.body, { marks: {} });
  reader.boundary();
  return reader.blocks;
}
