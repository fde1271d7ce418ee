/**
 * @module documents/office/ods
 * ODS (OpenDocument spreadsheet) → blocks, as an XLSX's are (sheet-table.ts): each sheet (`table:table`), in the
 * document's order, as a level-2 heading with its name and a table of its cells, the first row as the head. A cell
 * shows what the sheet shows: the text LibreOffice stores with it (`text:p`: a number as formatted, `€2.50`,
 * `40.0%`, `1,234,567.89`; a formula's last result; `TRUE`; `#DIV/0!`), its web link, and a date or a time in ISO
 * 8601 as the XLSX reader writes them (`2024-03-15`, `2024-03-15 13:30:00`, `13:30:00`) from `office:date-value` and
 * `office:time-value`, not in the file's locale. Rows and cells repeated (`table:number-rows-repeated`,
 * `table:number-columns-repeated`: a sheet's trailing empty rows are one row repeated a million times) are counted,
 * not walked: only cells with a value are, against the workbook's cell budget. A merged cell shows its value once.
 */
import { DocumentCorruptError } from "../errors.ts";
import type { Block } from "../layout/model.ts";
import { MAX_SPACE_RUN, webLink } from "./odt-inline.ts";
import { ownRows } from "./odt.ts";
import { cellBudget, MAX_SHEETS, restOfWorkbookLeftOut, sheetBlocks, type SheetCell } from "./sheet-table.ts";
import { TextBudget } from "./text-budget.ts";
import { unzipParts } from "./unzip.ts";
import { checkDepth, children, descendants, intAttr, parseXml, type XmlElement } from "./xml.ts";

/**
 * Most times a row or a cell is taken to repeat: a sheet's own bounds (LibreOffice's 1,048,576 rows; its 16,384
 * columns are fewer). Repeats only advance the position; a repeated value is one cell of the budget per repeat.
 */
const MAX_REPEAT = 1_048_576;

const decoder = new TextDecoder();

/** A cell with a value as read once, for each repeat of its row: its first column, text, link and how many columns it stands for. */
interface ReadCell {
  column: number;
  text: string;
  href?: string;
  repeat: number;
}

/** `PT13H30M00S` (an ISO 8601 duration, as ODF writes a time) → `13:30:00`; undefined when it is not one. */
function timeText(value: string): string | undefined {
  const m = /^(-?)PT(\d+)H(\d+)M(\d+)(?:[.,]\d+)?S$/.exec(value.trim());
  return m ? `${m[1]}${m[2]!.padStart(2, "0")}:${m[3]!.padStart(2, "0")}:${m[4]!.padStart(2, "0")}` : undefined;
}

/** `2024-03-15` or `2024-03-15T13:30:00` → the XLSX reader's `2024-03-15` or `2024-03-15 13:30:00`. */
function dateText(value: string): string | undefined {
  const m = /^(-?\d{4,}-\d{2}-\d{2})(?:T(\d{2}:\d{2}:\d{2}))?/.exec(value.trim());
  return m ? (m[2] ? `${m[1]} ${m[2]}` : m[1]) : undefined;
}

/** The text of a cell's paragraphs (a space between them) and the first web link among them; comments and drawings left out. */
function paragraphText(cell: XmlElement): { text: string; href?: string } {
  let text = "";
  let href: string | undefined;
  const walk = (el: XmlElement, depth: number) => {
    checkDepth(depth, "ODS");
    for (const c of el.childNodes) {
      if (typeof c === "string") text += c;
      else if (c.tagName === "text:s") text += " ".repeat(intAttr(c.getAttribute("text:c"), 0, MAX_SPACE_RUN, 1));
      else if (c.tagName === "text:tab" || c.tagName === "text:line-break") text += " ";
      else if (c.tagName === "text:a") {
        href ??= webLink(c.getAttribute("xlink:href"));
        walk(c, depth + 1);
      } else if (c.tagName !== "office:annotation" && c.tagName !== "text:note" && !c.tagName.startsWith("draw:")) walk(c, depth + 1);
    }
  };
  for (const p of children(cell)) {
    if (p.tagName !== "text:p" && p.tagName !== "text:h") continue;
    if (text) text += " ";
    walk(p, 1);
  }
  return href ? { text, href } : { text };
}

/** What a cell shows: a date or time in ISO 8601, else its stored text, else its value. */
function cellText(cell: XmlElement): { text: string; href?: string } {
  const type = cell.getAttribute("office:value-type");
  const shown = paragraphText(cell);
  const iso = type === "date" ? dateText(cell.getAttribute("office:date-value") ?? "") : type === "time" ? timeText(cell.getAttribute("office:time-value") ?? "") : undefined;
  if (iso) return { ...shown, text: iso };
  if (shown.text.trim() || !type) return shown;
  if (type === "boolean") return { text: cell.getAttribute("office:boolean-value") === "true" ? "TRUE" : "FALSE" };
  return { text: cell.getAttribute("office:value") ?? cell.getAttribute("office:string-value") ?? "" };
}

/**
 * A sheet's cells with a value, row by row, repeats counted. A row is read once, however many times it repeats: its
 * empty cells only advance the column there, and each repeat yields its cells with a value, so the work is the cells
 * yielded. A repeated row is that many rows (LibreOffice shows them all); every cell of every repeat counts against the
 * workbook's cell budget (sheet-table.ts), which ends the sheet. A row of 20,000 empty cells and an `x` repeated
 * 1,048,576 times walked the empty cells for each repeat: twenty billion steps (91 s) from a 1.4 KB file.
 */
function* sheetCells(table: XmlElement): Generator<SheetCell> {
  let row = 0;
  for (const r of ownRows(table, 1, "ODS")) {
    const rowRepeat = intAttr(r.getAttribute("table:number-rows-repeated"), 1, MAX_REPEAT, 1);
    const values: ReadCell[] = [];
    let column = 0;
    for (const c of children(r)) {
      if (c.tagName !== "table:table-cell" && c.tagName !== "table:covered-table-cell") continue;
      const repeat = intAttr(c.getAttribute("table:number-columns-repeated"), 1, MAX_REPEAT, 1);
      if (c.tagName === "table:table-cell") {
        const read = cellText(c);
        if (read.text.trim()) values.push({ ...read, column, repeat });
      }
      column += repeat;
    }
    for (let i = 0; i < rowRepeat && values.length > 0; i++) {
      for (const cell of values) {
        for (let j = 0; j < cell.repeat; j++) {
          yield cell.href ? { column: cell.column + j, row: row + i, text: cell.text, href: cell.href } : { column: cell.column + j, row: row + i, text: cell.text };
        }
      }
    }
    row += rowRepeat;
  }
}

/** Converts ODS bytes to blocks, within the document's text `budget` (text-budget.ts). */
export function odsToBlocks(bytes: Uint8Array, text: TextBudget = new TextBudget()): { blocks: Block[]; title?: string } {
  const files = unzipParts(bytes, "ODS", (name) => name === "content.xml" || name === "meta.xml");
  if (!files["content.xml"]) throw new DocumentCorruptError("ODS", "content.xml is missing");
  const root = parseXml(decoder.decode(files["content.xml"]), "ODS", "content.xml");
  const spreadsheet = descendants(root, "office:spreadsheet")[0];
  const budget = cellBudget(text);
  const blocks: Block[] = [];
  let sheets = 0;
  for (const table of spreadsheet ? children(spreadsheet, "table:table") : []) {
    if (text.cut) break; // the converter ends the document with a line saying so
    if (++sheets > MAX_SHEETS) {
      blocks.push(restOfWorkbookLeftOut(`it has more than ${MAX_SHEETS} sheets`));
      break;
    }
    blocks.push(...sheetBlocks(table.getAttribute("table:name") ?? `Sheet${sheets}`, sheetCells(table), budget));
  }
  const meta = files["meta.xml"] ? parseXml(decoder.decode(files["meta.xml"]), "ODS", "meta.xml") : undefined;
  const title = meta ? descendants(meta, "dc:title")[0]?.textContent?.trim() || undefined : undefined;
  return { blocks, title };
}
