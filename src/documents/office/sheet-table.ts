/**
 * @module documents/office/sheet-table
 * One worksheet's cells → blocks, for every spreadsheet reader (XLSX, XLS): a level-2 heading with the sheet's
 * name (upstream's layout) and a table of its rows, the first row as the table's head. Rows and columns with no
 * value are left out, so a sparse sheet (a value in A1 and one in XFD1048576) stays small; and a workbook's tables
 * share one budget of cells, past which the rest is left out with a line saying so (a diagonal of 1,000 values
 * would otherwise be a million cells of table). A stored cell whose text is only spaces still counts against the
 * budget while its sheet is read, though it takes no room in the table: a sheet of a million blank strings is a
 * million cells of work all the same. The sheets' names, cells' texts and link targets also count against the
 * document's text budget (text-budget.ts): one 100 KB shared string in 2,000 cells is 200 million characters in few
 * cells. Past it the sheet's table ends where the text ran out and no later sheet is read (the converter adds the line
 * saying so, for the whole document).
 */
import type { Block, Inline } from "../layout/model.ts";
import { TextBudget } from "./text-budget.ts";

/** Most cells (of the kept rows and columns) a workbook's tables hold together. */
export const MAX_SHEET_CELLS = 1_000_000;

/**
 * Most sheets a workbook shows: LibreOffice's own limit (Excel's is its memory). The readers read each sheet part or
 * substream once however many entries name it; this bounds the headings of a workbook of empty sheets.
 */
export const MAX_SHEETS = 10_000;

/** The line that ends a workbook cut short, saying why (`it has more than 10000 sheets`). */
export function restOfWorkbookLeftOut(why: string): Block {
  return { kind: "paragraph", content: [{ text: `(The rest of this workbook is not shown: ${why}.)` }] };
}

/** A cell with something in it, as the sheet shows it. */
export interface SheetCell {
  /** 0-based column (A = 0). */
  column: number;
  /** Row number; only the order matters. */
  row: number;
  text: string;
  href?: string;
}

/** The cells a workbook's tables may still hold (shared by its sheets, in order), and the text the document may give. */
export interface CellBudget {
  cells: number;
  text: TextBudget;
}

/** A fresh budget for one workbook, within the document's text budget. */
export const cellBudget = (text: TextBudget = new TextBudget()): CellBudget => ({ cells: MAX_SHEET_CELLS, text });

/** The blocks of the sheet `name` holding `cells` (empty texts are skipped), within `budget`. */
export function sheetBlocks(name: string, cells: Iterable<SheetCell>, budget: CellBudget): Block[] {
  const rows = new Map<number, Map<number, Inline[]>>();
  const used = new Set<number>();
  let kept = 0;
  let cut = false;
  const blocks: Block[] = [{ kind: "heading", level: 2, content: [{ text: budget.text.take(name) }] }];
  for (const cell of cells) {
    if (budget.text.cut) break;
    // Every kept value is at least a cell of the table: past the budget the table cannot hold them anyway. A blank
    // one counts too (it cost the reading), so a sheet of blanks cannot be read without end.
    if (++kept > budget.cells) {
      cut = true;
      break;
    }
    const whole = cell.text.replace(/\s+/g, " ").trim();
    if (!whole) continue;
    // A link target is printed with its text (`[text](target)`): it counts, shown whole or not at all.
    const href = cell.href !== undefined && budget.text.spend(cell.href.length) ? cell.href : undefined;
    const text = budget.text.take(whole);
    if (!text) break;
    let row = rows.get(cell.row);
    if (!row) rows.set(cell.row, (row = new Map()));
    row.set(cell.column, [href ? { text, href } : { text }]);
    used.add(cell.column);
  }
  const columns = [...used].sort((a, b) => a - b);
  const table: Inline[][][] = [];
  for (const r of [...rows.keys()].sort((a, b) => a - b)) {
    if (budget.cells < columns.length) {
      cut = true;
      break;
    }
    budget.cells -= columns.length;
    const row = rows.get(r)!;
    table.push(columns.map((c) => row.get(c) ?? []));
  }
  if (table.length > 0) blocks.push({ kind: "table", rows: table });
  if (cut) {
    budget.cells = 0;
    blocks.push({ kind: "paragraph", content: [{ text: `(The rest of this sheet is not shown: the workbook's tables reached ${MAX_SHEET_CELLS} cells.)` }] });
  }
  return blocks;
}
