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
 * width. Tables used for page layout are not GFM tables at all (see {@link tableTranslator}), nor are tables whose
 * grid would pass {@link MAX_GRID_SLOTS}.
 */
import { PostProcessResult, type TranslatorConfig, type TranslatorConfigFactory } from "node-html-markdown";
import { ELEMENT_NODE, type MarkdownNode } from "./dom.ts";
import { newlineRunsToSpace } from "./whitespace.ts";

/**
 * Tables used for page layout (a nested table, or headings, lists and code inside cells) are rendered as plain
 * blocks: as a GFM table the whole page would become one padded row, unreadable and slow to build.
 */
const LAYOUT_TABLE_CONTENT = "table, h1, h2, h3, h4, h5, h6, ul, ol, pre, blockquote, form";
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

/** `<td>`/`<th>` inside a data table: render the content with the cell translators and keep it for the table. */
export const tableCellTranslator: TranslatorConfigFactory = ({ visitor }) => ({
  surroundingNewlines: false,
  childTranslators: visitor.instance.tableCellTranslators,
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

function isElement(node: MarkdownNode, tags: ReadonlySet<string> | string): boolean {
  if (node.nodeType !== ELEMENT_NODE) return false;
  return typeof tags === "string" ? node.tagName === tags : tags.has(node.tagName ?? "");
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
function placeCells(table: MarkdownNode): Slots | undefined {
  const rows = tableRows(table);
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

/**
 * `<table>`: a GFM table for data tables, plain blocks for layout tables and tables too large to lay out. Cells are
 * placed before they are rendered (by {@link tableCellTranslator}), filled in by {@link tableGrid}; the caption is
 * rendered by node-html-markdown's own translator.
 */
export const tableTranslator: TranslatorConfigFactory = ({ node, visitor }): TranslatorConfig => {
  if ((node as unknown as { querySelector(s: string): unknown }).querySelector(LAYOUT_TABLE_CONTENT)) {
    return { surroundingNewlines: 2 };
  }
  const slots = placeCells(node as unknown as MarkdownNode);
  if (!slots) return { surroundingNewlines: 2 };
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
