/**
 * @module documents/office/xls
 * XLS (Excel 97–2003, BIFF8 records in the `Workbook` stream of a compound file) → blocks, laid out as XLSX
 * workbooks are (sheet-table.ts): each worksheet a heading and a table. The globals give the shared strings (SST
 * and its CONTINUE records), number formats (FORMAT, XF), the date system (DATEMODE) and the sheets (BOUNDSHEET8,
 * each pointing at its own substream); a sheet's cells are LABELSST, LABEL, NUMBER, RK, MULRK, BOOLERR and FORMULA
 * (its cached result; a string result follows in a STRING record), and HLINK records give the cells' web links
 * (xls-hyperlinks.ts). Numbers go through the same number formats as XLSX (xlsx-values.ts). Charts, macros and
 * embedded substreams are skipped. The stream's records are framed once and each sheet walked from its BOF, within
 * one allowance of records for the whole workbook ({@link RECORD_ALLOWANCE}). Excel 5.0/95 files (BIFF5, 8-bit
 * strings in a code page) and password-protected ones are refused with their own errors.
 */
import { UnsupportedFileError } from "../../errors.ts";
import { DocumentCorruptError, DocumentEncryptedError } from "../errors.ts";
import type { Block } from "../layout/model.ts";
import { CompoundFile } from "./cfb.ts";
import { summaryTitle } from "./summary-info.ts";
import { cellBudget, MAX_SHEETS, restOfWorkbookLeftOut, sheetBlocks, type SheetCell } from "./sheet-table.ts";
import { CellFormats, formatCode } from "./xlsx-values.ts";
import { BiffReader, BiffStream, type BiffRecord } from "./biff-records.ts";
import { HLINK, hyperlinkOf } from "./xls-hyperlinks.ts";
import { TextBudget } from "./text-budget.ts";

const BOF = 0x0809;
const EOF = 0x000a;
const CONTINUE = 0x003c;
const ERRORS: Record<number, string> = { 0x00: "#NULL!", 0x07: "#DIV/0!", 0x0f: "#VALUE!", 0x17: "#REF!", 0x1d: "#NAME?", 0x24: "#NUM!", 0x2a: "#N/A" };

/** What the workbook globals declare. */
interface Globals {
  strings: string[];
  /** XF index → number format code. */
  formats: string[];
  date1904: boolean;
  /** The workbook's formats, each read once for all its cells. */
  cellFormats: CellFormats;
  sheets: { name: string; offset: number; kind: number }[];
}

function readGlobals(biff: BiffStream): Globals {
  const g: Globals = { strings: [], formats: [], date1904: false, cellFormats: new CellFormats(false), sheets: [] };
  const custom = new Map<number, string>();
  const xfFormats: number[] = [];
  for (let i = 0; i < biff.count; i++) {
    const r = biff.record(i);
    if (i === 0) {
      if (r.type !== BOF || r.data.length < 2) throw new DocumentCorruptError("XLS", "the workbook stream does not start with a BOF record");
      if (r.view.getUint16(0, true) !== 0x0600) throw new UnsupportedFileError("application/vnd.ms-excel (an Excel 5.0/95 workbook; save it as .xls 97–2003 or .xlsx)");
      continue;
    }
    if (r.type === EOF) break;
    if (r.type === 0x002f) throw new DocumentEncryptedError("XLS");
    if (r.type === 0x0022 && r.data.length >= 2) g.date1904 = r.view.getUint16(0, true) === 1;
    else if (r.type === 0x041e && r.data.length >= 5) custom.set(r.view.getUint16(0, true), new BiffReader([r], 2).unicodeString(2));
    else if (r.type === 0x00e0 && r.data.length >= 4) xfFormats.push(r.view.getUint16(2, true));
    else if (r.type === 0x0085 && r.data.length >= 8) {
      g.sheets.push({ offset: r.view.getUint32(0, true), kind: r.data[5]!, name: new BiffReader([r], 6).unicodeString(1) });
    } else if (r.type === 0x00fc) {
      const parts = gather(biff, i);
      i += parts.length - 1;
      g.strings = sharedStrings(parts);
    }
  }
  if (biff.count === 0) throw new DocumentCorruptError("XLS", "the workbook stream does not start with a BOF record");
  g.formats = xfFormats.map((id) => formatCode(id, custom));
  g.cellFormats = new CellFormats(g.date1904);
  return g;
}

/** The SST: `cstUnique` rich strings, across the SST record and its CONTINUE records. */
function sharedStrings(parts: BiffRecord[]): string[] {
  const reader = new BiffReader(parts, 0);
  reader.skip(4);
  const unique = reader.u32();
  const out: string[] = [];
  // Each string takes at least 3 bytes: a count past that is a lie, not an allocation to make.
  for (let n = 0; n < unique && !reader.atEnd(); n++) out.push(reader.richString());
  return out;
}

/** An RK number (a 30-bit integer or the top of a double, optionally divided by 100). */
function rkValue(rk: number): number {
  let n: number;
  if (rk & 0x02) n = rk >> 2;
  else {
    const b = new DataView(new ArrayBuffer(8));
    b.setUint32(4, rk & 0xfffffffc, true);
    n = b.getFloat64(0, true);
  }
  return rk & 0x01 ? n / 100 : n;
}

/**
 * Records a workbook may visit walking its sheets, per record of its stream. A well-formed workbook's sheets are
 * disjoint runs of its records, so its walks visit each record at most once; a crafted one whose BOFs are never
 * closed would walk the rest of the stream from every sheet (20,000 of them in 667 KB took 26 s).
 */
export const RECORD_ALLOWANCE = 2;

/**
 * The end (exclusive) of the substream starting at record `start`: past the EOF that closes its BOF (embedded
 * substreams, such as a chart inside a sheet, nest), or where the stream or the workbook's `allowance` of records
 * runs out (`cut`).
 */
function substreamEnd(biff: BiffStream, start: number, allowance: { records: number }): { end: number; cut: boolean } {
  let depth = 0;
  for (let i = start; i < biff.count; i++) {
    if (allowance.records-- <= 0) return { end: i, cut: true };
    const type = biff.type(i);
    if (type === BOF) depth++;
    else if (type === EOF && --depth <= 0) return { end: i + 1, cut: false };
  }
  return { end: biff.count, cut: false };
}

/** The cells of the sheet in records `start` to `end` (its BOF to its EOF), as shown, with their web links. */
function* sheetCells(biff: BiffStream, start: number, end: number, g: Globals): Generator<SheetCell> {
  const links = new Map<string, string>();
  for (let i = start, depth = 0; i < end; i++) {
    const type = biff.type(i);
    if (type === BOF) depth++;
    else if (type === EOF) depth--;
    else if (type === HLINK && depth === 1) {
      const link = hyperlinkOf(biff.record(i));
      if (link && !links.has(`${link.column},${link.row}`)) links.set(`${link.column},${link.row}`, link.url);
    }
  }
  for (const cell of storedCells(biff, start, end, g)) {
    const href = links.get(`${cell.column},${cell.row}`);
    yield href ? { ...cell, href } : cell;
  }
}

/** The values of the cell records in records `start` to `end`, as shown (an embedded chart's records left out). */
function* storedCells(biff: BiffStream, start: number, end: number, g: Globals): Generator<SheetCell> {
  const shown = (n: number, xf: number) => g.cellFormats.number(String(n), g.formats[xf] ?? "General");
  let depth = 0;
  for (let i = start; i < end; i++) {
    const type = biff.type(i)!;
    if (type === BOF) depth++;
    else if (type === EOF) depth--;
    if (depth !== 1 || !CELL_RECORDS.has(type)) continue;
    const r = biff.record(i);
    if (r.data.length < 6) continue;
    const v = r.view;
    const row = v.getUint16(0, true);
    const column = v.getUint16(2, true);
    const xf = v.getUint16(4, true);
    if (r.type === 0x00fd && r.data.length >= 10) yield { row, column, text: g.strings[v.getUint32(6, true)] ?? "" };
    else if (r.type === 0x0204) yield { row, column, text: new BiffReader(gather(biff, i), 6).unicodeString(2) };
    else if (r.type === 0x0203 && r.data.length >= 14) yield { row, column, text: shown(v.getFloat64(6, true), xf) };
    else if (r.type === 0x027e && r.data.length >= 10) yield { row, column, text: shown(rkValue(v.getUint32(6, true)), xf) };
    else if (r.type === 0x00bd) {
      for (let at = 4, c = column; at + 6 <= r.data.length - 2; at += 6, c++) yield { row, column: c, text: shown(rkValue(v.getUint32(at + 2, true)), v.getUint16(at, true)) };
    } else if (r.type === 0x0205 && r.data.length >= 8) {
      yield { row, column, text: r.data[7] ? (ERRORS[r.data[6]!] ?? "#ERROR") : r.data[6] ? "TRUE" : "FALSE" };
    } else if (r.type === 0x0006 && r.data.length >= 14) {
      if (v.getUint16(12, true) !== 0xffff) yield { row, column, text: shown(v.getFloat64(6, true), xf) };
      else if (r.data[6] === 1) yield { row, column, text: r.data[8] ? "TRUE" : "FALSE" };
      else if (r.data[6] === 2) yield { row, column, text: ERRORS[r.data[8]!] ?? "#ERROR" };
      else if (r.data[6] === 0) {
        // The string result is the next STRING record (shared-formula and array records may come between).
        let j = i + 1;
        while (j < end && (biff.type(j) === 0x04bc || biff.type(j) === 0x0221 || biff.type(j) === 0x0236)) j++;
        if (j < end && biff.type(j) === 0x0207) yield { row, column, text: new BiffReader(gather(biff, j), 0).unicodeString(2) };
      }
    }
  }
}

/** LABELSST, LABEL, NUMBER, RK, MULRK, BOOLERR, FORMULA: the records that hold a cell's value. */
const CELL_RECORDS = new Set([0x00fd, 0x0204, 0x0203, 0x027e, 0x00bd, 0x0205, 0x0006]);

/** Record `i` with the CONTINUE records that follow it. */
function gather(biff: BiffStream, i: number): BiffRecord[] {
  const parts = [biff.record(i)];
  while (biff.type(i + 1) === CONTINUE) parts.push(biff.record(++i));
  return parts;
}

/** Converts XLS bytes to blocks, within the document's text `budget` (text-budget.ts). */
export function xlsToBlocks(bytes: Uint8Array, text: TextBudget = new TextBudget()): { blocks: Block[]; title?: string } {
  const file = new CompoundFile(bytes, "XLS");
  const stream = file.stream("Workbook") ?? file.stream("Book");
  if (!stream) throw new DocumentCorruptError("XLS", "the compound file has no Workbook stream");
  const biff = new BiffStream(stream);
  const g = readGlobals(biff);
  const budget = cellBudget(text);
  const allowance = { records: RECORD_ALLOWANCE * biff.count };
  const blocks: Block[] = [];
  // Worksheets only: macro sheets, charts and VB modules have no cells to show.
  // A sheet is read once, however many entries point at it (a crafted file could name one a thousand times).
  const read = new Set<number>();
  for (const sheet of g.sheets) {
    if (text.cut) break; // the converter ends the document with a line saying so
    if (sheet.kind !== 0 || read.has(sheet.offset)) continue;
    if (read.size === MAX_SHEETS) {
      blocks.push(restOfWorkbookLeftOut(`it has more than ${MAX_SHEETS} sheets`));
      break;
    }
    read.add(sheet.offset);
    const start = biff.indexAt(sheet.offset);
    if (biff.type(start) !== BOF) throw new DocumentCorruptError("XLS", `no sheet starts at offset ${sheet.offset}`);
    const { end, cut } = substreamEnd(biff, start, allowance);
    blocks.push(...sheetBlocks(sheet.name, sheetCells(biff, start, end, g), budget));
    if (cut) {
      blocks.push(restOfWorkbookLeftOut("its sheets run into one another (BOF records without their EOF)"));
      break;
    }
  }
  return { blocks, title: summaryTitle(file) };
}
