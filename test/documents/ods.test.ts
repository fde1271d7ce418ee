/**
 * ODS spreadsheets (documents/office/ods.ts): detected by the `mimetype` entry every OpenDocument package starts
 * with (they were a `zip`, unsupported) and converted as an XLSX is: each sheet a `## name` heading and a table, values
 * as the sheet shows them, dates and times in ISO 8601. book.ods was written by LibreOffice 7.4 from book.fods
 * (`soffice --headless --convert-to ods book.fods`), as were the XLSX and XLS the review compared it with: the ODS
 * gives their markdown. Repeated rows and cells (a sheet's million trailing empty rows) are counted, not walked.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { strToU8, zipSync } from "fflate";
import { detectKind, sniffBytes } from "../../src/documents/detect.ts";
import { odsToBlocks } from "../../src/documents/office/ods.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";
import { MAX_SHEET_CELLS } from "../../src/documents/office/sheet-table.ts";

const NS = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"',
  'xmlns:xlink="http://www.w3.org/1999/xlink"',
].join(" ");

/** An ODS package of `tables` (office:spreadsheet's content), its `mimetype` first and stored, as ODF requires. */
const ods = (tables: string) =>
  zipSync({
    mimetype: [strToU8("application/vnd.oasis.opendocument.spreadsheet"), { level: 0 }],
    "content.xml": strToU8(`<office:document-content ${NS}><office:body><office:spreadsheet>${tables}</office:spreadsheet></office:body></office:document-content>`),
  });
const cell = (text: string, attrs = "") => `<table:table-cell${attrs ? ` ${attrs}` : ""}><text:p>${text}</text:p></table:table-cell>`;
const row = (cells: string, attrs = "") => `<table:table-row${attrs ? ` ${attrs}` : ""}>${cells}</table:table-row>`;
const sheet = (name: string, rows: string) => `<table:table table:name="${name}">${rows}</table:table>`;

/** What book.xlsx and book.xls give (the review's crawlbox output for them). */
const BOOK = `## Sales

| Date | Region | Units | Price | Total | Share | Time | Big |
| --- | --- | --- | --- | --- | --- | --- | --- |
| 2024-03-15 | North | 12 | €2.50 | €30.00 | 40.0% | 13:30:00 | 1,234,567.89 |
| 2024-12-01 | South | 18 | €2.50 | €45.00 | 60.0% |  |  |
| Total |  | 30 |  | €75.00 |  |  |  |

## Report

| Quarterly report 2024 |  |  |
| --- | --- | --- |
|  | Q1 | Q2 |
| Fruit | 1 | 2 |
|  | 3 | 4 |

## Text & Links

| Key | Value |
| --- | --- |
| multi | line one line two |
| pipes | a \\| b \\*c\\* \\_d\\_ \\<e> |
| link | [Example](https://example.com/x) |
| bool | TRUE |
| greek | Καλημέρα 你好 |
| negative | -1,500.50 |
| error | #DIV/0! |
`;

describe("ODS", () => {
  test("LibreOffice's book.ods is detected and gives the XLSX's markdown", () => {
    const bytes = new Uint8Array(readFileSync(join(import.meta.dir, "..", "fixtures", "documents", "odt-fidelity", "book.ods")));
    expect(sniffBytes(bytes)).toBe("ods");
    const md = convertOffice("ods", bytes).markdown;
    expect(md.startsWith(BOOK)).toBe(true);
    expect(md).toContain("\n## Wide\n\n| Col1 | Col2 |");
    expect(md.endsWith("\n## Empty\n")).toBe(true);
  });

  test("detected by its mimetype entry; a type alone does not make bytes an ODS", () => {
    const bytes = ods(sheet("S", row(cell("x"))));
    expect(sniffBytes(bytes)).toBe("ods");
    expect(detectKind({ body: strToU8("hello"), contentType: "application/vnd.oasis.opendocument.spreadsheet", charset: undefined })).toBe("unknown");
  });

  test("dates and times in ISO 8601 whatever the locale shows; booleans and numbers without stored text; links; comments left out", () => {
    const cells =
      cell("15/03/2024", 'office:value-type="date" office:date-value="2024-03-15"') +
      cell("15/03/2024 13:30", 'office:value-type="date" office:date-value="2024-03-15T13:30:00"') +
      cell("1:30 PM", 'office:value-type="time" office:time-value="PT13H30M00S"') +
      cell("36:00", 'office:value-type="time" office:time-value="PT36H00M00S"') +
      `<table:table-cell office:value-type="boolean" office:boolean-value="false"/>` +
      `<table:table-cell office:value-type="float" office:value="2.5"/>` +
      cell('<text:a xlink:href="https://example.org/a">site</text:a>') +
      cell('<text:a xlink:href="javascript:alert(1)">script</text:a>') +
      `<table:table-cell><office:annotation><text:p>COMMENT</text:p></office:annotation><text:p>noted</text:p></table:table-cell>`;
    expect(convertOffice("ods", ods(sheet("S", row(cells)))).markdown).toBe(
      "## S\n\n| 2024-03-15 | 2024-03-15 13:30:00 | 13:30:00 | 36:00:00 | FALSE | 2.5 | [site](https://example.org/a) | script | noted |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
    );
  });

  test("repeated cells and rows count as many; empty repeats, a million of them, cost nothing; a merged cell shows once", () => {
    const rows =
      row(cell("a", 'table:number-columns-repeated="3"') + `<table:table-cell table:number-columns-repeated="16380"/>`) +
      row(cell("b") + cell("c"), 'table:number-rows-repeated="2"') +
      row(cell("wide", 'table:number-columns-spanned="2"') + `<table:covered-table-cell/>` + cell("z")) +
      row(`<table:table-cell table:number-columns-repeated="1024"/>`, 'table:number-rows-repeated="1048000"');
    const started = performance.now();
    expect(convertOffice("ods", ods(sheet("S", rows))).markdown).toBe("## S\n\n| a | a | a |\n| --- | --- | --- |\n| b | c |  |\n| b | c |  |\n| wide |  | z |\n");
    expect(performance.now() - started).toBeLessThan(1000);
  });

  test("a value repeated over a million rows stops at the workbook's cell budget, with a line saying so", () => {
    const { blocks } = odsToBlocks(ods(sheet("S", row(cell("x"), `table:number-rows-repeated="${10 * MAX_SHEET_CELLS}"`))));
    const table = blocks.find((b) => b.kind === "table");
    expect(table?.kind === "table" && table.rows.length).toBe(MAX_SHEET_CELLS);
    expect(JSON.stringify(blocks[blocks.length - 1])).toContain("The rest of this sheet is not shown");
  });
});
