/**
 * Workbooks as Excel, Google Sheets, openpyxl and other exporters package them (documents/office/xlsx.ts,
 * xlsx-package.ts, xlsx-scan.ts, xlsx-links.ts, detect.ts), from a review of their files: a main part that is not
 * `xl/workbook.xml` (found through the package's relationships); `_x000D_`-style escapes in strings; a link's
 * fragment kept apart in `location`; Excel 365's rich values (`#VALUE!` for older readers); `HYPERLINK()` formulas;
 * a main part that is no workbook; relationships read as OPC reads them (opc-package.ts); and binary workbooks
 * (XLSB), told by the package's main part and refused as an unsupported type rather than as a damaged XLSX.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { strToU8, zipSync } from "fflate";
import { sniffBytes } from "../../src/documents/detect.ts";
import { DocumentCorruptError } from "../../src/documents/errors.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";
import { buildXlsx } from "../fixtures/documents/fixtures.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const RELS = (body: string) => `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${body}</Relationships>`;
const rel = (id: string, type: string, target: string, external = false) => `<Relationship Id="${id}" Type="${REL}/${type}" Target="${target}"${external ? ' TargetMode="External"' : ""}/>`;
const zip = (parts: Record<string, string>) => zipSync(Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, strToU8(v)])));

/** A one-sheet workbook (the sheet named `Sheet1`) holding `sheetData` and `after` (hyperlinks…), in the usual parts. */
function oneSheet(sheetData: string, extra: Record<string, string> = {}, after = ""): Uint8Array {
  return zip({
    "_rels/.rels": RELS(rel("rId1", "officeDocument", "xl/workbook.xml")),
    "xl/workbook.xml": `<workbook ${NS}><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    "xl/_rels/workbook.xml.rels": RELS(rel("rId1", "worksheet", "worksheets/sheet1.xml") + rel("rId2", "sharedStrings", "sharedStrings.xml")),
    "xl/worksheets/sheet1.xml": `<worksheet ${NS}><sheetData>${sheetData}</sheetData>${after}</worksheet>`,
    ...extra,
  });
}
const markdown = (bytes: Uint8Array) => convertOffice("xlsx", bytes).markdown;

describe("the main part through the package's relationships", () => {
  test("xl/workbook2.xml, as some exporters name it (was 422 'xl/workbook.xml is missing')", () => {
    const bytes = zip({
      "_rels/.rels": RELS(rel("rId1", "officeDocument", "xl/workbook2.xml")),
      "xl/workbook2.xml": `<workbook ${NS}><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      "xl/_rels/workbook2.xml.rels": RELS(rel("rId1", "worksheet", "worksheets/sheet1.xml")),
      "xl/worksheets/sheet1.xml": `<worksheet ${NS}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Hello</t></is></c></row></sheetData></worksheet>`,
    });
    expect(markdown(bytes)).toBe("## Sheet1\n\n| Hello |\n| --- |\n");
  });

  test("a main part in another folder, its strings, styles and sheets named relative to it and absolutely", () => {
    const bytes = zip({
      "_rels/.rels": RELS(rel("rId1", "officeDocument", "/book/main.xml") + `<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="meta/core.xml"/>`),
      "meta/core.xml": `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Moved</dc:title></cp:coreProperties>`,
      "book/main.xml": `<workbook ${NS}><sheets><sheet name="One" sheetId="1" r:id="a"/><sheet name="Two" sheetId="2" r:id="b"/></sheets></workbook>`,
      "book/_rels/main.xml.rels": RELS(rel("a", "worksheet", "../sheets/one.xml") + rel("b", "worksheet", "/sheets/two.xml") + rel("s", "sharedStrings", "text/strings.xml") + rel("f", "styles", "/look/styles.xml")),
      "book/text/strings.xml": `<sst ${NS}><si><t>Shared</t></si></sst>`,
      "look/styles.xml": `<styleSheet ${NS}><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs></styleSheet>`,
      "sheets/one.xml": `<worksheet ${NS}><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" s="1"><v>45292</v></c></row></sheetData></worksheet>`,
      "sheets/two.xml": `<worksheet ${NS}><sheetData><row r="1"><c r="A1"><v>2</v></c></row></sheetData></worksheet>`,
    });
    const converted = convertOffice("xlsx", bytes);
    expect(converted.markdown).toBe("## One\n\n| Shared | 2024-01-01 |\n| --- | --- |\n\n## Two\n\n| 2 |\n| --- |\n");
    expect(converted.metadata.title).toBe("Moved");
  });

  test("openpyxl's absolute targets and a package without relationships still read as before", () => {
    expect(markdown(buildXlsx())).toContain("| Laptops | $12,500.00 | 2024-01-01 | 63% | TRUE |");
    const bare = zip({
      "xl/workbook.xml": `<workbook ${NS}><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      "xl/_rels/workbook.xml.rels": RELS(rel("rId1", "worksheet", "/xl/worksheets/sheet1.xml")),
      "xl/worksheets/sheet1.xml": `<worksheet ${NS}><sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData></worksheet>`,
    });
    expect(markdown(bare)).toBe("## S\n\n| 1 |\n| --- |\n");
  });

  test("part names compare case-insensitively and percent-decoded; a declared main part that is missing falls back to xl/workbook.xml", () => {
    const bytes = zip({
      "_rels/.rels": RELS(rel("rId1", "officeDocument", "xl/gone.xml")),
      "xl/workbook.xml": `<workbook ${NS}><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      "xl/_rels/workbook.xml.rels": RELS(rel("rId1", "worksheet", "Worksheets/Sheet%201.XML") + rel("rId2", "sharedStrings", "SharedStrings.xml")),
      "xl/worksheets/sheet 1.xml": `<worksheet ${NS}><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>`,
      "xl/sharedStrings.xml": `<sst ${NS}><si><t>Found</t></si></sst>`,
    });
    expect(markdown(bytes)).toBe("## S\n\n| Found |\n| --- |\n");
  });
});

describe("a main part that is no workbook", () => {
  const sheet = `<worksheet ${NS}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Hello</t></is></c></row></sheetData></worksheet>`;

  test("_rels/.rels naming the sheet: the usual xl/workbook.xml is read (was silently empty markdown)", () => {
    const bytes = oneSheet(`<row r="1"><c r="A1" t="inlineStr"><is><t>Hello</t></is></c></row>`, { "_rels/.rels": RELS(rel("rId1", "officeDocument", "xl/worksheets/sheet1.xml")) });
    expect(markdown(bytes)).toBe("## Sheet1\n\n| Hello |\n| --- |\n");
  });

  test("a binary main part falls back the same way; with no xl/workbook.xml to fall back on, a 422 that says why", () => {
    const binaryMain = oneSheet(`<row r="1"><c r="A1"><v>1</v></c></row>`, { "_rels/.rels": RELS(rel("rId1", "officeDocument", "xl/main.bin")), "xl/main.bin": "\u0083\u0001" });
    expect(markdown(binaryMain)).toBe("## Sheet1\n\n| 1 |\n| --- |\n");
    const noWorkbook = zip({ "_rels/.rels": RELS(rel("rId1", "officeDocument", "xl/worksheets/sheet1.xml")), "xl/worksheets/sheet1.xml": sheet });
    expect(() => markdown(noWorkbook)).toThrow(DocumentCorruptError);
    expect(() => markdown(noWorkbook)).toThrow("xl/worksheets/sheet1.xml is not a workbook (its root element is <worksheet>)");
  });
});

describe("relationships as the Open Packaging Conventions read them (opc-package.ts, shared with DOCX)", () => {
  test("a relationship type in another case still names its part (Styles, SharedStrings)", () => {
    const bytes = oneSheet(`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" s="1"><v>45292</v></c></row>`, {
      "xl/_rels/workbook.xml.rels": RELS(rel("rId1", "worksheet", "worksheets/sheet1.xml") + rel("rId2", "SharedStrings", "text/strings.xml") + rel("rId3", "Styles", "look/st.xml")),
      "xl/text/strings.xml": `<sst ${NS}><si><t>Shared</t></si></sst>`,
      "xl/look/st.xml": `<styleSheet ${NS}><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs></styleSheet>`,
    });
    expect(markdown(bytes)).toBe("## Sheet1\n\n| Shared | 2024-01-01 |\n| --- | --- |\n");
  });

  test("a hyperlink whose relationship leaves TargetMode out is still an address, not a part name", () => {
    const cells = `<row r="1"><c r="A1" t="inlineStr"><is><t>Site</t></is></c></row>`;
    const links = `<hyperlinks><hyperlink ref="A1" r:id="rId1"/></hyperlinks>`;
    const bytes = oneSheet(cells, { "xl/worksheets/_rels/sheet1.xml.rels": RELS(rel("rId1", "hyperlink", "https://example.com/a?b=1#c")) }, links);
    expect(markdown(bytes)).toBe("## Sheet1\n\n| [Site](https://example.com/a?b=1#c) |\n| --- |\n");
  });
});

describe("ST_Xstring escapes (_xHHHH_) in strings", () => {
  test("a carriage return, a tab and an escaped underscore in shared, inline, rich and formula strings", () => {
    const sst = `<sst ${NS}><si><t xml:space="preserve">Line one_x000D_\nLine two</t></si><si><r><t>Rich_x0009_</t></r><r><t>run</t></r></si><si><t>keep _x005F_x000D_ literally</t></si></sst>`;
    const cells = `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="inlineStr"><is><t>Tab_x0009_separated</t></is></c><c r="C1" t="s"><v>1</v></c><c r="D1" t="s"><v>2</v></c><c r="E1" t="str"><f>A1</f><v>x_x000D_y</v></c><c r="F1" t="inlineStr"><is><t>nul_x0000_gone</t></is></c></row>`;
    expect(markdown(oneSheet(cells, { "xl/sharedStrings.xml": sst }))).toBe(
      "## Sheet1\n\n| Line one Line two | Tab separated | Rich run | keep \\_x000D\\_ literally | x y | nulgone |\n| --- | --- | --- | --- | --- | --- |\n",
    );
  });
});

describe("cell links", () => {
  const hyperlinks = (body: string) => `<hyperlinks>${body}</hyperlinks>`;
  const sheetRels = (body: string) => ({ "xl/worksheets/_rels/sheet1.xml.rels": RELS(body) });
  const text = (ref: string, t: string) => `<c r="${ref}" t="inlineStr"><is><t>${t}</t></is></c>`;

  test("a fragment kept in `location` beside the address; `location` alone (a place in the workbook) is no link", () => {
    const cells = `<row r="1">${text("A1", "Case 2007")}${text("B1", "Sheet two")}</row>`;
    const links = hyperlinks(`<hyperlink ref="A1" r:id="rId1" location="/case/2007" display="Case 2007"/><hyperlink ref="B1" location="'Sheet 2'!A1"/>`);
    const bytes = oneSheet(cells, sheetRels(rel("rId1", "hyperlink", "http://localhost:4200/ui/", true)), links);
    expect(markdown(bytes)).toBe("## Sheet1\n\n| [Case 2007](http://localhost:4200/ui/#/case/2007) | Sheet two |\n| --- | --- |\n");
  });

  test("HYPERLINK formulas with a literal web or mail address are links (Google Sheets' way of linking a cell)", () => {
    const f = (ref: string, formula: string, shown: string) => `<c r="${ref}" t="str"><f>${formula}</f><v>${shown}</v></c>`;
    const cells =
      `<row r="1">${f("A1", 'HYPERLINK("https://example.com/a?b=1","Site")', "Site")}${f("B1", '_xlfn.HYPERLINK("mailto:team@example.com", "Mail " &amp; "us")', "Mail us")}${f("C1", 'HYPERLINK("https://example.com/q?say=""hi""")', "https://example.com/q?say=\"hi\"")}</row>` +
      `<row r="2">${f("A2", 'HYPERLINK(Z1,"Computed")', "Computed")}${f("B2", 'HYPERLINK("javascript:alert(1)","Script")', "Script")}${f("C2", 'HYPERLINK("https://a.example","x")&amp;"y"', "xy")}</row>`;
    expect(markdown(oneSheet(cells))).toBe(
      [
        "## Sheet1",
        "",
        '| [Site](https://example.com/a?b=1) | [Mail us](mailto:team@example.com) | [https://example.com/q?say="hi"](https://example.com/q?say="hi") |',
        "| --- | --- | --- |",
        "| Computed | Script | xy |",
        "",
      ].join("\n"),
    );
  });
});

describe("Excel 365 rich values", () => {
  test("a picture in a cell or a linked data type (t=e, vm) shows nothing, not #VALUE!; real errors stay", () => {
    const cells = `<row r="1"><c r="A1" t="inlineStr"><is><t>Company</t></is></c><c r="B1" t="e" vm="1"><v>#VALUE!</v></c></row><row r="2"><c r="A2" t="e"><v>#DIV/0!</v></c><c r="B2" t="e"><v>#VALUE!</v></c></row>`;
    expect(markdown(oneSheet(cells))).toBe("## Sheet1\n\n| Company |  |\n| --- | --- |\n| #DIV/0! | #VALUE! |\n");
  });
});

/** An XLSB package as Excel writes it: the same layout as an XLSX, its parts binary records (stand-ins here). */
const XLSB = zip({
  "[Content_Types].xml": `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.bin" ContentType="application/vnd.ms-excel.sheet.binary.macroEnabled.main"/></Types>`,
  "_rels/.rels": RELS(rel("rId1", "officeDocument", "xl/workbook.bin")),
  "xl/workbook.bin": "\u0083\u0001\u0000",
  "xl/_rels/workbook.bin.rels": RELS(rel("rId1", "worksheet", "worksheets/sheet1.bin")),
  "xl/worksheets/sheet1.bin": "\u0081\u0001\u0000",
});

describe("XLSB (binary workbooks)", () => {
  let h: Harness;
  let server: ReturnType<typeof Bun.serve>;
  beforeAll(async () => {
    server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(XLSB as BodyInit, { headers: { "content-type": "application/vnd.ms-excel.sheet.binary.macroEnabled.12" } }) });
    h = await createHarness();
  }, 30_000);
  afterAll(async () => {
    await h?.close();
    server?.stop(true);
  });

  test("the bytes say XLSB, not XLSX", () => {
    expect(sniffBytes(XLSB)).toBe("xlsb");
    expect(sniffBytes(buildXlsx())).toBe("xlsx");
  });

  test("decided by the main part: an XLSX that embeds a stored XLSB is an XLSX (was xlsb), whatever its main part is called", () => {
    const embedded = zipSync({ "xl/workbook.bin": strToU8("\u0083\u0001") }, { level: 0 });
    const bytes = zipSync({
      "_rels/.rels": strToU8(RELS(rel("rId1", "officeDocument", "xl/workbook2.xml"))),
      "xl/workbook2.xml": strToU8(`<workbook ${NS}><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`),
      "xl/_rels/workbook2.xml.rels": strToU8(RELS(rel("rId1", "worksheet", "worksheets/sheet1.xml"))),
      "xl/worksheets/sheet1.xml": strToU8(`<worksheet ${NS}><sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData></worksheet>`),
      "xl/embeddings/Book1.xlsb": [embedded, { level: 0 }],
    });
    expect(sniffBytes(bytes)).toBe("xlsx");
    expect(markdown(bytes)).toBe("## Sheet1\n\n| 1 |\n| --- |\n");
  });

  test("an XLSB whose main part has another name is told by its content type; one without relationships by its entries", () => {
    const renamed = zip({
      "[Content_Types].xml": `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/book.dat" ContentType="application/vnd.ms-excel.sheet.binary.macroEnabled.main"/></Types>`,
      "_rels/.rels": RELS(rel("rId1", "officeDocument", "xl/book.dat")),
      "xl/book.dat": "\u0083\u0001\u0000",
    });
    expect(sniffBytes(renamed)).toBe("xlsb");
    expect(sniffBytes(zip({ "xl/workbook.bin": "\u0083\u0001\u0000", "xl/_rels/workbook.bin.rels": RELS("") }))).toBe("xlsb");
  });

  test("a scrape answers 422 SCRAPE_UNSUPPORTED_FILE_ERROR naming it, not a damaged XLSX", async () => {
    const res = await h.request("/v2/scrape", { method: "POST", json: { url: `http://127.0.0.1:${server.port}/report.xlsb` } });
    const body = (await res.json()) as any;
    expect(res.status).toBe(422);
    expect(body.code).toBe("SCRAPE_UNSUPPORTED_FILE_ERROR");
    expect(body.error).toBe("Unsupported file type: application/vnd.ms-excel.sheet.binary.macroenabled.12 (the bytes are xlsb)"); // the type as the pipeline lowercases it
  });
});
