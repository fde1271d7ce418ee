/**
 * XLS workbooks (Excel 97–2003: BIFF8 records in a compound file; documents/office/cfb.ts, biff-records.ts,
 * xls.ts). The fixtures were written by LibreOffice from one spreadsheet (test/fixtures/documents/budget.fods:
 * `soffice --headless --convert-to xls budget.fods`, and `--convert-to xlsx` for budget-libreoffice.xlsx), so
 * the XLS reader and the XLSX reader must tell the same story of the same sheets; so must formats.xls and
 * formats-libreoffice.xlsx, from test/fixtures/documents/formats.fods the same way (number formats LibreOffice
 * shows as 02134, 1,235K, 2.5 M and 1:30 PM, and web, mail and internal links). Crafted files (a looping
 * allocation chain, a truncated file, an Excel 5.0 workbook, a password-protected one) are clear 422s; those built
 * record by record are in xls-crafted.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sniffBytes } from "../../src/documents/detect.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";
import { startDocumentSite, type DocumentSite } from "../fixtures/documents/server.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const dir = join(import.meta.dir, "..", "fixtures", "documents");
const xls = new Uint8Array(readFileSync(join(dir, "budget.xls")));
const xlsx = new Uint8Array(readFileSync(join(dir, "budget-libreoffice.xlsx")));

const EXPECTED = [
  "## Budget",
  "",
  "| Item | Cost | Due | Share | Paid | Units |",
  "| --- | --- | --- | --- | --- | --- |",
  "| Laptops | $12,500.00 | 2024-01-01 | 62.5% | TRUE | 4 |",
  "| Desks | $7,500.50 | 2024-02-01 | 37.5% | FALSE | 123456789 |",
  "| Total | $20,000.50 |  |  |  | 0.3 |",
  "| Übersicht “café” — 東京 |  |  |  |  |  |",
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
].join("\n");

/** A copy of `bytes` with the first occurrence of `from` replaced by `to` (same length). */
function patched(bytes: Uint8Array, from: number[], to: number[]): Uint8Array {
  const out = bytes.slice();
  const at = Buffer.from(out).indexOf(Buffer.from(from));
  expect(at).toBeGreaterThan(0);
  out.set(to, at);
  return out;
}

const failure = (bytes: Uint8Array) => {
  try {
    convertOffice("xls", bytes);
  } catch (err) {
    return err as { code: string; status: number; message: string };
  }
  throw new Error("converted");
};

describe("XLS", () => {
  test("the bytes say XLS; the workbook reads as the same workbook written as XLSX", () => {
    expect(sniffBytes(xls)).toBe("xls");
    expect(convertOffice("xls", xls).markdown).toBe(EXPECTED);
    expect(convertOffice("xlsx", xlsx).markdown).toBe(EXPECTED);
    expect(convertOffice("xls", xls).metadata.title).toBe("Office Budget 2024"); // from the summary information
  });

  test("zero padding, thousands scaling, AM/PM times and web and mail links: as LibreOffice shows them, in both formats", () => {
    const expected = [
      "## Formats",
      "",
      "| Zip | Thousands | Millions | Time | Link |",
      "| --- | --- | --- | --- | --- |",
      "| 02134 | 1,235K | 2.5 M | 13:30:00 | [Ex link](https://example.com/x) |",
      "| 00007 | 1K | 0.0 M | 09:05:30 | [Write to us](mailto:team@example.com) |",
      "| end |  |  |  | To top |",
      "",
    ].join("\n");
    expect(convertOffice("xls", new Uint8Array(readFileSync(join(dir, "formats.xls")))).markdown).toBe(expected);
    expect(convertOffice("xlsx", new Uint8Array(readFileSync(join(dir, "formats-libreoffice.xlsx")))).markdown).toBe(expected);
  });

  test("an allocation chain that loops, and a truncated file: 422 SCRAPE_DOCUMENT_CORRUPT at once", () => {
    // The directory's first sector: its FAT entry made to point at itself.
    const view = new DataView(xls.buffer, xls.byteOffset, xls.byteLength);
    const dirStart = view.getUint32(0x30, true);
    const fatSector = view.getUint32(0x4c, true);
    const looping = xls.slice();
    new DataView(looping.buffer).setUint32((fatSector + 1) * 512 + dirStart * 4, dirStart, true);
    const started = performance.now();
    expect(failure(looping)).toMatchObject({ code: "SCRAPE_DOCUMENT_CORRUPT", status: 422 });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(failure(xls.subarray(0, 1536))).toMatchObject({ code: "SCRAPE_DOCUMENT_CORRUPT", status: 422 });
  });

  test("an Excel 5.0/95 workbook and a password-protected one: 422s that say so", () => {
    const biff5 = failure(patched(xls, [9, 8, 16, 0, 0, 6, 5, 0], [9, 8, 16, 0, 0, 5, 5, 0]));
    expect(biff5).toMatchObject({ code: "SCRAPE_UNSUPPORTED_FILE_ERROR", status: 422 });
    expect(biff5.message).toContain("Excel 5.0/95");
    // DATEMODE (0x22) turned into FILEPASS (0x2F): the records after it would be encrypted.
    const locked = failure(patched(xls, [0x22, 0, 2, 0, 0, 0], [0x2f, 0, 2, 0, 0, 0]));
    expect(locked).toMatchObject({ code: "SCRAPE_DOCUMENT_ENCRYPTED", status: 422 });
  });
});

describe("XLS through POST /v2/scrape", () => {
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

  test("served as application/vnd.ms-excel: the sheets as headings and tables, one credit", async () => {
    const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/budget.xls` } });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body.data.markdown).toBe(EXPECTED);
    expect(body.data.metadata).toMatchObject({ creditsUsed: 1, statusCode: 200, contentType: "application/vnd.ms-excel" });
  });
});
