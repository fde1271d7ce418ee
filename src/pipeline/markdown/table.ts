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
 * width. Tables used for page layout are not GFM tables at all (see {@link tableTranslator}).
 */
import { PostProcessResult, type TranslatorConfig, type TranslatorConfigFactory } from "node-html-markdown";
import { ELEMENT_NODE, type MarkdownNode } from "./dom.ts";

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
/** Row groups whose `<tr>` children are rows of the table. */
const ROW_GROUPS: ReadonlySet<string> = new Set(["THEAD", "TBODY", "TFOOT"]);

/** Each rendered cell's text until its table lays it out (the cell node itself is written as nothing). */
const cellTexts = new WeakMap<object, string>();

/** One line, pipes escaped (GFM 4.10: even inside code spans), hard breaks and blocks turned into spaces. */
function cellText(content: string): string {
  return content.replace(/^\s+|\s+$/g, "").replace(/\s*\n\s*/g, " ").replace(/\|/g, "\\|");
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

/**
 * The table as a rectangular grid of cell texts: each cell placed in the first free slot of its row, its spans
 * filled with empty cells; rows left empty (spacers, rows only spanned into) are dropped.
 */
export function tableGrid(table: MarkdownNode): string[][] {
  const rows = tableRows(table);
  const grid: string[][] = rows.map(() => []);
  rows.forEach((row, r) => {
    let col = 0;
    for (const cell of row.childNodes) {
      if (!isElement(cell, CELL_TAGS)) continue;
      while (grid[r]![col] !== undefined) col++;
      const colspan = span(cell, "colspan", MAX_COLSPAN);
      const rowspan = span(cell, "rowspan", rows.length - r); // rowspan="0": to the end of the table
      for (let dr = 0; dr < rowspan; dr++) {
        for (let dc = 0; dc < colspan; dc++) grid[r + dr]![col + dc] = dr === 0 && dc === 0 ? (cellTexts.get(cell) ?? "") : "";
      }
      col += colspan;
    }
  });
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
 * `<table>`: a GFM table for data tables, plain blocks for layout tables. Cells are rendered by
 * {@link tableCellTranslator} and laid out by {@link tableGrid}; the caption by node-html-markdown's own translator.
 */
export const tableTranslator: TranslatorConfigFactory = ({ node, visitor }): TranslatorConfig => {
  if ((node as unknown as { querySelector(s: string): unknown }).querySelector(LAYOUT_TABLE_CONTENT)) {
    return { surroundingNewlines: 2 };
  }
  return {
    surroundingNewlines: 2,
    childTranslators: visitor.instance.tableTranslators,
    postprocess: ({ node: table, nodeMetadata }) => {
      const grid = tableGrid(table as unknown as MarkdownNode);
      if (!grid.length) return PostProcessResult.RemoveNode;
      return renderGrid(grid, nodeMetadata.get(table)?.tableMeta?.caption);
    },
  };
};
