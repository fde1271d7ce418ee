/**
 * A table of contents comes out alike in the four word-processing formats: its paragraphs, as the document shows
 * them (`Intro 1`: the heading and its page; the link to a heading in the document is text). A DOCX's (a TOC field's
 * result), a DOC's and an RTF's were printed, an ODT's (`text:table-of-content`) left out, so one document's
 * formats disagreed. An ODT's other indexes (an alphabetical index, a list of figures) are kept alike; an index's
 * template (`text:table-of-content-source`) is not text.
 */
import { describe, expect, test } from "bun:test";
import { strToU8, zipSync } from "fflate";
import { convertOffice } from "../../src/documents/office/readers.ts";

const ODT_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:xlink="http://www.w3.org/1999/xlink"';

function odt(body: string): Uint8Array {
  const content = `<office:document-content ${ODT_NS}><office:body><office:text>${body}</office:text></office:body></office:document-content>`;
  return zipSync({ mimetype: strToU8("application/vnd.oasis.opendocument.text"), "content.xml": strToU8(content) });
}

/** An ODT table of contents as LibreOffice writes it: its template, then its title and entries (linked to bookmarks). */
const ODT_TOC =
  '<text:table-of-content text:name="Table of Contents1"><text:table-of-content-source text:outline-level="10">' +
  '<text:index-title-template text:style-name="Contents_20_Heading">Template title</text:index-title-template>' +
  '<text:table-of-content-entry-template text:outline-level="1"><text:index-entry-text/><text:index-entry-tab-stop style:type="right"/><text:index-entry-page-number/></text:table-of-content-entry-template>' +
  "</text:table-of-content-source><text:index-body>" +
  '<text:index-title text:name="Table of Contents1_Head"><text:p text:style-name="Contents_20_Heading">Contents</text:p></text:index-title>' +
  '<text:p text:style-name="Contents_20_1"><text:a xlink:type="simple" xlink:href="#__RefHeading___Toc1_1">Intro<text:tab/>1</text:a></text:p>' +
  '<text:p text:style-name="Contents_20_1"><text:a xlink:type="simple" xlink:href="#__RefHeading___Toc2_1">Method<text:tab/>2</text:a></text:p>' +
  "</text:index-body></text:table-of-content>";
const ODT_HEADINGS = '<text:h text:outline-level="1">Intro</text:h><text:p>Text.</text:p><text:h text:outline-level="1">Method</text:h>';

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
/** A DOCX table of contents as Word writes it: a TOC field whose result is paragraphs linking to bookmarks. */
const entry = (text: string, page: string, at: string) =>
  `<w:hyperlink w:anchor="${at}"><w:r><w:t>${text}</w:t></w:r><w:r><w:tab/></w:r><w:r><w:t>${page}</w:t></w:r></w:hyperlink>`;
const DOCX_TOC =
  "<w:p><w:r><w:t>Contents</w:t></w:r></w:p>" +
  `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> TOC \\o "1-3" \\h \\z \\u </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>${entry("Intro", "1", "_Toc1")}</w:p>` +
  `<w:p>${entry("Method", "2", "_Toc2")}<w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`;
const h1 = (text: string) => `<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>${text}</w:t></w:r></w:p>`;
const DOCX_HEADINGS = `${h1("Intro")}<w:p><w:r><w:t>Text.</w:t></w:r></w:p>${h1("Method")}`;

const EXPECTED = "Contents\n\nIntro 1\n\nMethod 2\n\n# Intro\n\nText.\n\n# Method\n";

describe("a table of contents", () => {
  test("an ODT's is its paragraphs, not its template: as a DOCX's TOC field result is", () => {
    const fromOdt = convertOffice("odt", odt(ODT_TOC + ODT_HEADINGS));
    expect(fromOdt.markdown).toBe(EXPECTED);
    expect(fromOdt.markdown).not.toContain("Template title");
    expect(fromOdt.html).toContain("<p>Contents</p>\n<p>Intro 1</p>\n<p>Method 2</p>\n<h1>Intro</h1>");
    const fromDocx = convertOffice("docx", zipSync({ "word/document.xml": strToU8(`<w:document ${W}><w:body>${DOCX_TOC}${DOCX_HEADINGS}</w:body></w:document>`) }));
    expect(fromDocx.markdown).toBe(EXPECTED);
  });

  test("an RTF's (a TOC field's result) reads the same", () => {
    const rtf = String.raw`{\rtf1\pard Contents\par{\field{\*\fldinst TOC \\o "1-3"}{\fldrslt \pard Intro\tab 1\par\pard Method\tab 2\par}}\pard\outlinelevel0 Intro\par\pard Text.\par\pard\outlinelevel0 Method\par}`;
    expect(convertOffice("rtf", new TextEncoder().encode(rtf)).markdown).toBe(EXPECTED);
  });

  test("an ODT's other indexes are kept alike: an alphabetical index inside a section", () => {
    const index =
      '<text:section text:name="S1"><text:alphabetical-index text:name="Index1"><text:alphabetical-index-source><text:index-title-template>Template</text:index-title-template></text:alphabetical-index-source>' +
      '<text:index-body><text:index-title text:name="Index1_Head"><text:p>Index</text:p></text:index-title><text:p>kettle, 3</text:p><text:p>pump, 7</text:p></text:index-body></text:alphabetical-index></text:section>';
    expect(convertOffice("odt", odt(`<text:p>Body.</text:p>${index}`)).markdown).toBe("Body.\n\nIndex\n\nkettle, 3\n\npump, 7\n");
  });
});
