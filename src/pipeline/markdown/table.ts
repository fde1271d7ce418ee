/**
 * @module pipeline/markdown/table
 * Data tables as GFM tables laid out on the table's real grid.
 *
 * node-html-markdown joins each row's cells into a string and splits them again on ` |`, escaping only the first
 * `|` in a cell (`a | b | c` shifted the columns), ignoring `colspan` and `rowspan` (a `<th colspan="2">` header
 * misaligned every column after it, a `rowspan` shifted the next rows to the left) and dropping empty cells before
 * they reached the row (an empty first cell moved the rest one column left).
 *
 * Here each cell's rendered text is kept aside and the table is laid out from the DOM: a spanned cell fills its
 * first slot and leaves empty cells in the others (HTML's table model, simplified), so every row has the grid's
 * width, and the footer comes last as a browser shows it. Tables used for page layout are not GFM tables at all
 * (see {@link isLayoutTable}), nor are tables whose grid would pass {@link MAX_GRID_SLOTS}: their cells are plain
 * blocks, kept apart by {@link layoutCellTranslator}.
 */
import {
  type NodeHtmlMarkdown,
  PostProcessResult,
  type TranslatorConfig,
  TranslatorCollection,
  type TranslatorConfigFactory,
} from "node-html-markdown";
import { BLOCK_TAGS, ELEMENT_NODE, type MarkdownNode } from "./dom.ts";
import { inlineCodeTranslator } from "./link-image.ts";
import { listItemTranslator } from "./list-item.ts";
import { newlineRunsToSpace } from "./whitespace.ts";

/** Content only page layouts put in a table: another table, a form. */
const LAYOUT_ONLY_CONTENT = "table, form";
/** Blocks a data table's cells may hold (a plan's feature list, an API's code example), flattened to one line. */
const BLOCK_CONTENT = `${LAYOUT_ONLY_CONTENT}, h1, h2, h3, h4, h5, h6, ul, ol, pre, blockquote`;
/** Most non-blank characters in a data table's cell beside blocks: more is a page section (an article column). */
const MAX_BLOCK_CELL_CHARS = 1_000;
/**
 * Largest `colspan` honoured. HTML clamps at 1,000 but every spanned slot is written on every row, so a few bytes
 * of markup could multiply the output; no readable table is wider than this.
 */
const MAX_COLSPAN = 100;
/**
 * Largest `rowspan` honoured, `rowspan="0"` (to the end of the table) included. HTML clamps at 65,534; a span is
 * also cut at the table's last row.
 */
const MAX_ROWSPAN = 1000;
/**
 * Most slots a GFM table's grid may have (rows × columns, and slots written while placing spans) beyond four per
 * cell of the table. Spans multiply: 1,000 rows of `<td rowspan="0" colspan="1000">` (50 KB) made a 1,000 × 100,000
 * grid and ran the server out of memory. A table whose spans would pass both is written as a layout table (each
 * cell's content on its own lines); a large data table (5,000 rows of 50 cells) has about one slot per cell.
 */
const MAX_GRID_SLOTS = 200_000;
/** Slots per cell a grid may have however large it is: spans that fill a few holes of a big table are fine. */
const MAX_SLOTS_PER_CELL = 4;
/** Row groups whose `<tr>` children are rows of the table. */
const ROW_GROUPS: ReadonlySet<string> = new Set(["THEAD", "TBODY", "TFOOT"]);

/** Each rendered cell's text until its table lays it out (the cell node itself is written as nothing). */
const cellTexts = new WeakMap<object, string>();

/** One line, pipes escaped (GFM 4.10: even inside code spans), hard breaks and blocks turned into spaces. */
function cellText(content: string): string {
  return newlineRunsToSpace(content.trim()).replace(/\|/g, "\\|");
}

/** `<pre>` in a cell, which cannot hold a fenced block: a code span, unless a `<code>` inside makes one. */
const preInCellTranslator: TranslatorConfigFactory = ({ node }) => {
  const elements = (node as unknown as MarkdownNode).childNodes.filter((child) => child.nodeType === ELEMENT_NODE);
  if (elements.length === 1 && elements[0]!.tagName === "CODE") return { surroundingNewlines: 1 };
  return { ...inlineCodeTranslator, surroundingNewlines: 1 };
};

const cellTranslatorSets = new WeakMap<NodeHtmlMarkdown, TranslatorCollection>();

/**
 * A converter's cell translators (see nested-content) with list markers, which keep a list's items apart once the
 * cell is one line (`- 1 user - 1 GB`, `1. a 2. b`), and code spans for `<pre>`. Built on first use.
 */
function cellTranslators(instance: NodeHtmlMarkdown): TranslatorCollection {
  const built = cellTranslatorSets.get(instance);
  if (built) return built;
  const translators = new TranslatorCollection();
  for (const [tag, translator] of instance.tableCellTranslators.entries()) translators.set(tag, translator);
  translators.set("li", listItemTranslator);
  translators.set("pre", preInCellTranslator);
  cellTranslatorSets.set(instance, translators);
  return translators;
}

/** `<td>`/`<th>` inside a data table: render the content with the cell translators and keep it for the table. */
export const tableCellTranslator: TranslatorConfigFactory = ({ visitor }) => ({
  surroundingNewlines: false,
  childTranslators: cellTranslators(visitor.instance),
  postprocess: ({ node, content }) => {
    cellTexts.set(node, cellText(content));
    return PostProcessResult.RemoveNode;
  },
});

/** `<tr>` inside a data table: its cells are collected by the table, so it writes nothing itself. */
export const tableRowTranslator: TranslatorConfigFactory = ({ visitor }) => ({
  surroundingNewlines: false,
  childTranslators: visitor.instance.tableRowTranslators,
});

const blockLayoutTables = new WeakSet<object>(); // layout tables for their content, not their size

/**
 * `<tr>` inside a layout table: its own block when the table holds blocks, so that rows do not run into one
 * paragraph. Rows of a table only too large to lay out stay one cell per line, as compact as the data they hold.
 */
export const layoutRowTranslator: TranslatorConfigFactory = ({ tableMeta }) => ({
  surroundingNewlines: tableMeta && blockLayoutTables.has(tableMeta.node) ? 2 : 1,
});

/**
 * Whether a cell holds block content (a paragraph, list, quote, heading, line break…): found without entering any
 * block, so no element is looked at twice however deeply layout tables nest.
 */
function holdsBlocks(cell: MarkdownNode): boolean {
  const stack = [...cell.childNodes];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.nodeType !== ELEMENT_NODE) continue;
    if (BLOCK_TAGS.has(node.tagName ?? "")) return true;
    for (const child of node.childNodes) stack.push(child);
  }
  return false;
}

/**
 * `<td>`/`<th>` inside a layout table: its own line, and a blank line around it when it holds blocks, so that the
 * next cell or row neither joins its last paragraph nor continues its list. Decided from the DOM: reading the
 * rendered content would copy the whole output so far for every cell. Cells of text stay one per line, as before.
 */
export const layoutCellTranslator: TranslatorConfigFactory = ({ node }) => ({
  surroundingNewlines: holdsBlocks(node as unknown as MarkdownNode) ? 2 : 1,
});

function isElement(node: MarkdownNode, tags: ReadonlySet<string> | string): boolean {
  if (node.nodeType !== ELEMENT_NODE) return false;
  return typeof tags === "string" ? node.tagName === tags : tags.has(node.tagName ?? "");
}

/**
 * The table's row groups in the order a browser shows them (CSS 2.1 17.2): the first `<thead>` before the other
 * rows, the first `<tfoot>` after them, wherever they are in the source (HTML 4 put `<tfoot>` before `<tbody>`).
 * Done on the parsed tree, which is this conversion's own, so that layout tables are written in that order too.
 */
function putRowGroupsInOrder(table: MarkdownNode): void {
  const children = table.childNodes;
  const foot = children.findIndex((child) => isElement(child, "TFOOT"));
  if (foot !== -1) children.push(...children.splice(foot, 1));
  const head = children.findIndex((child) => isElement(child, "THEAD"));
  const firstRows = children.findIndex((child) => isElement(child, ROW_GROUPS) || isElement(child, "TR"));
  if (head > firstRows) children.splice(firstRows, 0, ...children.splice(head, 1));
}

/** The table's rows in document order: direct `<tr>` children and those of its row groups. */
function tableRows(table: MarkdownNode): MarkdownNode[] {
  const rows: MarkdownNode[] = [];
  for (const child of table.childNodes) {
    if (isElement(child, "TR")) rows.push(child);
    else if (isElement(child, ROW_GROUPS)) rows.push(...child.childNodes.filter((row) => isElement(row, "TR")));
  }
  return rows;
}

const CELL_TAGS: ReadonlySet<string> = new Set(["TD", "TH"]);

function span(cell: MarkdownNode, name: string, max: number): number {
  const value = Number.parseInt(cell.getAttribute?.(name) ?? "", 10);
  return Number.isSafeInteger(value) && value >= 1 ? Math.min(value, max) : name === "rowspan" && value === 0 ? max : 1;
}

/** A table's grid: the cell whose first slot it is, `null` in a slot a span covers, a hole in a slot left empty. */
type Slots = (MarkdownNode | null)[][];

/**
 * Each cell placed in the first free slot of its row, its spans covering the slots after and below it; undefined
 * as soon as the grid passes its budget ({@link MAX_GRID_SLOTS}), so an oversized table costs no more than that to
 * detect.
 */
function placeCells(rows: MarkdownNode[]): Slots | undefined {
  let cells = 0;
  for (const row of rows) for (const cell of row.childNodes) if (isElement(cell, CELL_TAGS)) cells++;
  const budget = Math.max(MAX_GRID_SLOTS, MAX_SLOTS_PER_CELL * cells);
  const slots: Slots = rows.map(() => []);
  let written = 0;
  let width = 0;
  for (let r = 0; r < rows.length; r++) {
    let col = 0;
    for (const cell of rows[r]!.childNodes) {
      if (!isElement(cell, CELL_TAGS)) continue;
      while (slots[r]![col] !== undefined) col++;
      const colspan = span(cell, "colspan", MAX_COLSPAN);
      const rowspan = span(cell, "rowspan", Math.min(rows.length - r, MAX_ROWSPAN)); // rowspan="0": to the end
      written += colspan * rowspan;
      width = Math.max(width, col + colspan);
      if (written > budget || width * rows.length > budget) return undefined;
      for (let dr = 0; dr < rowspan; dr++) {
        for (let dc = 0; dc < colspan; dc++) slots[r + dr]![col + dc] = dr === 0 && dc === 0 ? cell : null;
      }
      col += colspan;
    }
  }
  return slots;
}

/**
 * The table as a rectangular grid of cell texts: each cell's text in its first slot, the slots its spans cover
 * empty; rows left empty (spacers, rows only spanned into) are dropped.
 */
function tableGrid(slots: Slots): string[][] {
  // map() keeps the holes, which some() skips and the padding below fills.
  const grid = slots.map((line) => line.map((cell) => (cell ? (cellTexts.get(cell) ?? "") : "")));
  const kept = grid.filter((line) => line.some((text) => text));
  const width = Math.max(0, ...kept.map((line) => line.length));
  return kept.map((line) => Array.from({ length: width }, (_, i) => line[i] ?? ""));
}

/** GFM table text: the first row is the header, every column padded to its widest cell (at least one `-`). */
function renderGrid(grid: string[][], caption: string | undefined): string {
  const widths = grid[0]!.map((_, i) => Math.max(1, ...grid.map((line) => line[i]!.length)));
  const lines = grid.map((line) => `| ${line.map((text, i) => text.padEnd(widths[i]!)).join(" | ")} |`);
  lines.splice(1, 0, `|${widths.map((w) => ` ${"-".repeat(w)} |`).join("")}`);
  return `${caption ? `${caption}\n` : ""}${lines.join("\n")}\n`;
}

/** The grid's width if every row holding cells fills all of it (no ragged rows, no holes), else 0. */
function regularGridWidth(slots: Slots): number {
  let width = 0;
  for (const line of slots) width = Math.max(width, line.length);
  // A for loop, not every(): every() skips the holes it is looking for.
  for (const line of slots) for (let col = 0; line.length && col < width; col++) if (line[col] === undefined) return 0;
  return width;
}

/** Non-blank characters of the text in a cell (undecoded, so `&amp;` counts five: a rough size is enough). */
const textChars = (cell: MarkdownNode): number => (cell.rawText ?? "").replace(/\s+/g, "").length;

const cellsOf = (row: MarkdownNode): MarkdownNode[] => row.childNodes.filter((cell) => isElement(cell, CELL_TAGS));

/** A cell holding one heading and nothing else: a header cell written as a `<td>`. */
function isHeadingCell(cell: MarkdownNode): boolean {
  const content = cell.childNodes.filter((child) => child.nodeType === ELEMENT_NODE || /\S/.test(child.rawText ?? ""));
  return content.length === 1 && /^H[1-6]$/.test(content[0]!.tagName ?? "");
}

/**
 * Whether the table has header cells where data tables have them: a `<thead>`, a first row of `<th>`s (or of
 * headings), a `<th>` opening every row. A `<th>` elsewhere is not enough: a navbox's group names sit beside rows
 * that are whole lists.
 */
function hasHeaderCells(rows: MarkdownNode[]): boolean {
  if (rows.some((row) => row.parentNode?.tagName === "THEAD")) return true;
  const first = rows[0] ? cellsOf(rows[0]) : [];
  if (first.length && (first.every((cell) => cell.tagName === "TH") || first.every(isHeadingCell))) return true;
  return rows.every((row) => cellsOf(row)[0]?.tagName !== "TD");
}

/**
 * Whether a table lays out the page rather than data, and so is written as plain blocks: it holds a table or a
 * form, or it holds blocks (headings, lists, code, quotes) without being a data table with such cells, one with
 * header cells ({@link hasHeaderCells}), two or more columns on a regular grid and no cell over
 * {@link MAX_BLOCK_CELL_CHARS}. As a GFM table a page layout would be one padded row, unreadable and slow to build.
 */
function isLayoutTable(table: MarkdownNode, rows: MarkdownNode[], slots: Slots): boolean {
  const queryable = table as unknown as { querySelector(selector: string): MarkdownNode | null };
  const select = (selector: string) => queryable.querySelector(selector);
  const block = select(BLOCK_CONTENT);
  if (!block) return false;
  if (block.tagName === "TABLE" || block.tagName === "FORM" || select(LAYOUT_ONLY_CONTENT)) return true;
  if (!hasHeaderCells(rows) || regularGridWidth(slots) < 2) return true;
  return rows.some((row) => cellsOf(row).some((cell) => textChars(cell) > MAX_BLOCK_CELL_CHARS));
}

/**
 * `<table>`: a GFM table for data tables, plain blocks for layout tables and tables too large to lay out. Cells are
 * placed before they are rendered (by {@link tableCellTranslator}), filled in by {@link tableGrid}; the caption is
 * rendered by node-html-markdown's own translator.
 */
export const tableTranslator: TranslatorConfigFactory = ({ node, visitor }): TranslatorConfig => {
  const table = node as unknown as MarkdownNode;
  putRowGroupsInOrder(table);
  const rows = tableRows(table);
  const slots = placeCells(rows);
  if (!slots) return { surroundingNewlines: 2 };
  if (isLayoutTable(table, rows, slots)) {
    blockLayoutTables.add(table);
    return { surroundingNewlines: 2 };
  }
  return {
    surroundingNewlines: 2,
    childTranslators: visitor.instance.tableTranslators,
    postprocess: ({ node: table, nodeMetadata }) => {
      const grid = tableGrid(slots);
      if (!grid.length) return PostProcessResult.RemoveNode;
      return renderGrid(grid, nodeMetadata.get(table)?.tableMeta?.caption);
    },
  };
};
