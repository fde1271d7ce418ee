/**
 * @module documents/office/xls
 * XLS (Excel 97–2003, BIFF8 records in the `Workbook` stream of a compound file) → blocks, laid out as XLSX
 * workbooks are (sheet-table.ts): each worksheet a heading and a table. The globals give the shared strings (SST
 * and its CONTINUE records), number formats (FORMAT, XF), the date system (DATEMODE) and the sheets (BOUNDSHEET8,
 * each pointing at its own substream); a sheet's cells are LABELSST, LABEL, NUMBER, RK, MULRK, BOOLERR and FORMULA
 * (its cached result; a string result follows in a STRING record). Numbers go through the same number formats as
 * XLSX (xlsx-values.ts). Charts, macros and embedded substreams are skipped. Excel 5.0/95 files (BIFF5, 8-bit
 * strings in a code page) and password-protected ones are refused with their own errors.
 */
import { UnsupportedFileError } from "../../errors.ts";
import { DocumentCorruptError, DocumentEncryptedError } from "../errors.ts";
import type { Block } from "../layout/model.ts";
import { CompoundFile } from "./cfb.ts";
import { summaryTitle } from "./summary-info.ts";
import { cellBudget, sheetBlocks, type SheetCell } from "./sheet-table.ts";
import { formatCode, numberText } from "./xlsx-values.ts";
import { BiffReader, records, type BiffRecord } from "./biff-records.ts";

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
  sheets: { name: string; offset: number; kind: number }[];
}

function readGlobals(stream: Uint8Array): Globals {
  const g: Globals = { strings: [], formats: [], date1904: false, sheets: [] };
  const custom = new Map<number, string>();
  const xfFormats: number[] = [];
  const all = records(stream, 0);
  for (let i = 0; i < all.length; i++) {
    const r = all[i]!;
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
      const parts = [r];
      while (all[i + 1]?.type === CONTINUE) parts.push(all[++i]!);
      g.strings = sharedStrings(parts);
    }
  }
  g.formats = xfFormats.map((id) => formatCode(id, custom));
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

/** The cells of the sheet whose BOF is at `offset`, as shown. */
function* sheetCells(stream: Uint8Array, offset: number, g: Globals): Generator<SheetCell> {
  const all = records(stream, offset);
  if (all[0]?.type !== BOF) throw new DocumentCorruptError("XLS", `no sheet starts at offset ${offset}`);
  const shown = (n: number, xf: number) => numberText(String(n), g.formats[xf] ?? "General", g.date1904);
  let depth = 0;
  for (let i = 0; i < all.length; i++) {
    const r = all[i]!;
    const v = r.view;
    if (r.type === BOF) depth++;
    else if (r.type === EOF && --depth === 0) return;
    if (depth !== 1 || r.data.length < 6) continue; // an embedded chart's records are not the sheet's cells
    const row = v.getUint16(0, true);
    const column = v.getUint16(2, true);
    const xf = v.getUint16(4, true);
    if (r.type === 0x00fd && r.data.length >= 10) yield { row, column, text: g.strings[v.getUint32(6, true)] ?? "" };
    else if (r.type === 0x0204) yield { row, column, text: new BiffReader(gather(all, i), 6).unicodeString(2) };
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
        while (j < all.length && (all[j]!.type === 0x04bc || all[j]!.type === 0x0221 || all[j]!.type === 0x0236)) j++;
        if (all[j]?.type === 0x0207) yield { row, column, text: new BiffReader(gather(all, j), 0).unicodeString(2) };
      }
    }
  }
}

/** Record `i` with the CONTINUE records that follow it. */
function gather(all: BiffRecord[], i: number): BiffRecord[] {
  const parts = [all[i]!];
  while (all[i + 1]?.type === CONTINUE) parts.push(all[++i]!);
  return parts;
}

/** Converts XLS bytes to blocks. */
export function xlsToBlocks(bytes: Uint8Array): { blocks: Block[]; title?: string } {
  const file = new CompoundFile(bytes, "XLS");
  const stream = file.stream("Workbook") ?? file.stream("Book");
  if (!stream) throw new DocumentCorruptError("XLS", "the compound file has no Workbook stream");
  const g = readGlobals(stream);
  const budget = cellBudget();
  const blocks: Block[] = [];
  // Worksheets only: macro sheets, charts and VB modules have no cells to show.
  // A sheet is read once, however many entries point at it (a crafted file could name one a thousand times).
  const read = new Set<number>();
  for (const sheet of g.sheets) {
    if (sheet.kind !== 0 || read.has(sheet.offset)) continue;
    read.add(sheet.offset);
    blocks.push(...sheetBlocks(sheet.name, sheetCells(stream, sheet.offset, g), budget));
  }
  return { blocks, title: summaryTitle(file) };
}
