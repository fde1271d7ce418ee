/**
 * Hostile office inputs whose cost was not bounded by the file's size (review of c5ce1c0 and 62bf11e):
 * - ODS (ods.ts): a row repeated a million times walked all its cells, empty ones included, for every repeat (a
 *   1.4 KB file: one row of 20,000 empty cells and an `x`, repeated 1,048,576 times, took 91 s and 1.47 GB).
 * - DOCX list labels (docx-numbering.ts): every numbered item built its label, unused but for headings, from an
 *   uncapped `w:lvlText`, with letters repeated once per 26 counts (a 9 KB file of 20,000 items took 70 s and 840 MB;
 *   200 such headings gave 10 million characters of markdown).
 * - Span padding (span-padding.ts, for odt.ts and docx-blocks.ts): cells spanning a billion columns padded a million
 *   empty cells in a DOCX and ten million in an ODT (a 102 KB ODT gave 37 MB of markdown and 93 MB of HTML), each
 *   charged one character of the text budget or none.
 */
import { describe, expect, test } from "bun:test";
import { strToU8, zipSync } from "fflate";
import type { Block } from "../../src/documents/layout/model.ts";
import { docxToBlocks } from "../../src/documents/office/docx.ts";
import { odtToBlocks } from "../../src/documents/office/odt.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";
import { MAX_SHEET_CELLS } from "../../src/documents/office/sheet-table.ts";
import { TextBudget } from "../../src/documents/office/text-budget.ts";

const ODF_NS = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"',
].join(" ");
const W_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

const ods = (tables: string) =>
  zipSync({
    mimetype: [strToU8("application/vnd.oasis.opendocument.spreadsheet"), { level: 0 }],
    "content.xml": strToU8(`<office:document-content ${ODF_NS}><office:body><office:spreadsheet>${tables}</office:spreadsheet></office:body></office:document-content>`),
  });
const odt = (body: string) =>
  zipSync({
    mimetype: [strToU8("application/vnd.oasis.opendocument.text"), { level: 0 }],
    "content.xml": strToU8(`<office:document-content ${ODF_NS}><office:body><office:text>${body}</office:text></office:body></office:document-content>`),
  });
const docx = (body: string, numbering = "") =>
  zipSync({
    "word/document.xml": strToU8(`<w:document ${W_NS}><w:body>${body}</w:body></w:document>`),
    ...(numbering ? { "word/numbering.xml": strToU8(`<w:numbering ${W_NS}>${numbering}</w:numbering>`) } : {}),
  });

/** Milliseconds `run` takes. */
function timed<T>(run: () => T): { value: T; ms: number } {
  const start = performance.now();
  const value = run();
  return { value, ms: performance.now() - start };
}

/** The cells of the tables among `blocks`, and how many of them are empty. */
function tableCells(blocks: Block[]): { all: number; empty: number } {
  let all = 0;
  let empty = 0;
  for (const b of blocks) {
    if (b.kind !== "table") continue;
    for (const row of b.rows) {
      all += row.length;
      for (const cell of row) if (cell.length === 0) empty++;
    }
  }
  return { all, empty };
}

/** Characters `budget` has left (spent by the probe). */
const left = (budget: TextBudget) => budget.take("x".repeat(budget.limitChars)).length;

describe("ODS: a repeated row costs the cells it yields", () => {
  /** One sheet of a row of `empties` empty cells and an `x`, repeated `times` times. */
  const wide = (empties: number, times: number) =>
    ods(`<table:table table:name="S"><table:table-row table:number-rows-repeated="${times}">${"<table:table-cell/>".repeat(empties)}<table:table-cell office:value-type="string"><text:p>x</text:p></table:table-cell></table:table-row></table:table>`);

  test("a row's empty cells are stepped over once, not once per repeat", () => {
    // 20,000 empty cells × 50,000 repeats were a billion steps (about 5 s); now 50,000 cells yielded.
    const { value, ms } = timed(() => convertOffice("ods", wide(20_000, 50_000)));
    expect(ms).toBeLessThan(1500);
    const lines = value.markdown.split("\n");
    expect(lines.slice(0, 4)).toEqual(["## S", "", "| x |", "| --- |"]);
    expect(lines.filter((l) => l === "| x |").length).toBe(50_000);
  });

  test("a row repeated 1,048,576 times stops at the workbook's cell budget", () => {
    // 91 s and 1.47 GB before (20,000 empty cells walked for each repeat). What remains is the budget's own cost: a
    // table of a million one-cell rows, as an XLSX of a million rows gives.
    const { value, ms } = timed(() => convertOffice("ods", wide(20_000, 1_048_576)));
    expect(ms).toBeLessThan(8000);
    expect(value.markdown.split("\n").filter((l) => l === "| x |").length).toBe(MAX_SHEET_CELLS);
    expect(value.markdown.trimEnd().endsWith(`(The rest of this sheet is not shown: the workbook's tables reached ${MAX_SHEET_CELLS} cells.)`)).toBe(true);
    expect(value.markdown.length).toBeLessThan(7_000_000);
  });
});

describe("DOCX list labels: built for headings only, and short", () => {
  /** Lower letters from 32767 (1,261 letters each), shown as 5,000 `%1`s: a label of 6 million characters. */
  const HOSTILE_NUMBERING =
    `<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="32767"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="${"%1".repeat(5000)}"/></w:lvl></w:abstractNum>` +
    '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>';
  const item = (pPr = "") => `<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>${pPr}</w:pPr><w:r><w:t>x</w:t></w:r></w:p>`;

  test("list items do not build the label they do not show", () => {
    // 2,000 items took about 7 s (20,000: 70 s, 840 MB); the items are numbered as before.
    const { value, ms } = timed(() => convertOffice("docx", docx(item().repeat(2000), HOSTILE_NUMBERING)));
    expect(ms).toBeLessThan(1500);
    const lines = value.markdown.trimEnd().split("\n");
    expect(lines.length).toBe(2000);
    // Lettered items carry their label in Word's letters (one repeated), at most 32 of them: past that (32767 is
    // 1,261 g's) the number is in digits, its dot escaped.
    expect(lines[0]).toBe("- 32767\\. x");
    expect(lines[1999]).toBe("- 34766\\. x");
  });

  test("a numbered heading's label is at most 32 characters, however long its level text and letters", () => {
    // 200 headings gave 10,000,090 characters of markdown (cut at the text budget).
    const { markdown } = convertOffice("docx", docx(item('<w:outlineLvl w:val="0"/>').repeat(200), HOSTILE_NUMBERING));
    const headings = markdown.trimEnd().split("\n\n");
    expect(headings.length).toBe(200);
    // 32767 is the 1,261st round of `g`; the 200th heading counts 32966, the 1,268th round of `x`.
    expect(headings[0]).toBe(`# ${"g".repeat(32)} x`);
    expect(headings[199]).toBe(`# ${"x".repeat(32)} x`);
    expect(markdown.length).toBeLessThan(200 * 40);
  });

  test("a short label is whole", () => {
    const numbering =
      '<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="27"/><w:numFmt w:val="upperLetter"/><w:lvlText w:val="Part %1:"/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>';
    expect(convertOffice("docx", docx(item('<w:outlineLvl w:val="1"/>'), numbering)).markdown).toBe("## Part AA: x\n");
  });
});

describe("span padding: one bound for ODT and DOCX", () => {
  const odtCell = (text: string, span: string) => `<table:table-cell table:number-columns-spanned="${span}"><text:p>${text}</text:p></table:table-cell>`;
  const odtRow = (cells: string) => `<table:table><table:table-row>${cells}</table:table-row></table:table>`;
  const docxCell = (text: string, span: string) => `<w:tc><w:tcPr><w:gridSpan w:val="${span}"/></w:tcPr><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:tc>`;
  const docxTable = (rows: string[]) => `<w:tbl>${rows.map((r) => `<w:tr>${r}</w:tr>`).join("")}</w:tbl>`;

  test("ODT: a cell pads at most 1,024 columns, each charged 4 characters of the text budget", () => {
    const budget = new TextBudget(10_000);
    const { blocks } = odtToBlocks(odt(odtRow(odtCell("a", "1000000000"))), budget);
    expect(tableCells(blocks)).toEqual({ all: 1024, empty: 1023 });
    expect(left(budget)).toBe(10_000 - 1 - 1023 * 4);
  });

  test("DOCX: a cell pads at most 64 columns, each charged 4 characters of the text budget", () => {
    const budget = new TextBudget(1000);
    const { blocks } = docxToBlocks(docx(docxTable([docxCell("a", "64")])), budget);
    expect(tableCells(blocks)).toEqual({ all: 64, empty: 63 });
    expect(left(budget)).toBe(1000 - 1 - 63 * 4);
  });

  test("ODT: a document's spans pad at most 100,000 cells", () => {
    // 100 rows of 1,000 cells each spanning a billion columns: ten million padding cells before (cut at the text
    // budget; 300 rows gave 37 MB of markdown and 93 MB of HTML).
    const rows = `<table:table-row>${odtCell("a", "1000000000").repeat(1000)}</table:table-row>`.repeat(100);
    const bytes = odt(`<table:table>${rows}</table:table>`);
    expect(tableCells(odtToBlocks(bytes).blocks)).toEqual({ all: 100_000 + 100_000, empty: 100_000 });
    const { markdown, html, fields } = convertOffice("odt", bytes);
    expect(fields?.warning).toBeUndefined();
    expect(markdown.length).toBeLessThan(2_000_000);
    expect(html.length).toBeLessThan(3_000_000);
  });

  test("DOCX: a document's spans pad at most 100,000 cells, all its tables together", () => {
    // 20,000 small tables, each a 64-column cell over a cell: a million padding cells before (10.9 MB of markdown).
    const bytes = docx(docxTable([docxCell("a", "64"), docxCell("b", "1")]).repeat(20_000));
    expect(tableCells(docxToBlocks(bytes).blocks)).toEqual({ all: 40_000 + 100_000, empty: 100_000 });
    const { markdown, fields } = convertOffice("docx", bytes);
    expect(fields?.warning).toBeUndefined();
    expect(markdown.length).toBeLessThan(3_000_000);
  });
});

test("DOC list letters: a crafted start near 2^31 writes at most a label's length of letters (it asked for 82 million)", async () => {
  const { formatNumber, MAX_LABEL_CHARS } = await import("../../src/documents/office/doc-lists.ts");
  expect(formatNumber(28, 4)).toBe("bb");
  const started = performance.now();
  const label = formatNumber(2 ** 31 - 1, 4);
  expect(performance.now() - started).toBeLessThan(100);
  expect(label.length).toBe(MAX_LABEL_CHARS);
});
