/**
 * DOCX fidelity (documents/office/docx*.ts), from the office review's findings: list numbers as Word counts them (a
 * list going on after a paragraph, restarts, start values, numbered sub-lists), bold/italic/struck/code runs, hidden,
 * deleted and moved text, RTL wrappers and custom XML, hard line breaks, merged cells, quotation and code styles,
 * HYPERLINK fields, list paragraphs without a number, text boxes, equations and symbols. Each document is built here
 * as WordprocessingML parts in a zip, the way Word and LibreOffice write them.
 */
import { describe, expect, test } from "bun:test";
import { strToU8, zipSync } from "fflate";
import { convertOffice } from "../../src/documents/office/readers.ts";

const NS =
  'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" xmlns:v="urn:schemas-microsoft-com:vml"';

const style = (type: string, id: string, name: string, inner = "") => `<w:style w:type="${type}" w:styleId="${id}"><w:name w:val="${name}"/>${inner}</w:style>`;
const STYLES = [
  style("paragraph", "Normal", "Normal").replace("<w:style ", '<w:style w:default="1" '),
  style("paragraph", "Heading1", "heading 1", '<w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/></w:rPr>'),
  style("paragraph", "Heading2", "heading 2", '<w:pPr><w:outlineLvl w:val="1"/></w:pPr>'),
  style("paragraph", "ListParagraph", "List Paragraph", '<w:pPr><w:ind w:left="720"/></w:pPr>'),
  style("paragraph", "ListNumber", "List Number", '<w:pPr><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr>'),
  style("paragraph", "Zitat", "Quote", "<w:rPr><w:i/></w:rPr>"),
  style("paragraph", "HTMLPreformatted", "HTML Preformatted", '<w:rPr><w:rFonts w:ascii="Courier New" w:hAnsi="Courier New"/></w:rPr>'),
  style("paragraph", "TableHeading", "Table Heading", "<w:rPr><w:b/></w:rPr>"),
  style("character", "HTMLCode", "HTML Code"),
  style("character", "Strong", "Strong", "<w:rPr><w:b/></w:rPr>"),
  style("character", "StrongItalic", "Strong Italic", '<w:basedOn w:val="Strong"/><w:rPr><w:i/></w:rPr>'),
  style("character", "Secret", "Secret", "<w:rPr><w:vanish/></w:rPr>"),
].join("");

const levels = (fmt: string | string[], start = 1, extra = "") =>
  Array.from({ length: 9 }, (_, i) => `<w:lvl w:ilvl="${i}"><w:start w:val="${start}"/><w:numFmt w:val="${Array.isArray(fmt) ? fmt[i % fmt.length] : fmt}"/><w:lvlText w:val="${Array.from({ length: i + 1 }, (_, j) => `%${j + 1}`).join(".")}."/>${extra}</w:lvl>`).join("");
/** Abstract lists: 0 decimal, 1 bullet, 2 bullets over numbers, 3 decimal from 5, 4 lower letters, 5 clauses (level 1 unnumbered). */
const NUMBERING =
  `<w:abstractNum w:abstractNumId="0">${levels("decimal")}</w:abstractNum><w:abstractNum w:abstractNumId="1">${levels("bullet")}</w:abstractNum>` +
  `<w:abstractNum w:abstractNumId="2">${levels(["bullet", "decimal"])}</w:abstractNum><w:abstractNum w:abstractNumId="3">${levels("decimal", 5)}</w:abstractNum>` +
  `<w:abstractNum w:abstractNumId="4">${levels("lowerLetter")}</w:abstractNum>` +
  '<w:abstractNum w:abstractNumId="5"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl><w:lvl w:ilvl="1"><w:numFmt w:val="none"/><w:lvlText w:val=""/></w:lvl></w:abstractNum>' +
  '<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>' +
  '<w:num w:numId="3"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="1"/></w:lvlOverride></w:num>' +
  '<w:num w:numId="4"><w:abstractNumId w:val="0"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="7"/></w:lvlOverride></w:num>' +
  '<w:num w:numId="5"><w:abstractNumId w:val="2"/></w:num><w:num w:numId="6"><w:abstractNumId w:val="3"/></w:num>' +
  '<w:num w:numId="7"><w:abstractNumId w:val="0"/></w:num><w:num w:numId="8"><w:abstractNumId w:val="4"/></w:num><w:num w:numId="9"><w:abstractNumId w:val="5"/></w:num>';
const RELS =
  '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.com/" TargetMode="External"/></Relationships>';

/** A DOCX of `body`, with the styles and numbering above (`styles` replaces the styles). */
function docx(body: string, styles = STYLES, numbering = NUMBERING): Uint8Array {
  return zipSync({
    "word/document.xml": strToU8(`<w:document ${NS}><w:body>${body}</w:body></w:document>`),
    "word/styles.xml": strToU8(`<w:styles ${NS}>${styles}</w:styles>`),
    "word/numbering.xml": strToU8(`<w:numbering ${NS}>${numbering}</w:numbering>`),
    "word/_rels/document.xml.rels": strToU8(RELS),
  });
}

const md = (body: string, styles?: string) => convertOffice("docx", docx(body, styles)).markdown;
const html = (body: string) => convertOffice("docx", docx(body)).html;
const r = (text: string, rPr = "") => `<w:r>${rPr ? `<w:rPr>${rPr}</w:rPr>` : ""}<w:t xml:space="preserve">${text}</w:t></w:r>`;
const p = (content: string, pPr = "") => `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ""}${content}</w:p>`;
const para = (text: string, pPr = "") => p(r(text), pPr);
const styled = (text: string, styleId: string) => para(text, `<w:pStyle w:val="${styleId}"/>`);
const item = (text: string, numId: number, ilvl = 0, pStyle = "") => para(text, `${pStyle ? `<w:pStyle w:val="${pStyle}"/>` : ""}<w:numPr><w:ilvl w:val="${ilvl}"/><w:numId w:val="${numId}"/></w:numPr>`);

describe("list numbering (numbering.xml)", () => {
  test("a paragraph between items of one list does not restart the count", () => {
    expect(md(para("Steps:") + item("Open the box", 1) + para("Take care: the box is heavy.") + item("Remove the pump", 1) + item("Install it", 1))).toBe(
      "Steps:\n\n1. Open the box\n\nTake care: the box is heavy.\n\n2. Remove the pump\n3. Install it\n",
    );
  });

  test("a new instance with a start override restarts: two lists, not one; start values are kept", () => {
    expect(md(item("Mix", 1) + item("Bake", 1) + item("Chop", 3) + item("Fry", 3))).toBe("1. Mix\n2. Bake\n\n1) Chop\n2) Fry\n");
    expect(md(para("From 7:") + item("Seventh", 4) + item("Eighth", 4) + para("From 5:") + item("Fifth", 6) + item("Sixth", 6))).toBe(
      "From 7:\n\n7. Seventh\n8. Eighth\n\nFrom 5:\n\n5. Fifth\n6. Sixth\n",
    );
    expect(html(item("Fifth", 6) + item("Sixth", 6))).toContain('<ol start="5"><li>Fifth</li><li>Sixth</li></ol>');
  });

  test("instances of one definition without an override go on counting (Word keeps the count on the definition)", () => {
    expect(md(item("One", 1) + styled("Section", "Heading2") + item("Two", 7))).toBe("1. One\n\n## Section\n\n2. Two\n");
  });

  test("numbered sub-lists under bullets and bullets under numbers; a deeper level restarts under each parent", () => {
    expect(md(item("Prepare", 5) + item("Wash", 5, 1) + item("Cut", 5, 1) + item("Cook", 5) + item("Plate", 5, 1))).toBe("- Prepare\n  1. Wash\n  2. Cut\n- Cook\n  1. Plate\n");
    expect(md(item("First", 1) + item("Note", 2, 1) + item("Second", 1) + item("Sub A", 1, 1) + item("Sub B", 1, 1) + item("Third", 1) + item("Sub C", 1, 1))).toBe(
      "1. First\n   - Note\n2. Second\n   1. Sub A\n   2. Sub B\n3. Third\n   1. Sub C\n",
    );
  });

  test("letters are a lettered list; numId 0 and an unnumbered level are no list item; a list style's numbering counts", () => {
    expect(md(item("option a", 8) + item("option b", 8))).toBe("- a. option a\n- b. option b\n");
    expect(html(item("option a", 8) + item("option b", 8))).toContain('<ol type="a"><li>option a</li><li>option b</li></ol>');
    expect(md(item("plain", 0))).toBe("plain\n");
    expect(md(item("Clause", 9) + item("Its second paragraph.", 9, 1) + item("Next clause", 9))).toBe("1. Clause\n\nIts second paragraph.\n\n2. Next clause\n");
    expect(md(styled("Styled one", "ListNumber") + styled("Styled two", "ListNumber"))).toBe("1. Styled one\n2. Styled two\n");
    // A file that names styles without defining them (no styles part): known by their ids, as before.
    const bare = zipSync({ "word/document.xml": strToU8(`<w:document ${NS}><w:body>${styled("Intro", "Heading2") + styled("a", "ListBullet") + styled("b", "ListBullet")}</w:body></w:document>`) });
    expect(convertOffice("docx", bare).markdown).toBe("## Intro\n\n- a\n- b\n");
  });

});

describe("headings", () => {
  test("a style based on a heading style is a heading; one that sets outline level 9 (Word's TOC Heading) is not", () => {
    const styles = STYLES + style("paragraph", "H1Numbered", "Heading 1 Numbered", '<w:basedOn w:val="Heading1"/>') + style("paragraph", "TOCHeading", "TOC Heading", '<w:basedOn w:val="Heading1"/><w:pPr><w:outlineLvl w:val="9"/></w:pPr>');
    expect(md(styled("Contents", "TOCHeading") + styled("Scope", "H1Numbered"), styles)).toBe("Contents\n\n# Scope\n");
  });

  test("a numbered heading keeps its number, as the RTF reader gives it", () => {
    const numbered = (text: string, ilvl: number) => para(text, `<w:pStyle w:val="Heading${ilvl + 1}"/><w:numPr><w:ilvl w:val="${ilvl}"/><w:numId w:val="1"/></w:numPr>`);
    expect(md(numbered("Scope", 0) + numbered("Details", 1) + numbered("More", 1) + numbered("Terms", 0))).toBe("# 1. Scope\n\n## 1.1. Details\n\n## 1.2. More\n\n# 2. Terms\n");
  });
});

describe("run marks", () => {
  test("bold, italic, struck (single and double) and code (a monospace font or a code character style)", () => {
    const body = p(
      r("This is ") + r("bold", "<w:b/>") + r(", ") + r("italic", "<w:i/>") + r(", ") + r("struck", "<w:strike/>") + r(" or ") + r("twice", "<w:dstrike/>") + r(", ") +
        r("code_span()", '<w:rFonts w:ascii="Consolas" w:hAnsi="Consolas"/>') + r(" and ") + r("x = 1", '<w:rStyle w:val="HTMLCode"/>') + r("."),
    );
    expect(md(body)).toBe("This is **bold**, *italic*, ~~struck~~ or ~~twice~~, `code_span()` and `x = 1`.\n");
    expect(md(p(r("Run") + r(" npm test ", '<w:rFonts w:ascii="Menlo"/>') + r("now.")))).toBe("Run `npm test` now.\n");
  });

  test("a character style's marks, through the style it is based on; w:val=0 turns a mark off", () => {
    expect(md(p(r("strong", '<w:rStyle w:val="Strong"/>') + r(" and ") + r("both", '<w:rStyle w:val="StrongItalic"/>') + r(" and ") + r("not bold", '<w:rStyle w:val="Strong"/><w:b w:val="0"/>')))).toBe(
      "**strong** and ***both*** and not bold\n",
    );
  });

  test("marks in a heading are left out; a paragraph style's bold is its look, not a mark", () => {
    const heading = p(r("Bold", "<w:b/>") + r(" heading"), '<w:pStyle w:val="Heading1"/>') + p(r("Title ") + r("words", "<w:i/>"), '<w:pStyle w:val="Heading2"/>');
    expect(md(heading + styled("Name", "TableHeading"))).toBe("# Bold heading\n\n## Title words\n\nName\n");
  });
});

describe("hidden, deleted and moved text; wrappers", () => {
  test("hidden runs (direct or by style) are not text; moved-to text is, moved-from and deleted text is not", () => {
    expect(md(p(r("Visible ") + r("SECRET ", "<w:vanish/>") + r("HIDDEN ", '<w:rStyle w:val="Secret"/>') + r("text.")))).toBe("Visible text.\n");
    const move = p(r("The quick ") + `<w:moveFrom w:id="1">${r("brown ")}</w:moveFrom>` + r("fox ") + `<w:moveTo w:id="2">${r("brown ")}</w:moveTo>` + r("jumps."));
    const edit = p(r("Kept ") + '<w:del w:id="3"><w:r><w:delText>deleted </w:delText></w:r></w:del>' + `<w:ins w:id="4">${r("inserted ")}</w:ins>` + r("end."));
    expect(md(move + edit)).toBe("The quick fox brown jumps.\n\nKept inserted end.\n");
  });

  test("RTL wrappers (w:dir, w:bdo) and block-level custom XML and content controls are read", () => {
    expect(md(p(r("Arabic: ") + `<w:dir w:val="rtl">${r("مرحبا بالعالم")}</w:dir>` + r(" and ") + `<w:bdo w:val="rtl">${r("abc")}</w:bdo>` + r(" end.")))).toBe("Arabic: مرحبا بالعالم and abc end.\n");
    expect(md(para("x") + `<w:customXml w:element="c">${para("Inside custom XML")}</w:customXml>` + `<w:sdt><w:sdtContent>${para("Inside a control")}</w:sdtContent></w:sdt>` + para("y"))).toBe(
      "x\n\nInside custom XML\n\nInside a control\n\ny\n",
    );
  });
});

test("w:br and w:cr are hard line breaks; a page break ends the paragraph there, as in the other formats", () => {
  expect(md(p(r("221B Baker Street") + "<w:r><w:br/></w:r>" + r("London") + "<w:r><w:cr/></w:r>" + r("NW1 6XE")) + p(r("Before") + '<w:r><w:br w:type="page"/></w:r>' + r("after")))).toBe(
    "221B Baker Street\\\nLondon\\\nNW1 6XE\n\nBefore\n\nafter\n",
  );
  expect(md(item("Step one", 1) + p(r("Step two,") + '<w:r><w:br w:type="page"/></w:r>' + r("on the next page"), '<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>'))).toBe("1. Step one\n2. Step two, on the next page\n");
  expect(html(p(r("a") + "<w:r><w:br/></w:r>" + r("b")))).toContain("<p>a<br>b</p>");
});

test("a merged cell (w:gridSpan) keeps its columns; a vertically merged cell stays an empty cell", () => {
  const tc = (t: string, tcPr = "") => `<w:tc>${tcPr ? `<w:tcPr>${tcPr}</w:tcPr>` : ""}${para(t)}</w:tc>`;
  const tcEmpty = (tcPr: string) => `<w:tc><w:tcPr>${tcPr}</w:tcPr><w:p/></w:tc>`;
  const table = `<w:tbl><w:tr>${tc("A")}${tc("BC", '<w:gridSpan w:val="2"/>')}${tc("D")}</w:tr><w:tr>${tc("1", '<w:vMerge w:val="restart"/>')}${tc("2")}${tc("3")}${tc("4")}</w:tr><w:tr>${tcEmpty("<w:vMerge/>")}${tc("6")}${tc("7")}${tc("8")}</w:tr></w:tbl>`;
  expect(md(table)).toBe("| A | BC |  | D |\n| --- | --- | --- | --- |\n| 1 | 2 | 3 | 4 |\n|  | 6 | 7 | 8 |\n");
});

describe("quotation and code styles", () => {
  test("a Quote style (by name, whatever its localized id) is a quotation; its italic is the style's look", () => {
    expect(md(styled("To be or not to be.", "Zitat"))).toBe("> To be or not to be.\n");
  });

  test("consecutive preformatted paragraphs are one code block, indentation, tabs and blank lines kept", () => {
    const code = (content: string) => p(content, '<w:pStyle w:val="HTMLPreformatted"/>');
    const body = para("Code:") + code(r("def hello():")) + code(r("    print(") + r('"hi"') + r(")")) + code("") + code("<w:r><w:tab/></w:r>" + r("return 1 * 2")) + para("After.");
    expect(md(body)).toBe('Code:\n\n```\ndef hello():\n    print("hi")\n\n\treturn 1 * 2\n```\n\nAfter.\n');
  });

  test("paragraphs typed in a monospace font are code; not in a document whose body font is monospace", () => {
    const mono = '<w:rFonts w:ascii="Courier New" w:hAnsi="Courier New"/>';
    const body = para("Run:") + p(r("npm install", mono)) + p(r("  npm test", mono));
    expect(md(body)).toBe("Run:\n\n```\nnpm install\n  npm test\n```\n");
    const typewriter = STYLES.replace('<w:name w:val="Normal"/>', `<w:name w:val="Normal"/><w:rPr>${mono}</w:rPr>`);
    expect(md(body, typewriter)).toBe("Run:\n\nnpm install\n\nnpm test\n");
  });
});

describe("HYPERLINK fields", () => {
  const field = (code: string, result: string) =>
    `<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve">${code}</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>${result}<w:r><w:fldChar w:fldCharType="end"/></w:r>`;

  test("a complex HYPERLINK field is a link over its result; other fields show their result, never their code", () => {
    expect(md(p(r("See ") + field(' HYPERLINK "https://example.org/docs" ', r("the docs")) + r(" for details.")))).toBe("See [the docs](https://example.org/docs) for details.\n");
    expect(md(p(r("Page ") + field(" PAGE ", r("3")) + r(", ") + field(' HYPERLINK \\l "_Toc1" ', r("Intro")) + r(".")))).toBe("Page 3, Intro.\n");
    expect(md(p('<w:fldSimple w:instr=" HYPERLINK &quot;https://example.org/s&quot; ">' + r("simple") + "</w:fldSimple>"))).toBe("[simple](https://example.org/s)\n");
  });
});

test("a List Paragraph without a number is a paragraph, not a bullet", () => {
  expect(md(para("Intro") + item("First bullet", 2, 0, "ListParagraph") + styled("More about the first bullet.", "ListParagraph") + item("Second bullet", 2, 0, "ListParagraph"))).toBe(
    "Intro\n\n- First bullet\n\nMore about the first bullet.\n\n- Second bullet\n",
  );
});

test("a text box's paragraphs come after the paragraph anchoring it, once; an image's description is not text", () => {
  const box = (t: string) => `<w:txbxContent>${para(t)}</w:txbxContent>`;
  const anchored = `<w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wp:anchor><wp:docPr id="1" name="Text Box 1"/><a:graphic><a:graphicData><wps:wsp><wps:txbx>${box("CALLOUT: Offer ends Friday")}</wps:txbx></wps:wsp></a:graphicData></a:graphic></wp:anchor></w:drawing></mc:Choice><mc:Fallback><w:pict><v:shape><v:textbox>${box("CALLOUT: Offer ends Friday")}</v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent></w:r>`;
  const image = '<w:r><w:drawing><wp:inline><wp:docPr id="2" name="Picture 2" descr="Org chart of the sales team"/></wp:inline></w:drawing></w:r>';
  expect(md(p(r("Flyer body.") + anchored) + p(r("Figure 1: ") + image) + para("After."))).toBe("Flyer body.\n\nCALLOUT: Offer ends Friday\n\nFigure 1:\n\nAfter.\n");
});

test("an equation keeps its text, written linearly; w:sym is its character", () => {
  const math = '<m:oMath><m:r><m:t>E=m</m:t></m:r><m:sSup><m:e><m:r><m:t>c</m:t></m:r></m:e><m:sup><m:r><m:t>2</m:t></m:r></m:sup></m:sSup></m:oMath>';
  const frac = '<m:oMathPara><m:oMath><m:f><m:num><m:r><m:t>a+b</m:t></m:r></m:num><m:den><m:r><m:t>2</m:t></m:r></m:den></m:f></m:oMath></m:oMathPara>';
  expect(md(p(r("Energy: ") + math + r(" holds.")) + p(frac))).toBe("Energy: E=mc^2 holds.\n\n(a+b)/2\n");
  const sym = (font: string, char: string) => `<w:r><w:sym w:font="${font}" w:char="${char}"/></w:r>`;
  expect(md(p(r("Check ") + sym("Wingdings", "F0FC") + r(" done; arrow ") + sym("Symbol", "F0AE") + r(" next; ") + sym("Symbol", "F061") + r(", ") + sym("Times New Roman", "00E9") + r(", ") + sym("Webdings", "F021") + r(".")))).toBe(
    "Check ✓ done; arrow → next; α, é, .\n",
  );
});
