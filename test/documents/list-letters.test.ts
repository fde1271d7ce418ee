/**
 * Lists numbered in letters and roman numerals (`a.`, `iv.`, `C.`, `II.`): the HTML says so with `<ol type>` (and
 * `start`/`value` as for digits), and the markdown, which numbers only in digits, writes each such item as a bullet
 * whose text starts with its label (`- b. Terms`), so a clause the text calls "(b)" is not shown as `2.`. Before,
 * every reader wrote them as `1.`, `2.` and the HTML as plain `<ol>`. DOCX (`w:numFmt`), ODT (`style:num-format`),
 * RTF (`\levelnfc`, or the `{\listtext}` marker's letters) and altChunk HTML are read here; DOC in doc-fidelity.test.ts.
 */
import { describe, expect, test } from "bun:test";
import { strToU8, zipSync } from "fflate";
import type { Block, ListItem } from "../../src/documents/layout/model.ts";
import { blocksToMarkdown } from "../../src/documents/layout/render.ts";
import { blocksToHtml } from "../../src/documents/layout/render-html.ts";
import { listLabel } from "../../src/documents/layout/list-numbers.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";

const commonMark = (markdown: string) => Bun.markdown.html(markdown).replace(/\n/g, "");
const ownHtml = (blocks: Block[]) => blocksToHtml(blocks).replace(/^<html><body>|<\/body><\/html>$/g, "").replace(/\n/g, "");
const item = (text: string, extra: Partial<ListItem> = {}): ListItem => ({ depth: 0, content: [{ text }], ...extra });

describe("rendering", () => {
  test("lettered and roman items: bullets labelled in markdown, <ol type> with start and value in HTML", () => {
    const blocks: Block[] = [
      {
        kind: "list",
        ordered: true,
        items: [item("Scope"), item("Definitions", { depth: 1, ordered: true, format: "a" }), item("Terms", { depth: 1, ordered: true, format: "a" }), item("Fees"), item("Late fees", { depth: 1, ordered: true, format: "i", number: 4 })],
      },
      { kind: "paragraph", content: [{ text: "Annex:" }] },
      { kind: "list", ordered: true, items: [item("Third", { number: 3, format: "A" }), item("Fourth", { format: "A" }), item("Sixth", { number: 6, format: "A" })] },
    ];
    const md = blocksToMarkdown(blocks);
    expect(md).toBe("1. Scope\n   - a. Definitions\n   - b. Terms\n2. Fees\n   - iv. Late fees\n\nAnnex:\n\n- C. Third\n- D. Fourth\n- F. Sixth\n");
    expect(ownHtml(blocks)).toBe(
      '<ol><li>Scope<ol type="a"><li>Definitions</li><li>Terms</li></ol></li><li>Fees<ol start="4" type="i"><li>Late fees</li></ol></li></ol><p>Annex:</p><ol start="3" type="A"><li>Third</li><li>Fourth</li><li value="6">Sixth</li></ol>',
    );
    // The markdown reads back as nested lists with the labels as text: nothing is lost or joined.
    expect(commonMark(md)).toBe("<ol><li>Scope<ul><li>a. Definitions</li><li>b. Terms</li></ul></li><li>Fees<ul><li>iv. Late fees</li></ul></li></ol><p>Annex:</p><ul><li>C. Third</li><li>D. Fourth</li><li>F. Sixth</li></ul>");
  });

  test("a lettered list right after a bulleted one stays apart (the other bullet); a change of type at a level is a new <ol>", () => {
    const blocks: Block[] = [
      { kind: "list", ordered: false, items: [item("salt")] },
      { kind: "list", ordered: true, items: [item("first", { format: "a" }), item("second", { format: "a" }), item("third", { format: "i", number: 3 })] },
    ];
    const md = blocksToMarkdown(blocks);
    expect(md).toBe("- salt\n\n* a. first\n* b. second\n* iii. third\n");
    expect(commonMark(md)).toBe("<ul><li>salt</li></ul><ul><li>a. first</li><li>b. second</li><li>iii. third</li></ul>");
    expect(ownHtml(blocks)).toBe('<ul><li>salt</li></ul><ol type="a"><li>first</li><li>second</li></ol><ol start="3" type="i"><li>third</li></ol>');
  });

  test("labels count as a browser counts an <ol type>: z, aa, ab; roman to 3999, digits past it", () => {
    expect([26, 27, 28, 52, 703].map((n) => listLabel(n, "a"))).toEqual(["z", "aa", "ab", "az", "aaa"]);
    expect(listLabel(1994, "I")).toBe("MCMXCIV");
    expect(listLabel(4000, "i")).toBe("4000");
    expect(listLabel(0, "a")).toBe("0");
  });

  test("with letter synchronization (Word's rule, ODT's num-letter-sync) letters past z repeat: aa, bb, at most 32", () => {
    expect([26, 27, 28, 52, 53, 832].map((n) => listLabel(n, "a", true))).toEqual(["z", "aa", "bb", "zz", "aaa", "z".repeat(32)]);
    expect(listLabel(28, "A", true)).toBe("BB");
    expect(listLabel(833, "a", true)).toBe("833");
  });

  test("a label that falls back to digits has its dot escaped: it does not read as a list in the bullet", () => {
    const blocks: Block[] = [{ kind: "list", ordered: true, items: [item("Zero", { number: 0, format: "a" }), item("One", { format: "a" }), item("Over", { number: 4000, format: "I" })] }];
    const md = blocksToMarkdown(blocks);
    expect(md).toBe("- 0\\. Zero\n- a. One\n- 4000\\. Over\n");
    expect(commonMark(md)).toBe("<ul><li>0. Zero</li><li>a. One</li><li>4000. Over</li></ul>");
  });

  test("an item's own label is written as given; the HTML counts by its <ol type> whatever the label", () => {
    const blocks: Block[] = [{ kind: "list", ordered: true, items: [item("Given", { number: 28, format: "a", label: "ab" }), item("Synced", { number: 28, format: "a", letterSync: true })] }];
    expect(blocksToMarkdown(blocks)).toBe("- ab. Given\n- bb. Synced\n");
    expect(ownHtml(blocks)).toBe('<ol start="28" type="a"><li>Given</li><li value="28">Synced</li></ol>');
  });
});

describe("readers", () => {
  const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
  const lvl = (ilvl: number, fmt: string, start = 1) => `<w:lvl w:ilvl="${ilvl}"><w:start w:val="${start}"/><w:numFmt w:val="${fmt}"/><w:lvlText w:val="%${ilvl + 1}."/></w:lvl>`;

  test("DOCX: lowerLetter, lowerRoman, upperLetter from 3 and upperRoman levels", () => {
    const numbering =
      `<w:abstractNum w:abstractNumId="0">${lvl(0, "decimal")}${lvl(1, "lowerLetter")}${lvl(2, "lowerRoman")}</w:abstractNum>` +
      `<w:abstractNum w:abstractNumId="1">${lvl(0, "upperLetter", 3)}</w:abstractNum><w:abstractNum w:abstractNumId="2">${lvl(0, "upperRoman")}</w:abstractNum>` +
      '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num><w:num w:numId="3"><w:abstractNumId w:val="2"/></w:num>';
    const p = (text: string, numId: number, ilvl = 0) => `<w:p><w:pPr><w:numPr><w:ilvl w:val="${ilvl}"/><w:numId w:val="${numId}"/></w:numPr></w:pPr><w:r><w:t>${text}</w:t></w:r></w:p>`;
    const body = p("Scope", 1) + p("Definitions", 1, 1) + p("Parties", 1, 2) + p("Terms", 1, 1) + p("Annex", 2) + p("Appendix", 2) + "<w:p><w:r><w:t>Then:</w:t></w:r></w:p>" + p("Part one", 3) + p("Part two", 3);
    const bytes = zipSync({ "word/document.xml": strToU8(`<w:document ${W}><w:body>${body}</w:body></w:document>`), "word/numbering.xml": strToU8(`<w:numbering ${W}>${numbering}</w:numbering>`) });
    const doc = convertOffice("docx", bytes);
    expect(doc.markdown).toBe("1. Scope\n   - a. Definitions\n     - i. Parties\n   - b. Terms\n\n- C. Annex\n- D. Appendix\n\nThen:\n\n- I. Part one\n- II. Part two\n");
    expect(doc.html).toContain('<ol><li>Scope<ol type="a"><li>Definitions<ol type="i"><li>Parties</li></ol></li><li>Terms</li></ol></li></ol>');
    expect(doc.html).toContain('<ol start="3" type="A"><li>Annex</li><li>Appendix</li></ol>');
    expect(doc.html).toContain('<ol type="I"><li>Part one</li><li>Part two</li></ol>');
  });

  test("ODT: style:num-format a, i, A (with a start value) and I; digits stay digits", () => {
    const ns = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"';
    const level = (n: number, format: string, start = 1) => `<text:list-level-style-number text:level="${n}" style:num-format="${format}" style:num-suffix="." text:start-value="${start}"/>`;
    const styles = `<text:list-style style:name="L1">${level(1, "1")}${level(2, "a")}${level(3, "i")}</text:list-style><text:list-style style:name="L2">${level(1, "A", 3)}</text:list-style><text:list-style style:name="L3">${level(1, "I")}</text:list-style>`;
    const li = (text: string, inner = "") => `<text:list-item><text:p>${text}</text:p>${inner}</text:list-item>`;
    const body =
      `<text:list text:style-name="L1">${li("Scope", `<text:list>${li("Definitions", `<text:list>${li("Parties")}</text:list>`)}${li("Terms")}</text:list>`)}</text:list>` +
      `<text:list text:style-name="L2">${li("Annex")}${li("Appendix")}</text:list><text:p>Then:</text:p><text:list text:style-name="L3">${li("Part one")}${li("Part two")}</text:list>`;
    const content = `<office:document-content ${ns}><office:automatic-styles>${styles}</office:automatic-styles><office:body><office:text>${body}</office:text></office:body></office:document-content>`;
    const doc = convertOffice("odt", zipSync({ mimetype: strToU8("application/vnd.oasis.opendocument.text"), "content.xml": strToU8(content) }));
    expect(doc.markdown).toBe("1. Scope\n   - a. Definitions\n     - i. Parties\n   - b. Terms\n\n- C. Annex\n- D. Appendix\n\nThen:\n\n- I. Part one\n- II. Part two\n");
    expect(doc.html).toContain('<ol start="3" type="A"><li>Annex</li><li>Appendix</li></ol>');
  });

  test("RTF: a {\\listtext} marker's letters give the item its number and format (C. was 1.), roman by the list table", () => {
    const rtf = String.raw`{\rtf1{\*\listtable{\list{\listlevel\levelnfc3\levelstartat3}{\listlevel\levelnfc2}\listid1}}{\*\listoverridetable{\listoverride\listid1\ls1}}` +
      String.raw`\pard\ls1\ilvl0{\listtext C.\tab}Annex\par\pard\ls1\ilvl1{\listtext i.\tab}Part\par\pard\ls1\ilvl0{\listtext D.\tab}Appendix\par` +
      String.raw`\pard{\pntext (b)\tab}Older writer\par\pard{\pntext (c)\tab}Its next\par}`;
    const doc = convertOffice("rtf", new TextEncoder().encode(rtf));
    expect(doc.markdown).toBe("- C. Annex\n  - i. Part\n- D. Appendix\n\n* b. Older writer\n* c. Its next\n");
    expect(doc.html).toContain('<ol start="3" type="A"><li>Annex<ol type="i"><li>Part</li></ol></li><li>Appendix</li></ol>');
    expect(doc.html).toContain('<ol start="2" type="a"><li>Older writer</li><li>Its next</li></ol>');
  });

  test("letters past z follow each format's rule: Word's repeat (DOCX item 28 is bb), ODT's count on unless synchronized", () => {
    const numbering = `<w:abstractNum w:abstractNumId="0">${lvl(0, "lowerLetter", 27)}</w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>`;
    const p = (text: string) => `<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr></w:pPr><w:r><w:t>${text}</w:t></w:r></w:p>`;
    const docx = zipSync({ "word/document.xml": strToU8(`<w:document ${W}><w:body>${p("Item aa")}${p("Item bb")}</w:body></w:document>`), "word/numbering.xml": strToU8(`<w:numbering ${W}>${numbering}</w:numbering>`) });
    const doc = convertOffice("docx", docx);
    expect(doc.markdown).toBe("- aa. Item aa\n- bb. Item bb\n");
    expect(doc.html).toContain('<ol start="27" type="a">');

    const ns = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"';
    const odt = (sync: string) => {
      const styles = `<text:list-style style:name="L1"><text:list-level-style-number text:level="1" style:num-format="a" ${sync} text:start-value="27"/></text:list-style>`;
      const body = `<text:list text:style-name="L1"><text:list-item><text:p>One</text:p></text:list-item><text:list-item><text:p>Two</text:p></text:list-item></text:list>`;
      const content = `<office:document-content ${ns}><office:automatic-styles>${styles}</office:automatic-styles><office:body><office:text>${body}</office:text></office:body></office:document-content>`;
      return convertOffice("odt", zipSync({ mimetype: strToU8("application/vnd.oasis.opendocument.text"), "content.xml": strToU8(content) })).markdown;
    };
    expect(odt("")).toBe("- aa. One\n- ab. Two\n");
    expect(odt('style:num-letter-sync="true"')).toBe("- aa. One\n- bb. Two\n");
  });

  test("RTF: a list table's letters count as Word's; a {\\listtext} marker's letters are kept as given", () => {
    const tables = String.raw`{\*\listtable{\list{\listlevel\levelnfc4\levelstartat27}\listid1}}{\*\listoverridetable{\listoverride\listid1\ls1}}`;
    const counted = convertOffice("rtf", new TextEncoder().encode(String.raw`{\rtf1${tables}\pard\ls1\ilvl0 One\par\pard\ls1\ilvl0 Two\par}`));
    expect(counted.markdown).toBe("- aa. One\n- bb. Two\n");
    // Older writers' markers, in Word's letters (bb, read back as 28) and in a browser's (ab, 28 too): each as it is.
    const marked = convertOffice("rtf", new TextEncoder().encode(String.raw`{\rtf1\pard{\pntext aa.\tab}One\par\pard{\pntext bb.\tab}Two\par}`));
    expect(marked.markdown).toBe("- aa. One\n- bb. Two\n");
    const tableAndMarker = convertOffice("rtf", new TextEncoder().encode(String.raw`{\rtf1${tables}\pard\ls1\ilvl0{\listtext ab.\tab}Three\par}`));
    expect(tableAndMarker.markdown).toBe("- ab. Three\n");
  });

  test("ODT: a start value of 0 in letters and roman numerals past 3999 are digits, escaped", () => {
    const ns = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"';
    const styles = `<text:list-style style:name="L1"><text:list-level-style-number text:level="1" style:num-format="a" text:start-value="0"/></text:list-style><text:list-style style:name="L2"><text:list-level-style-number text:level="1" style:num-format="I" text:start-value="3999"/></text:list-style>`;
    const li = (text: string) => `<text:list-item><text:p>${text}</text:p></text:list-item>`;
    const body = `<text:list text:style-name="L1">${li("Zero")}${li("One")}</text:list><text:p>x</text:p><text:list text:style-name="L2">${li("Max")}${li("Over")}</text:list>`;
    const content = `<office:document-content ${ns}><office:automatic-styles>${styles}</office:automatic-styles><office:body><office:text>${body}</office:text></office:body></office:document-content>`;
    const { markdown } = convertOffice("odt", zipSync({ mimetype: strToU8("application/vnd.oasis.opendocument.text"), "content.xml": strToU8(content) }));
    expect(markdown).toBe("- 0\\. Zero\n- a. One\n\nx\n\n- MMMCMXCIX. Max\n- 4000\\. Over\n");
    expect(commonMark(markdown)).not.toContain("<ol");
  });

  test("a DOCX's imported HTML (altChunk): <ol type> is kept", () => {
    const html = '<html><body><ol type="i"><li>one</li><li>two</li></ol><ol type="A" start="2"><li>bee</li></ol></body></html>';
    const R = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
    const bytes = zipSync({
      "[Content_Types].xml": strToU8('<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="htm" ContentType="text/html"/></Types>'),
      "word/document.xml": strToU8(`<w:document ${W} ${R}><w:body><w:altChunk r:id="c1"/></w:body></w:document>`),
      "word/_rels/document.xml.rels": strToU8('<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="c1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk" Target="c.htm"/></Relationships>'),
      "word/c.htm": strToU8(html),
    });
    const doc = convertOffice("docx", bytes);
    expect(doc.markdown).toBe("- i. one\n- ii. two\n\n* B. bee\n");
    expect(doc.html).toContain('<ol type="i"><li>one</li><li>two</li></ol>\n<ol start="2" type="A"><li>bee</li></ol>');
  });
});
