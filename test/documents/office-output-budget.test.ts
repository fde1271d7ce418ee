/**
 * The text budget of office documents (documents/office/text-budget.ts): a few KB of XLSX, XLS or DOCX that use one
 * long string or link target many times came to hundreds of megabytes of markdown (240 million characters from a
 * 5.6 KB XLSX; 50 MB from a 1.2 KB DOCX; a 13 KB XLSX ran out of memory and answered 500). Every converter counts the
 * text it emits, link targets included, and stops at 10 million characters: the document ends with a line saying
 * the rest is not shown, and the answer carries a `warning`.
 */
import { describe, expect, test } from "bun:test";
import { strToU8, zipSync } from "fflate";
import { convertOffice } from "../../src/documents/office/readers.ts";
import { labelSst, sst, workbook } from "../fixtures/documents/biff-workbook.ts";

/** The documented bound (docs/documents.md): ten million characters of text per document. */
const LIMIT = 10_000_000;
const NOTICE = "(The rest of this document is not shown: its text reached 10,000,000 characters.)";

/** Letters and spaces only, so the markdown escapes nothing and its length follows the text's. */
const plain = (chars: number) => "abcd ".repeat(Math.ceil(chars / 5)).slice(0, chars).trimEnd() + "z";

/** An XLSX of one sheet whose `cells` cells (50 a row) all show shared string 0, `text`. */
function xlsx(text: string, cells: number): Uint8Array {
  const col = (i: number) => String.fromCharCode(65 + Math.floor(i / 26)) + String.fromCharCode(65 + (i % 26));
  const rows: string[] = [];
  for (let r = 0; r * 50 < cells; r++) {
    const row = Array.from({ length: Math.min(50, cells - r * 50) }, (_, c) => `<c r="${col(c)}${r + 1}" t="s"><v>0</v></c>`).join("");
    rows.push(`<row r="${r + 1}">${row}</row>`);
  }
  const ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
  return zipSync({
    "xl/workbook.xml": strToU8(`<workbook ${ns} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`),
    "xl/_rels/workbook.xml.rels": strToU8(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>`),
    "xl/sharedStrings.xml": strToU8(`<sst ${ns}><si><t>${text}</t></si></sst>`),
    "xl/worksheets/sheet1.xml": strToU8(`<worksheet ${ns}><sheetData>${rows.join("")}</sheetData></worksheet>`),
  });
}

/** A DOCX of `paragraphs` paragraphs, each one letter linked to the one relationship whose target is `url`. */
function docxLinks(url: string, paragraphs: number): Uint8Array {
  const body = '<w:p><w:hyperlink r:id="rId9"><w:r><w:t>x</w:t></w:r></w:hyperlink></w:p>'.repeat(paragraphs);
  return zipSync({
    "word/document.xml": strToU8(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>${body}</w:body></w:document>`),
    "word/_rels/document.xml.rels": strToU8(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId9" Target="${url}" TargetMode="External"/></Relationships>`),
  });
}

/** Checks the cut: markdown and HTML within the budget (plus their markup), the closing line, the warning. */
function expectCut(kind: "xlsx" | "xls" | "docx" | "odt" | "rtf", bytes: Uint8Array, maxMarkdown = LIMIT * 1.05) {
  const converted = convertOffice(kind, bytes);
  expect(converted.markdown.length).toBeLessThan(maxMarkdown);
  expect(converted.html.length).toBeLessThan(maxMarkdown);
  expect(converted.markdown.trimEnd().endsWith(NOTICE)).toBe(true);
  expect(converted.fields?.warning).toContain("cut at 10,000,000 characters");
  return converted;
}

describe("office documents: the text budget", () => {
  test("an XLSX whose 200 cells share one 100,000-character string (20 M characters) stops at the budget", () => {
    const bytes = xlsx(plain(100_000), 200);
    expect(bytes.length).toBeLessThan(50_000);
    const { markdown } = expectCut("xlsx", bytes);
    // The cells before the cut are shown whole; the one it falls in is cut; none after it.
    expect(markdown.split("abcd").length - 1).toBeGreaterThan(1_900_000);
  });

  test("an XLSX whose cells share a 12-million-character string stops inside the first cell (it ran out of memory)", () => {
    const bytes = xlsx(plain(12_000_000), 20);
    expectCut("xlsx", bytes);
  });

  test("an XLS whose 2,000 LABELSST cells share one 8,000-character string (16 M characters) stops at the budget", () => {
    const text = plain(8_000);
    const cells = Array.from({ length: 2_000 }, (_, i) => labelSst(Math.floor(i / 20), i % 20, 0));
    const bytes = workbook([sst([text], 2_000)], "S", cells);
    expect(bytes.length).toBeLessThan(50_000);
    expectCut("xls", bytes);
  });

  test("a DOCX of 300 links to one 50,000-character target: the targets count, and the links shown are whole", () => {
    const url = `https://example.com/${"a".repeat(50_000)}`;
    const bytes = docxLinks(url, 300);
    expect(bytes.length).toBeLessThan(50_000);
    const { markdown } = expectCut("docx", bytes);
    const links = markdown.split("](").length - 1;
    expect(links).toBe(Math.floor(LIMIT / (url.length + 1)));
    expect(markdown.split(`](${url})`).length - 1).toBe(links);
  });

  test("consecutive runs of one link are one span: its target counts once", () => {
    const url = `https://example.com/${"b".repeat(50_000)}`;
    const runs = '<w:r><w:t>x</w:t></w:r>'.repeat(1_000);
    const bytes = zipSync({
      "word/document.xml": strToU8(`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body><w:p><w:hyperlink r:id="rId9">${runs}</w:hyperlink></w:p></w:body></w:document>`),
      "word/_rels/document.xml.rels": strToU8(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId9" Target="${url}" TargetMode="External"/></Relationships>`),
    });
    const converted = convertOffice("docx", bytes);
    expect(converted.markdown.trim()).toBe(`[${"x".repeat(1_000)}](${url})`);
    expect(converted.fields?.warning).toBeUndefined();
  });

  test("an ODT whose 150,000 paragraphs are a letter and 100 spaces (text:s) each stops at the budget", () => {
    const ns = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"';
    const body = '<text:p>x<text:s text:c="100"/>y</text:p>'.repeat(150_000);
    const bytes = zipSync({ mimetype: strToU8("application/vnd.oasis.opendocument.text"), "content.xml": strToU8(`<office:document-content ${ns}><office:body><office:text>${body}</office:text></office:body></office:document-content>`) });
    expect(bytes.length).toBeLessThan(50_000);
    // Each paragraph's 102 characters come with their markup (`<p>…</p>` in the HTML: 8 more).
    expectCut("odt", bytes, LIMIT * 1.1);
  });

  test("an RTF of 12 million characters of text stops at the budget", () => {
    const bytes = new Uint8Array(Buffer.from(`{\\rtf1\\ansi ${plain(12_000_000)}\\par}`, "latin1"));
    expectCut("rtf", bytes);
  });

  test("a document within the budget is whole, without a line or a warning", () => {
    const converted = convertOffice("xlsx", xlsx(plain(1_000), 100));
    expect(converted.markdown).not.toContain("not shown");
    expect(converted.fields).toBeUndefined();
    expect(converted.markdown.split("abcd").length - 1).toBe(100 * 200);
  });

  test("a core.xml title of a million characters is cut to 1,000, as a DOC's summary title is", () => {
    const bytes = zipSync({
      "word/document.xml": strToU8('<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>body</w:t></w:r></w:p></w:body></w:document>'),
      "docProps/core.xml": strToU8(`<cp:coreProperties xmlns:cp="c" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${"t".repeat(1_000_000)}</dc:title></cp:coreProperties>`),
    });
    const converted = convertOffice("docx", bytes);
    expect((converted.metadata.title as string).length).toBe(1_000);
    expect(converted.html.length).toBeLessThan(5_000);
  });
});
