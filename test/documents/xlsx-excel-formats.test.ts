/**
 * Number formats as Excel writes them (documents/office/number-format.ts, xlsx-values.ts), from a review of
 * workbooks saved by Excel, Google Sheets, openpyxl and the .NET SDK: Excel's "Special" formats (Zip+4, phone, SSN)
 * fill their digit placeholders from the right across the literal text between them; conditions (`[<=9999999]`,
 * `[=1]`) choose the section; a section of literal text shows it; General switches to scientific notation where
 * Excel does, but keeps integers of up to 15 digits whole; scientific formats take the integer placeholders' count as
 * the exponent's multiple (engineering notation); ISO 8601 date cells (`t="d"`, Excel's Strict save) show as any
 * dated cell, and one before the date system starts as it is stored. XLS shares the formats.
 */
import { describe, expect, test } from "bun:test";
import { convertOffice } from "../../src/documents/office/readers.ts";
import { numberText } from "../../src/documents/office/xlsx-values.ts";
import { bof, boundSheet, compoundFile, eof, record } from "../fixtures/documents/biff-workbook.ts";
import { buildXlsx } from "../fixtures/documents/fixtures.ts";

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const ZIP4 = "00000\\-0000";
const PHONE = "[<=9999999]###\\-####;\\(###\\)\\ ###\\-####";
const SSN = "000\\-00\\-0000";
const show = (value: number | string, code: string) => numberText(String(value), code, false);

/** The first sheet's table of a workbook whose first sheet is `sheet`, with the given workbook and styles parts. */
function table(sheet: string, extra: Record<string, string>): string {
  const md = convertOffice("xlsx", buildXlsx({ 1: `<worksheet ${NS}><sheetData>${sheet}</sheetData></worksheet>`, 2: `<worksheet ${NS}><sheetData/></worksheet>` }, extra)).markdown;
  return md.split("## Notes & Links")[0]!.replace("## Budget", "").trim();
}

const styles = (codes: string[], ids: number[]) =>
  `<styleSheet ${NS}><numFmts count="${codes.length}">${codes.map((c, i) => `<numFmt numFmtId="${164 + i}" formatCode="${c.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;")}"/>`).join("")}</numFmts>` +
  `<cellXfs count="${ids.length + 1}"><xf numFmtId="0"/>${ids.map((id) => `<xf numFmtId="${id}" applyNumberFormat="1"/>`).join("")}</cellXfs></styleSheet>`;

describe("Excel's Special formats: placeholders filled from the right across literal text", () => {
  test("Zip+4, phone number and SSN, as Excel shows them", () => {
    expect([show(981011234, ZIP4), show(2134, ZIP4)]).toEqual(["98101-1234", "00000-2134"]);
    expect([show(4155550100, PHONE), show(5550100, PHONE)]).toEqual(["(415) 555-0100", "555-0100"]);
    expect([show(123456789, SSN), show(78051120, SSN)]).toEqual(["123-45-6789", "078-05-1120"]);
  });

  test("the leftmost placeholder takes the digits left over; # shows nothing and ? a space for a missing digit", () => {
    expect(show(1234567, "0\\-00")).toBe("12345-67");
    expect(show(12, "###\\-##")).toBe("-12");
    expect(show(5, "#,##0")).toBe("5");
    expect(show(1234567, '#,##0 "units"')).toBe("1,234,567 units");
    expect(show(42, "Ref\\ 0000")).toBe("Ref 0042");
  });

  test("in a workbook: the cells of the review's repro (styles.xml formats 164–166)", () => {
    const cells = `<row r="1"><c r="A1" s="1"><v>981011234</v></c><c r="B1" s="2"><v>4155550100</v></c><c r="C1" s="3"><v>123456789</v></c></row>`;
    expect(table(cells, { "xl/styles.xml": styles([ZIP4, PHONE, SSN], [164, 165, 166]) })).toBe("| 98101-1234 | (415) 555-0100 | 123-45-6789 |\n| --- | --- | --- |");
  });
});

describe("sections and their conditions", () => {
  test("a condition chooses the section; the next section without one takes the rest", () => {
    const words = '[=1]"one";[=2]"two";"many"';
    expect([show(1, words), show(2, words), show(7, words)]).toEqual(["one", "two", "many"]);
    const size = '[>=1000000]0.0,,"M";[>=1000]0.0,"K";0';
    expect([show(2500000, size), show(2500, size), show(5, size), show(-5, size)]).toEqual(["2.5M", "2.5K", "5", "-5"]);
  });

  test("a section for negatives carries the sign itself: a second section, or a condition admitting only negatives", () => {
    expect(show(-5, "[<0]\\(0\\);0")).toBe("(5)");
    expect(show(-5, "0;\\(0\\)")).toBe("(5)");
    expect(show(-1234.5, "#,##0.00;(#,##0.00)")).toBe("(1,234.50)");
    expect(show(-5, "[<=9999999]0;0")).toBe("-5"); // admits positives too: the minus is shown
  });

  test("a zero section, an empty section (hidden values), a text section numbers never use", () => {
    expect(show(0, '0;-0;"zero"')).toBe("zero");
    expect(show(0, "0;-0;;@")).toBe("");
    expect(show(5, ";;;")).toBe("");
    expect(show(5, '0.0;"neg";0;"text: "@')).toBe("5.0");
    expect(show(5, '0.0;@')).toBe("5.0");
  });

  test("quoted text may hold a semicolon; General inside a section; unquoted locale letters are not text to show", () => {
    expect(show(3, '0" a;b"')).toBe("3 a;b");
    expect(show(5, '"Total: "General')).toBe("Total: 5");
    expect(show(-5, "General;[Red]\\-General")).toBe("-5");
    expect(show(5, "aaa")).toBe("5");
  });

  test("what was right stays right: decimals, units, currency, percent, scaling, scientific, fractions", () => {
    expect(show(3, '0.0 "kg"')).toBe("3.0 kg");
    expect(show(-1234.5, '"$"#,##0.00')).toBe("-$1,234.50");
    expect(show(1234.5, "[$€-407] #,##0.00")).toBe("€ 1,234.50");
    expect(show(0.125, "0.0%")).toBe("12.5%");
    expect(show(1234567, "#,##0,\\K")).toBe("1,235K");
    expect(show(12345678, "0.00E+00")).toBe("1.23E+07");
    expect(show(0.000123, "0.00E-00")).toBe("1.23E-04");
    expect(show(123, "0.00E-00")).toBe("1.23E02");
    expect(show(0.5, "# ?/?")).toBe("0.5");
    expect(show(-0.001, "0.00")).toBe("0.00");
  });
});

describe("scientific notation: the integer placeholders' count is the exponent's multiple", () => {
  test("engineering notation (##0.0E+0, built-in format 48), as Excel shows it", () => {
    const eng = (n: number) => show(n, "##0.0E+0");
    expect([eng(12345), eng(1234567), eng(Math.PI * 1e6), eng(Math.PI * 1e5), eng(Math.PI * 1e4), eng(Math.PI * 1e-4), eng(0)]).toEqual(["12.3E+3", "1.2E+6", "3.1E+6", "314.2E+3", "31.4E+3", "314.2E-6", "0.0E+0"]);
    // A rounding that carries moves to the next power, or gains a digit within the same one.
    expect([eng(999.96), eng(99.96), eng(-12345)]).toEqual(["1.0E+3", "100.0E+0", "-12.3E+3"]);
  });

  test("the mantissa is never padded with leading zeros (was 01.23E+4, 001.2E+4, 05E+00)", () => {
    expect(show(12345, "00.00E+0")).toBe("1.23E+4");
    expect(show(123456, "00.00E+0")).toBe("12.35E+4");
    expect(show(12345, "000.0E+0")).toBe("12.3E+3");
    expect(show(5, "00E+00")).toBe("5E+00");
    expect(show(12345678, "0.00E+00")).toBe("1.23E+07");
  });
});

describe("General", () => {
  test("integers in full up to 15 digits, as stored: EAN-13 barcodes, account numbers (were 5.90123E+12)", () => {
    expect(show(5901234123457, "General")).toBe("5901234123457");
    expect(show(123456789012, "General")).toBe("123456789012");
    expect(show(1e12, "General")).toBe("1000000000000");
    expect(show(-123456789012345, "General")).toBe("-123456789012345");
  });

  test("past 15 integer digits, past 11 with a fraction, or below 0.0001, in scientific notation as Excel shows it", () => {
    expect(show("123456789012345680", "General")).toBe("1.23457E+17");
    expect(show(1234567890123456, "General")).toBe("1.23457E+15");
    expect(show(123456789012.5, "General")).toBe("1.23457E+11");
    expect(show("1.23e-7", "General")).toBe("1.23E-07");
    expect(show(-1.5e20, "General")).toBe("-1.5E+20");
  });

  test("11 digits or fewer, and 0.0001 on, as they are (without float noise)", () => {
    expect([show(12345678901, "General"), show(12345678901.5, "General"), show(0.0001, "General"), show(0.30000000000000004, "General"), show(-42.5, "General")]).toEqual(["12345678901", "12345678901.5", "0.0001", "0.3", "-42.5"]);
  });
});

describe("ISO 8601 date cells (t=\"d\")", () => {
  const iso = (value: string, s: number) => `<c r="A1" s="${s}" t="d"><v>${value}</v></c>`;

  test("through their day count and format, as any dated cell: formats 14 and 18, 22, a custom date", () => {
    const sheet = `<row r="1">${iso("2024-01-15T00:00:00", 1)}<c r="B1" s="2" t="d"><v>1899-12-30T13:30:00</v></c><c r="C1" s="3" t="d"><v>2024-01-15T13:30:00</v></c><c r="D1" s="4" t="d"><v>2024-02-29</v></c></row>`;
    const st = styles(["d-mmm-yyyy"], [14, 18, 22, 164]);
    expect(table(sheet, { "xl/styles.xml": st })).toBe("| 2024-01-15 | 13:30:00 | 2024-01-15 13:30:00 | 2024-02-29 |\n| --- | --- | --- | --- |");
  });

  test("a date before the date system starts, as stored under any format, never as a time of day (was 00:00:00, 1899-12-31)", () => {
    const dates = (book1904: boolean, cells: [string, number][]) =>
      table(
        `<row r="1">${cells.map(([v, st], i) => `<c r="${"ABCDEF"[i]}1" s="${st}" t="d"><v>${v}</v></c>`).join("")}</row>`,
        {
          ...(book1904 ? { "xl/workbook.xml": `<workbook ${NS} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><workbookPr date1904="1"/><sheets><sheet name="Budget" sheetId="1" r:id="rId1"/></sheets></workbook>` } : {}),
          "xl/styles.xml": styles([], [14, 18, 22]),
        },
      );
    expect(dates(false, [["1850-06-01", 0], ["1850-06-01", 1], ["1850-06-01T13:30:00", 0], ["1850-06-01T13:30:00", 2], ["1899-12-29T23:59:59.5", 3]])).toBe(
      "| 1850-06-01 | 1850-06-01 | 1850-06-01 13:30:00 | 1850-06-01 13:30:00 | 1899-12-29 23:59:59 |\n| --- | --- | --- | --- | --- |",
    );
    expect(dates(true, [["1903-05-05", 0], ["1903-05-05T08:00:00", 1], ["1904-01-02", 1]])).toBe("| 1903-05-05 | 1903-05-05 08:00:00 | 1904-01-02 |\n| --- | --- | --- |");
    // A time on 1899-12-30 is a time of day alone (the day Excel and LibreOffice put one on), in either system.
    expect(dates(true, [["1899-12-30T13:30:00", 0]])).toBe("| 13:30:00 |\n| --- |");
  });

  test("under General the date in ISO 8601; a 1904 workbook; text that is no date shows as it is", () => {
    const book = `<workbook ${NS} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><workbookPr date1904="1"/><sheets><sheet name="Budget" sheetId="1" r:id="rId1"/></sheets></workbook>`;
    const sheet = `<row r="1">${iso("2024-01-15T00:00:00", 1)}<c r="B1" t="d"><v>2024-01-15T08:00:00</v></c><c r="C1" t="d"><v>soon</v></c></row>`;
    expect(table(sheet, { "xl/workbook.xml": book, "xl/styles.xml": styles([], [14]) })).toBe("| 2024-01-15 | 2024-01-15 08:00:00 | soon |\n| --- | --- | --- |");
  });
});

describe("XLS shares the formats", () => {
  const u16 = (n: number) => [n & 0xff, (n >> 8) & 0xff];
  const format = (id: number, code: string) => record(0x041e, [...u16(id), ...u16(code.length), 0, ...Buffer.from(code, "latin1")]);
  const xf = (formatId: number) => record(0x00e0, [0, 0, ...u16(formatId), ...new Array(16).fill(0)]);
  const number = (row: number, column: number, xfIndex: number, value: number) => {
    const b = Buffer.alloc(8);
    b.writeDoubleLE(value);
    return record(0x0203, [...u16(row), ...u16(column), ...u16(xfIndex), ...b]);
  };

  test("a phone number, a Zip+4 and an SSN through FORMAT and XF records", () => {
    const globals = [format(164, ZIP4), format(165, PHONE), format(166, SSN), xf(0), xf(164), xf(165), xf(166)];
    const cells = [number(0, 0, 1, 981011234), number(0, 1, 2, 4155550100), number(0, 2, 3, 123456789), number(1, 0, 0, 123456789012345680)];
    const sheetAt = bof(5).length + globals.reduce((n, r) => n + r.length, 0) + boundSheet(0, "Sheet1").length + eof().length;
    const bytes = compoundFile(new Uint8Array(Buffer.concat([bof(5), ...globals, boundSheet(sheetAt, "Sheet1"), eof(), bof(0x10), ...cells, eof()])));
    expect(convertOffice("xls", bytes).markdown).toBe("## Sheet1\n\n| 98101-1234 | (415) 555-0100 | 123-45-6789 |\n| --- | --- | --- |\n| 1.23457E+17 |  |  |\n");
  });
});
