/**
 * XLS workbooks built record by record (documents/office/xls.ts, biff-records.ts, xls-hyperlinks.ts): a
 * compound file around a `Workbook` stream of BIFF8 records, so each test says exactly what the file holds. Sheets
 * whose BOFs are never closed stay linear in time; sheet entries past the sheet limit are left out with a line;
 * HLINK records give web and mail links, and lying or unwanted ones none.
 */
import { describe, expect, test } from "bun:test";
import { convertOffice } from "../../src/documents/office/readers.ts";
import { MAX_SHEETS } from "../../src/documents/office/sheet-table.ts";
import { bof, boundSheet, compoundFile, eof, record } from "../fixtures/documents/biff-workbook.ts";

const concat = (parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));
const u16 = (n: number) => [n & 0xff, (n >> 8) & 0xff];
const u32 = (n: number) => [...u16(n & 0xffff), ...u16(n >>> 16)];
const utf16 = (s: string) => [...Buffer.from(s, "utf16le")];

const label = (row: number, column: number, text: string) => record(0x0204, [...u16(row), ...u16(column), 0, 0, ...u16(text.length), 1, ...utf16(text)]);

/** A workbook of worksheets, each given as its records between its BOF and EOF. */
function workbook(sheets: { name: string; records: Uint8Array[] }[]): Uint8Array {
  const globalsLength = bof(5).length + sheets.reduce((n, s) => n + boundSheet(0, s.name).length, 0) + eof().length;
  const bodies = sheets.map((s) => concat([bof(0x10), ...s.records, eof()]));
  let offset = globalsLength;
  const entries = sheets.map((s, i) => {
    const entry = boundSheet(offset, s.name);
    offset += bodies[i]!.length;
    return entry;
  });
  return compoundFile(concat([bof(5), ...entries, eof(), ...bodies]));
}

/** HLINK (MS-XLS 2.4.140) on a cell: a display name and, per `moniker`, a URL moniker or a moniker saved as a string. */
function hlink(row: number, column: number, url: string, options: { moniker?: "url" | "string" | "file"; displayLength?: number } = {}): Uint8Array {
  const URL_MONIKER = [0xe0, 0xc9, 0xea, 0x79, 0xf9, 0xba, 0xce, 0x11, 0x8c, 0x82, 0x00, 0xaa, 0x00, 0x4b, 0xa9, 0x0b];
  const FILE_MONIKER = [0x03, 0x03, 0, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0x46];
  const display = "shown";
  const kind = options.moniker ?? "url";
  const flags = 0x17 | (kind === "string" ? 0x100 : 0);
  const target =
    kind === "string"
      ? [...u32(url.length + 1), ...utf16(url + "\0")]
      : [...(kind === "file" ? FILE_MONIKER : URL_MONIKER), ...u32((url.length + 1) * 2), ...utf16(url + "\0")];
  return record(0x01b8, [
    ...u16(row), ...u16(row), ...u16(column), ...u16(column),
    ...URL_MONIKER.map((b, i) => (i === 0 ? 0xd0 : b)), // the HLINK's own CLSID (StdHlink)
    ...u32(2), ...u32(flags),
    ...u32(options.displayLength ?? display.length + 1), ...utf16(display + "\0"),
    ...target,
  ]);
}

const markdown = (bytes: Uint8Array) => convertOffice("xls", bytes).markdown;

describe("crafted XLS: sheets", () => {
  test("20,000 sheet entries at BOFs that are never closed: linear, not a re-read of the stream per sheet", () => {
    const sheets = 20_000;
    const sheetBof = bof(0x10);
    const globalsLength = bof(5).length + sheets * boundSheet(0, "A").length + eof().length;
    const entries = Array.from({ length: sheets }, (_, i) => boundSheet(globalsLength + i * sheetBof.length, "A"));
    const bytes = compoundFile(concat([bof(5), ...entries, eof(), ...new Array(sheets).fill(sheetBof)]));
    const started = performance.now();
    const md = markdown(bytes);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(md).toContain("(The rest of this workbook is not shown: its sheets run into one another (BOF records without their EOF).)");
    expect(md.split("## A").length - 1).toBeLessThan(10);
  });

  test("well-formed sheets are each read in full: the allowance of records never cuts them", () => {
    const sheets = Array.from({ length: 300 }, (_, i) => ({ name: `S${i}`, records: [label(0, 0, `head ${i}`), label(1, 0, `value ${i}`)] }));
    const md = markdown(workbook(sheets));
    expect(md).not.toContain("not shown");
    expect(md).toContain("## S299\n\n| head 299 |\n| --- |\n| value 299 |");
  });

  test(`more than ${MAX_SHEETS} sheets: the first ${MAX_SHEETS}, then a line saying the rest is left out`, () => {
    const sheets = Array.from({ length: MAX_SHEETS + 5 }, (_, i) => ({ name: `S${i}`, records: [] }));
    const started = performance.now();
    const md = markdown(workbook(sheets));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(md).toContain(`## S${MAX_SHEETS - 1}`);
    expect(md).not.toContain(`## S${MAX_SHEETS}\n`);
    expect(md.trimEnd().endsWith(`(The rest of this workbook is not shown: it has more than ${MAX_SHEETS} sheets.)`)).toBe(true);
  });
});

describe("crafted XLS: hyperlinks", () => {
  test("URL monikers and monikers saved as strings link their cell; files, scripts and lying lengths do not", () => {
    const cells = ["web", "mail", "string", "file", "script", "lying"].map((t, i) => label(i, 0, t));
    const links = [
      hlink(0, 0, "https://example.com/a?b=1"),
      hlink(1, 0, "mailto:team@example.com"),
      hlink(2, 0, "http://example.org/", { moniker: "string" }),
      hlink(3, 0, "C:\\secret.txt", { moniker: "file" }),
      hlink(4, 0, "javascript:alert(1)"),
      hlink(5, 0, "https://example.com/lie", { displayLength: 0x7fffffff }),
      hlink(40, 3, "https://example.com/nowhere"), // no cell there: nothing to attach it to
    ];
    const started = performance.now();
    const md = markdown(workbook([{ name: "Links", records: [...cells, ...links] }]));
    expect(performance.now() - started).toBeLessThan(2000);
    expect(md).toBe(
      [
        "## Links",
        "",
        "| [web](https://example.com/a?b=1) |",
        "| --- |",
        "| [mail](mailto:team@example.com) |",
        "| [string](http://example.org/) |",
        "| file |",
        "| script |",
        "| lying |",
        "",
      ].join("\n"),
    );
  });

  test("a truncated HLINK record is a link left out, not a failed workbook", () => {
    const full = hlink(0, 0, "https://example.com/x");
    for (const cut of [8, 31, 40, 60]) {
      const data = full.subarray(4, 4 + cut);
      const short = record(0x01b8, [...data]);
      expect(markdown(workbook([{ name: "S", records: [label(0, 0, "x"), short] }]))).toBe("## S\n\n| x |\n| --- |\n");
    }
  });
});
