/**
 * @module documents/office/xlsx
 * XLSX (SpreadsheetML) → blocks, as upstream converts a workbook: each worksheet, in the workbook's order, as a
 * level-2 heading with the sheet's name and a table of its cells (the first row is the table's head). Cells show
 * what the sheet shows: shared and inline strings, numbers and ISO dates through their number format
 * (xlsx-values.ts), booleans as TRUE/FALSE, errors as `#N/A`…, a formula's cached result, nothing for a rich
 * value (a picture in a cell), and a cell's link (xlsx-links.ts; tables: sheet-table.ts). The parts are found through the
 * package's relationships (xlsx-package.ts). A sheet part is shown once, under the first entry that names it.
 *
 * Sheets and the shared strings are scanned, not parsed into a tree: they are most of a workbook's bytes and flat
 * (rows of cells), and a tree of 32 MiB of cells would take a gigabyte.
 */
import type { Block } from "../layout/model.ts";
import { cellBudget, MAX_SHEETS, restOfWorkbookLeftOut, sheetBlocks, type SheetCell } from "./sheet-table.ts";
import { TextBudget } from "./text-budget.ts";
import { folderOf, partOfType, relsPartOf, resolvePart } from "./opc-package.ts";
import { children, descendants, intAttr, parseXml, type XmlElement } from "./xml.ts";
import { formulaLink, sheetHyperlinks } from "./xlsx-links.ts";
import { openWorkbook, relationships } from "./xlsx-package.ts";
import { cellsOf, localName, sharedStrings, type StoredCell } from "./xlsx-scan.ts";
import { CellFormats, formatCode } from "./xlsx-values.ts";

const decoder = new TextDecoder();

const childrenNamed = (el: XmlElement, name: string) => children(el).filter((c) => localName(c.tagName) === name);
const descendantsNamed = (root: XmlElement, name: string) => [...descendants(root, name), ...descendants(root, `x:${name}`)];

/** Style index → number format code, and the workbook's date system. */
function numberFormats(styles: XmlElement | undefined): string[] {
  if (!styles) return [];
  const custom = new Map<number, string>();
  for (const f of descendantsNamed(styles, "numFmt")) custom.set(intAttr(f.getAttribute("numFmtId"), 0, 1e6, 0), f.getAttribute("formatCode") ?? "General");
  const cellXfs = descendantsNamed(styles, "cellXfs")[0];
  return cellXfs ? childrenNamed(cellXfs, "xf").map((xf) => formatCode(intAttr(xf.getAttribute("numFmtId"), 0, 1e6, 0), custom)) : [];
}

/** A worksheet's stored cells as the sheet shows them. */
function* shownCells(xml: string, ctx: SheetContext): Generator<SheetCell> {
  for (const cell of cellsOf(xml)) {
    const text = cellText(cell, ctx);
    const href = ctx.links.get(`${cell.column},${cell.row}`) ?? (cell.formula ? formulaLink(cell.formula) : undefined);
    yield href ? { column: cell.column, row: cell.row, text, href } : { column: cell.column, row: cell.row, text };
  }
}

/** The text a stored cell shows. */
function cellText(cell: StoredCell, ctx: SheetContext): string {
  switch (cell.type) {
    case "s":
      return ctx.strings[intAttr(cell.value, 0, ctx.strings.length, ctx.strings.length)] ?? "";
    case "inlineStr":
    case "str":
      return cell.value;
    case "e":
      // A rich value (Excel 365's picture in a cell, a linked data type) stores `#VALUE!` for older readers: the cell
      // shows a picture or a card, not an error. Its text, when it has any, lies in xl/richData behind three
      // indirections whose part names and keys vary by Excel version; the cell shows nothing. Real errors have no `vm`.
      return cell.valueMetadata !== undefined && cell.value === "#VALUE!" ? "" : cell.value;
    case "b":
      return cell.value.trim() === "1" ? "TRUE" : "FALSE";
    case "d":
      return ctx.cellFormats.isoDate(cell.value, ctx.formats[cell.style] ?? "General");
    default:
      return ctx.cellFormats.number(cell.value, ctx.formats[cell.style] ?? "General");
  }
}

interface SheetContext {
  strings: string[];
  /** Style index → number format code, and the workbook's formats read once each. */
  formats: string[];
  cellFormats: CellFormats;
  /** `column,row` (0-based column, 1-based row) → URL of the cell's hyperlink. */
  links: Map<string, string>;
}

/** Converts XLSX bytes to blocks, within the document's text `budget` (text-budget.ts). */
export function xlsxToBlocks(bytes: Uint8Array, text: TextBudget = new TextBudget()): { blocks: Block[]; title?: string } {
  const pkg = openWorkbook(bytes);
  const workbook = pkg.workbook;
  const folder = folderOf(pkg.workbookPart);
  const sheets = descendantsNamed(workbook, "sheet").map((s) => ({ name: s.getAttribute("name") ?? "Sheet", part: pkg.rels.get(s.getAttribute("r:id") ?? "")?.target }));
  const stringsPart = partOfType(pkg.rels.values(), "sharedStrings", resolvePart(folder, "sharedStrings.xml"));
  const stylesPart = partOfType(pkg.rels.values(), "styles", resolvePart(folder, "styles.xml"));
  const files = pkg.read([stringsPart, stylesPart, ...sheets.flatMap((s) => (s.part ? [s.part, relsPartOf(s.part)] : []))]);
  const workbookPr = descendantsNamed(workbook, "workbookPr")[0];
  const date1904 = /^(1|true)$/i.test(workbookPr?.getAttribute("date1904") ?? "");
  const stringsData = files.part(stringsPart);
  const stylesData = files.part(stylesPart);
  const strings = stringsData ? sharedStrings(decoder.decode(stringsData)) : [];
  const formats = numberFormats(stylesData ? parseXml(decoder.decode(stylesData), "XLSX", stylesPart) : undefined);
  const cellFormats = new CellFormats(date1904);
  const budget = cellBudget(text);
  const blocks: Block[] = [];
  // A part is read once, however many sheet entries name it: 5,000 entries naming one 30 MB part were 5,000 reads.
  const read = new Set<string>();
  for (const sheet of sheets) {
    if (text.cut) break; // the converter ends the document with a line saying so
    const key = sheet.part?.toLowerCase();
    const data = key && !read.has(key) ? files.part(key) : undefined;
    if (!data) continue; // a chart sheet or a dialog sheet (no cells), or a part already shown
    if (read.size === MAX_SHEETS) {
      blocks.push(restOfWorkbookLeftOut(`it has more than ${MAX_SHEETS} sheets`));
      break;
    }
    read.add(key!);
    const xml = decoder.decode(data);
    const links = sheetHyperlinks(xml, relationships(files.part(relsPartOf(sheet.part!)), relsPartOf(sheet.part!)));
    blocks.push(...sheetBlocks(sheet.name, shownCells(xml, { strings, formats, cellFormats, links }), budget));
  }
  const core = pkg.core ? parseXml(decoder.decode(pkg.core), "XLSX", "docProps/core.xml") : undefined;
  const title = core ? descendants(core, "dc:title")[0]?.textContent?.trim() || undefined : undefined;
  return { blocks, title };
}
