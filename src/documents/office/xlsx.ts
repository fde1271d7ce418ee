/**
 * @module documents/office/xlsx
 * XLSX (SpreadsheetML) → blocks, as upstream converts a workbook: each worksheet, in the workbook's order, as a
 * level-2 heading with the sheet's name and a table of its cells (the first row is the table's head). Cells show
 * what the sheet shows: shared and inline strings, numbers through their number format (xlsx-values.ts), booleans
 * as TRUE/FALSE, errors as `#N/A`…, a formula's cached result, and a cell's hyperlink (tables: sheet-table.ts).
 * A sheet part is shown once, under the first entry that names it.
 *
 * Sheets and the shared strings are scanned, not parsed into a tree: they are most of a workbook's bytes and flat
 * (rows of cells), and a tree of 32 MiB of cells would take a gigabyte.
 */
import { DocumentCorruptError } from "../errors.ts";
import type { Block } from "../layout/model.ts";
import { cellBudget, MAX_SHEETS, restOfWorkbookLeftOut, sheetBlocks, type SheetCell } from "./sheet-table.ts";
import { MAX_OFFICE_UNZIPPED_BYTES, unzipParts } from "./unzip.ts";
import { children, descendants, intAttr, parseXml, type XmlElement } from "./xml.ts";
import { formatCode, numberText } from "./xlsx-values.ts";
import { cellPosition, cellsOf, sharedStrings } from "./xlsx-scan.ts";
import { TextBudget } from "./text-budget.ts";

const WORKBOOK_PARTS = new Set(["xl/workbook.xml", "xl/_rels/workbook.xml.rels", "xl/sharedStrings.xml", "xl/styles.xml", "docProps/core.xml"]);
const decoder = new TextDecoder();

/** A local element name (`x:sheet` and `sheet` are the same element under a prefix some writers use). */
const local = (el: XmlElement) => el.tagName.slice(el.tagName.indexOf(":") + 1);
const childrenNamed = (el: XmlElement, name: string) => children(el).filter((c) => local(c) === name);
const descendantsNamed = (root: XmlElement, name: string) => [...descendants(root, name), ...descendants(root, `x:${name}`)];

/** Relationship id → target, resolved against the folder of the part the relationships belong to. */
function relationships(bytes: Uint8Array | undefined, folder: string): Map<string, { target: string; external: boolean }> {
  const out = new Map<string, { target: string; external: boolean }>();
  if (!bytes) return out;
  for (const r of children(parseXml(decoder.decode(bytes), "XLSX", "relationships"), "Relationship")) {
    const target = r.getAttribute("Target") ?? "";
    const external = r.getAttribute("TargetMode") === "External";
    out.set(r.getAttribute("Id") ?? "", { target: external ? target : resolvePart(folder, target), external });
  }
  return out;
}

/** A package part name from a relationship target (relative to `folder`, or absolute from the package root). */
function resolvePart(folder: string, target: string): string {
  const parts = (target.startsWith("/") ? target.slice(1) : `${folder}/${target}`).split("/");
  const out: string[] = [];
  for (const p of parts) {
    if (p === "..") out.pop();
    else if (p !== "." && p !== "") out.push(p);
  }
  return out.join("/");
}

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
    let text: string;
    if (cell.type === "s") text = ctx.strings[intAttr(cell.value, 0, ctx.strings.length, ctx.strings.length)] ?? "";
    else if (cell.type === "inlineStr" || cell.type === "str" || cell.type === "e") text = cell.value;
    else if (cell.type === "b") text = cell.value.trim() === "1" ? "TRUE" : "FALSE";
    else text = numberText(cell.value, ctx.formats[cell.style] ?? "General", ctx.date1904);
    const href = ctx.links.get(`${cell.column},${cell.row}`);
    yield href ? { column: cell.column, row: cell.row, text, href } : { column: cell.column, row: cell.row, text };
  }
}

interface SheetContext {
  strings: string[];
  formats: string[];
  date1904: boolean;
  /** `column,row` (0-based column, 1-based row) → URL of the cell's hyperlink. */
  links: Map<string, string>;
}

/** The hyperlinks of a sheet: `<hyperlink ref="A1" r:id="…"/>` (external, through the sheet's relationships). */
function hyperlinks(xml: string, rels: Map<string, { target: string; external: boolean }>): Map<string, string> {
  const out = new Map<string, string>();
  const start = xml.search(/<(?:\w+:)?hyperlinks\b/);
  if (start < 0) return out;
  const end = /<\/(?:\w+:)?hyperlinks>/.exec(xml.slice(start));
  const section = parseXml(xml.slice(start, end ? start + end.index + end[0].length : undefined), "XLSX", "hyperlinks");
  for (const h of childrenNamed(section, "hyperlink")) {
    const rel = rels.get(h.getAttribute("r:id") ?? "");
    const cell = cellPosition((h.getAttribute("ref") ?? "").split(":")[0]!);
    if (rel?.external && /^(https?|mailto):/i.test(rel.target) && cell) out.set(`${cell.column},${cell.row}`, rel.target);
  }
  return out;
}

/** Converts XLSX bytes to blocks, within the document's text `budget` (text-budget.ts). */
export function xlsxToBlocks(bytes: Uint8Array, text: TextBudget = new TextBudget()): { blocks: Block[]; title?: string } {
  const files = unzipParts(bytes, "XLSX", (name) => WORKBOOK_PARTS.has(name));
  if (!files["xl/workbook.xml"]) throw new DocumentCorruptError("XLSX", "xl/workbook.xml is missing");
  const workbook = parseXml(decoder.decode(files["xl/workbook.xml"]), "XLSX", "xl/workbook.xml");
  const rels = relationships(files["xl/_rels/workbook.xml.rels"], "xl");
  const sheets = descendantsNamed(workbook, "sheet").map((s) => ({ name: s.getAttribute("name") ?? "Sheet", part: rels.get(s.getAttribute("r:id") ?? "")?.target }));
  const wanted = new Set(sheets.flatMap((s) => (s.part ? [s.part, sheetRelsName(s.part)] : [])));
  const spent = Object.values(files).reduce((n, b) => n + b.length, 0);
  const sheetFiles = unzipParts(bytes, "XLSX", (name) => wanted.has(name), MAX_OFFICE_UNZIPPED_BYTES - spent);
  const workbookPr = descendantsNamed(workbook, "workbookPr")[0];
  const date1904 = /^(1|true)$/i.test(workbookPr?.getAttribute("date1904") ?? "");
  const strings = files["xl/sharedStrings.xml"] ? sharedStrings(decoder.decode(files["xl/sharedStrings.xml"])) : [];
  const formats = numberFormats(files["xl/styles.xml"] ? parseXml(decoder.decode(files["xl/styles.xml"]), "XLSX", "xl/styles.xml") : undefined);
  const budget = cellBudget(text);
  const blocks: Block[] = [];
  // A part is read once, however many sheet entries name it: 5,000 entries naming one 30 MB part were 5,000 reads.
  const read = new Set<string>();
  for (const sheet of sheets) {
    if (text.cut) break; // the converter ends the document with a line saying so
    const data = sheet.part && !read.has(sheet.part) ? sheetFiles[sheet.part] : undefined;
    if (!data) continue; // a chart sheet or a dialog sheet (no cells), or a part already shown
    if (read.size === MAX_SHEETS) {
      blocks.push(restOfWorkbookLeftOut(`it has more than ${MAX_SHEETS} sheets`));
      break;
    }
    read.add(sheet.part!);
    const xml = decoder.decode(data);
    const links = hyperlinks(xml, relationships(sheetFiles[sheetRelsName(sheet.part!)], sheet.part!.slice(0, sheet.part!.lastIndexOf("/"))));
    blocks.push(...sheetBlocks(sheet.name, shownCells(xml, { strings, formats, date1904, links }), budget));
  }
  const core = files["docProps/core.xml"] ? parseXml(decoder.decode(files["docProps/core.xml"]), "XLSX", "docProps/core.xml") : undefined;
  const title = core ? descendants(core, "dc:title")[0]?.textContent?.trim() || undefined : undefined;
  return { blocks, title };
}

/** The relationships part of a sheet part (`xl/worksheets/sheet1.xml` → `xl/worksheets/_rels/sheet1.xml.rels`). */
function sheetRelsName(part: string): string {
  const slash = part.lastIndexOf("/");
  return `${part.slice(0, slash)}/_rels/${part.slice(slash + 1)}.rels`;
}
