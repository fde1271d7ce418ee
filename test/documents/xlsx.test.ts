/**
 * XLSX workbooks (documents/office/xlsx*.ts), as upstream converts them: each sheet a `## name` heading and a
 * table; values as the sheet shows them (number formats, dates as ISO 8601, booleans, errors, formulas' cached
 * results, hyperlinks); empty rows and columns left out; the writers' variants (prefixed elements, cells without
 * references, rich and phonetic text, the 1904 date system); and crafted files (a sparse sheet spanning the whole
 * grid, a diagonal of a thousand values, unterminated XML, thousands of sheet entries naming one part, a format
 * asking for a hundred decimals, a sheet of blank strings) bounded in size and time.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sniffBytes } from "../../src/documents/detect.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";
import { cellBudget, MAX_SHEET_CELLS as MAX_XLSX_CELLS, sheetBlocks, type SheetCell } from "../../src/documents/office/sheet-table.ts";
import { formatCode, numberText } from "../../src/documents/office/xlsx-values.ts";
import { buildDocx, buildXlsx } from "../fixtures/documents/fixtures.ts";
import { startDocumentSite, type DocumentSite } from "../fixtures/documents/server.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const markdownOf = (sheet1: string, extra: Record<string, string> = {}) => convertOffice("xlsx", buildXlsx({ 1: sheet1, 2: `<worksheet ${NS}><sheetData/></worksheet>` }, extra)).markdown;
/** The first sheet's table: the lines between its heading and the next sheet's. */
const firstTable = (md: string) => md.split("## Notes & Links")[0]!.replace("## Budget", "").trim();

describe("XLSX through POST /v2/scrape", () => {
  let h: Harness;
  let site: DocumentSite;
  beforeAll(async () => {
    site = await startDocumentSite();
    h = await createHarness();
  }, 30_000);
  afterAll(async () => {
    await h?.close();
    site?.stop();
  });

  test("a workbook served as application/octet-stream: each sheet a heading and a table, the title from its properties", async () => {
    const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/budget.xlsx`, formats: ["markdown", "html", "links"] } });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body.data.markdown).toBe(
      [
        "## Budget",
        "",
        "| Item | Cost | Due | Share | Paid |",
        "| --- | --- | --- | --- | --- |",
        "| Laptops | $12,500.00 | 2024-01-01 | 63% | TRUE |",
        "| Desks | $7,500.50 | 2024-02-01 | 38% | FALSE |",
        "| Total | $20,000.50 |  |  |  |",
        "| [Supplier site](https://supplier.example/catalogue) |  |  |  |  |",
        "",
        "## Notes & Links",
        "",
        "| Notes |",
        "| --- |",
        "| Keep receipts \\| always |",
        "| #DIV/0! |",
        "",
        "## Empty",
        "",
      ].join("\n"),
    );
    expect(body.data.html).toContain("<h2>Budget</h2>");
    expect(body.data.html).toContain("<th>Item</th>");
    expect(body.data.links).toContain("https://supplier.example/catalogue");
    expect(body.data.metadata).toMatchObject({ title: "Office Budget 2024", creditsUsed: 1, statusCode: 200 });
  });
});

describe("XLSX cells", () => {
  test("the bytes say XLSX whatever the name or type; a DOCX stays a DOCX", () => {
    expect(sniffBytes(buildXlsx())).toBe("xlsx");
    expect(sniffBytes(buildDocx())).toBe("docx");
  });

  test("prefixed elements (x:) and rows and cells without references, as some libraries write them", () => {
    const sheet = `<x:worksheet xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><x:sheetData><x:row><x:c t="inlineStr"><x:is><x:t>Name</x:t></x:is></x:c><x:c t="inlineStr"><x:is><x:t>Qty</x:t></x:is></x:c></x:row><x:row><x:c t="str"><x:f>UPPER("a")</x:f><x:v>A</x:v></x:c><x:c><x:v>3</x:v></x:c></x:row></x:sheetData></x:worksheet>`;
    expect(firstTable(markdownOf(sheet))).toBe("| Name | Qty |\n| --- | --- |\n| A | 3 |");
  });

  test("rich text runs are joined; phonetic guides (rPh) are not text", () => {
    const sst = `<sst ${NS}><si><r><t>Bold</t></r><r><t xml:space="preserve"> and plain</t></r></si><si><t>東京</t><rPh sb="0" eb="2"><t>トウキョウ</t></rPh></si></sst>`;
    const sheet = `<worksheet ${NS}><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row></sheetData></worksheet>`;
    expect(firstTable(markdownOf(sheet, { "xl/sharedStrings.xml": sst }))).toBe("| Bold and plain | 東京 |\n| --- | --- |");
  });

  test("number formats: dates in both date systems, times, elapsed hours, decimals, units, accounting negatives, float noise", () => {
    expect(numberText("45292.5625", "m/d/yyyy h:mm", false)).toBe("2024-01-01 13:30:00");
    expect(numberText("43830", "yyyy-mm-dd", true)).toBe("2024-01-01");
    expect(numberText("0.5625", "h:mm", false)).toBe("13:30:00");
    expect(numberText("1.5", "[h]:mm:ss", false)).toBe("36:00:00");
    expect(numberText("60", "d-mmm-yy", false)).toBe("1900-02-29"); // the 1900 system's phantom leap day
    expect(numberText("3", '0.0 "kg"', false)).toBe("3.0 kg");
    expect(numberText("-1234.5", "#,##0.00;(#,##0.00)", false)).toBe("(1,234.50)");
    expect(numberText("-1234.5", '"$"#,##0.00', false)).toBe("-$1,234.50");
    expect(numberText("1234.5", "[$€-407] #,##0.00", false)).toBe("€ 1,234.50");
    expect(numberText("12345678", "0.00E+00", false)).toBe("1.23E+07");
    expect(numberText("0.30000000000000004", "General", false)).toBe("0.3");
    expect(numberText("0.5", "# ?/?", false)).toBe("0.5"); // fractions are not followed: the number itself
    // Optional decimals (#) show only when not zero; 0 decimals always.
    expect([numberText("1.5", "#.##", false), numberText("1", "#.##", false), numberText("2", "0.0#", false), numberText("3.14159", "0.###", false)]).toEqual(["1.5", "1.", "2.0", "3.142"]);
  });

  test("AM/PM times are times (built-ins 18 and 19 too), shown on the 24-hour clock", () => {
    expect(numberText("0.5625", "h:mm\\ AM/PM", false)).toBe("13:30:00");
    expect(numberText("0.5625", formatCode(18, new Map()), false)).toBe("13:30:00");
    expect(numberText("0.37881944444", formatCode(19, new Map()), false)).toBe("09:05:30");
    expect(numberText("0.5625", "h:mm A/P", false)).toBe("13:30:00");
    expect(numberText("45292.5625", "m/d/yyyy h:mm AM/PM", false)).toBe("2024-01-01 13:30:00");
  });

  test("leading zeros, thousands scaling by trailing commas, optional integer digits", () => {
    expect(numberText("2134", "00000", false)).toBe("02134");
    expect(numberText("7.5", "000.00", false)).toBe("007.50");
    expect(numberText("1234567", "#,##0,\\K", false)).toBe("1,235K");
    expect(numberText("999", '#,##0,"K"', false)).toBe("1K");
    expect(numberText("2500000", '0.0,," M"', false)).toBe("2.5 M");
    expect(numberText("-2500000", '0.0,," M"', false)).toBe("-2.5 M");
    expect(numberText("0.5", "#.00", false)).toBe(".50");
    expect(numberText("1234.5", "#,##0.00", false)).toBe("1,234.50");
  });

  test("a format asking for more decimals or digits than a double holds: zeros past 15 digits, at most 30 places, no RangeError", () => {
    expect(numberText("1234567.891", `#,##0.${"0".repeat(101)}`, false)).toBe(`1,234,567.891${"0".repeat(27)}`);
    expect(numberText("12345.678", `0.${"0".repeat(120)}E+${"0".repeat(100)}`, false)).toBe(`1.2345678${"0".repeat(23)}E+${"0".repeat(29)}4`);
    expect(numberText("2134", "0".repeat(200), false)).toBe(`${"0".repeat(26)}2134`);
    expect(numberText("2134", "0".repeat(300), false)).toBe("2134"); // past MS-XLS's 255 characters: not followed
  });

  test("a workbook in the 1904 date system", () => {
    const sheet = `<worksheet ${NS}><sheetData><row r="1"><c r="A1" s="2"><v>43830</v></c></row></sheetData></worksheet>`;
    const book = `<workbook ${NS} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><workbookPr date1904="1"/><sheets><sheet name="Budget" sheetId="1" r:id="rId1"/></sheets></workbook>`;
    expect(firstTable(markdownOf(sheet, { "xl/workbook.xml": book }))).toBe("| 2024-01-01 |\n| --- |");
  });
});

describe("crafted workbooks", () => {
  test("a value in A1 and one in XFD1048576: two rows of two columns, not the whole grid", () => {
    const sheet = `<worksheet ${NS}><sheetData><row r="1"><c r="A1"><v>1</v></c></row><row r="1048576"><c r="XFD1048576"><v>2</v></c></row></sheetData></worksheet>`;
    expect(firstTable(markdownOf(sheet))).toBe("| 1 |  |\n| --- | --- |\n|  | 2 |");
  });

  test("a diagonal of 1,001 values (a million cells of table) stops at the cell limit and says so", () => {
    const cells = Array.from({ length: 1001 }, (_, i) => `<row r="${i + 1}"><c r="${column(i)}${i + 1}"><v>${i}</v></c></row>`).join("");
    const started = performance.now();
    const md = markdownOf(`<worksheet ${NS}><sheetData>${cells}</sheetData></worksheet>`);
    expect(performance.now() - started).toBeLessThan(20_000);
    const rows = md.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| ---"));
    expect(rows.length * 1001).toBeLessThanOrEqual(MAX_XLSX_CELLS);
    expect(rows.length).toBe(Math.floor(MAX_XLSX_CELLS / 1001));
    expect(md).toContain(`(The rest of this sheet is not shown: the workbook's tables reached ${MAX_XLSX_CELLS} cells.)`);
  });

  test("unterminated cells and strings end the scan instead of searching the rest of the part again and again", () => {
    const open = `<worksheet ${NS}><sheetData><row r="1"><c r="A1"><v>5</v></c>${"<c r=\"B1\"><v>1".repeat(200_000)}`;
    const sst = `<sst ${NS}>${"<si><t>x".repeat(200_000)}`;
    const started = performance.now();
    const md = markdownOf(open, { "xl/sharedStrings.xml": sst });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(firstTable(md)).toBe("| 5 |\n| --- |");
  });

  test("5,000 sheet entries naming one part: the part is read and shown once", () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => `<row r="${i + 1}"><c r="A${i + 1}" t="inlineStr"><is><t> </t></is></c></row>`).join("");
    const sheet = `<worksheet ${NS}><sheetData><row r="1"><c r="B1"><v>1</v></c></row>${rows}</sheetData></worksheet>`;
    const entries = Array.from({ length: 5000 }, (_, i) => `<sheet name="S${i}" sheetId="${i + 1}" r:id="rId1"/>`).join("");
    const book = `<workbook ${NS} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>${entries}</sheets></workbook>`;
    const started = performance.now();
    const md = markdownOf(sheet, { "xl/workbook.xml": book });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(md).toBe("## S0\n\n| 1 |\n| --- |\n");
  });

  test("a format with 101 decimals (toFixed's RangeError was a 500): the number to 30 places", () => {
    const styles = `<styleSheet ${NS}><numFmts count="1"><numFmt numFmtId="164" formatCode="#,##0.${"0".repeat(101)}"/></numFmts><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="164"/></cellXfs></styleSheet>`;
    const sheet = `<worksheet ${NS}><sheetData><row r="1"><c r="A1" s="1"><v>1234567.891</v></c></row></sheetData></worksheet>`;
    const started = performance.now();
    expect(firstTable(markdownOf(sheet, { "xl/styles.xml": styles }))).toBe(`| 1,234,567.891${"0".repeat(27)} |\n| --- |`);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  test("blank strings count against the cell budget while they are read: a sheet of them cannot be read without end", () => {
    let offered = 0;
    function* blanks(): Generator<SheetCell> {
      for (let row = 1; row <= 3 * MAX_XLSX_CELLS; row++, offered++) yield { row, column: 0, text: " " };
    }
    const started = performance.now();
    const blocks = sheetBlocks("Blank", blanks(), cellBudget());
    expect(performance.now() - started).toBeLessThan(2000);
    expect(offered).toBeLessThanOrEqual(MAX_XLSX_CELLS + 1);
    expect(blocks.at(-1)).toEqual({ kind: "paragraph", content: [{ text: `(The rest of this sheet is not shown: the workbook's tables reached ${MAX_XLSX_CELLS} cells.)` }] });
  });

  test("a shared string index past the list, a reference that is not a cell, a negative style: no crash, nothing invented", () => {
    const sheet = `<worksheet ${NS}><sheetData><row r="1"><c r="A1" t="s"><v>99999</v></c><c r="ZZZZ1"><v>7</v></c><c r="C1" s="-4"><v>8</v></c></row></sheetData></worksheet>`;
    expect(firstTable(markdownOf(sheet))).toBe("| 7 | 8 |\n| --- | --- |");
  });
});

/** The column letters of a 0-based index (0 → A, 26 → AA). */
function column(i: number): string {
  let s = "";
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}
