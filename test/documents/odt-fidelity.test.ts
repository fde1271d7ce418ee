/**
 * ODT fidelity (documents/office/odt.ts, odt-inline.ts, odt-lists.ts, odt-styles.ts): what an ODT's styles say
 * reaches the markdown as a DOCX's does. Before, every list was bulleted (numbers, start values, a count going on
 * after a note, restarts all lost), runs had no marks, a merged cell's covered cells were dropped (the row slid
 * left), any `xlink:href` became a link (`#bookmark`, `javascript:`), a text box's text was glued onto its
 * paragraph and an image's alt text shown inline, hard line breaks were spaces, a list in a table cell ran its items
 * together (`boltnut`), and quotations, preformatted text and the Title style were plain paragraphs.
 *
 * odt-fidelity/*.odt were written by LibreOffice 7.4 from the sources beside them (`soffice --headless
 * --infilter="HTML (StarWriter)" --convert-to odt lists.html`, and so tables.html and inline.html;
 * `--convert-to odt notes.fodt`); the other documents are built here.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { strToU8, zipSync } from "fflate";
import { odtToBlocks } from "../../src/documents/office/odt.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";
import { TextBudget } from "../../src/documents/office/text-budget.ts";

const fixture = (name: string) => new Uint8Array(readFileSync(join(import.meta.dir, "..", "fixtures", "documents", "odt-fidelity", name)));

const NS = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"',
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"',
  'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"',
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"',
  'xmlns:xlink="http://www.w3.org/1999/xlink"',
].join(" ");

interface Parts {
  /** content.xml's automatic styles. */
  automatic?: string;
  /** styles.xml's common styles. */
  common?: string;
  /** Font declarations (in content.xml). */
  fonts?: string;
}

/** An ODT of `body` (office:text's content) and the styles given. */
function odt(body: string, parts: Parts = {}): Uint8Array {
  const content = `<office:document-content ${NS}><office:font-face-decls>${parts.fonts ?? ""}</office:font-face-decls><office:automatic-styles>${parts.automatic ?? ""}</office:automatic-styles><office:body><office:text>${body}</office:text></office:body></office:document-content>`;
  const styles = `<office:document-styles ${NS}><office:styles>${parts.common ?? ""}</office:styles></office:document-styles>`;
  return zipSync({ mimetype: strToU8("application/vnd.oasis.opendocument.text"), "content.xml": strToU8(content), "styles.xml": strToU8(styles) });
}

const markdown = (body: string, parts?: Parts) => convertOffice("odt", odt(body, parts)).markdown;

/** A list style: each level numbered ("1") or bulleted ("•"), level 1 from `start`. */
function listStyle(name: string, levels: ("1" | "•" | "")[], start?: number): string {
  const level = (kind: string, i: number) =>
    kind === "•"
      ? `<text:list-level-style-bullet text:level="${i + 1}" text:bullet-char="•"/>`
      : `<text:list-level-style-number text:level="${i + 1}" style:num-format="${kind}" style:num-suffix="."${i === 0 && start ? ` text:start-value="${start}"` : ""}/>`;
  return `<text:list-style style:name="${name}">${levels.map(level).join("")}</text:list-style>`;
}

const items = (...texts: string[]) => texts.map((t) => `<text:list-item><text:p>${t}</text:p></text:list-item>`).join("");
const p = (text: string, style?: string) => `<text:p${style ? ` text:style-name="${style}"` : ""}>${text}</text:p>`;
const textStyle = (name: string, props: string) => `<style:style style:name="${name}" style:family="text"><style:text-properties ${props}/></style:style>`;
const paragraphStyle = (name: string, props: string, parent?: string) =>
  `<style:style style:name="${name}" style:family="paragraph"${parent ? ` style:parent-style-name="${parent}"` : ""}><style:text-properties ${props}/></style:style>`;

describe("ODT lists", () => {
  test("LibreOffice's lists: numbered levels, a start value, numbers under bullets, two lists in a row kept apart", () => {
    const md = convertOffice("odt", fixture("lists.odt")).markdown;
    expect(md).toContain("Numbered:\n\n1. First step\n2. Second step\n   1. Sub step A\n   2. Sub step B\n3. Third step\n");
    expect(md).toContain("Numbered starting at 5:\n\n5. Fifth\n6. Sixth\n");
    expect(md).toContain("- Prepare\n  1. Wash\n  2. Cut\n- Cook\n");
    // The second list restarts: a list of its own, written with the other delimiter so markdown does not join them.
    expect(md).toContain("1. Alpha one\n2. Alpha two\n\n1) Beta one\n2) Beta two\n");
    expect(md).toContain("- Apple\n  - Green apple\n    - Granny Smith\n  - Red apple\n- Banana\n");
    // Letters are each item's label (markdown numbers only in digits), `<ol type="a">` in the HTML.
    expect(md).toContain("Lettered list:\n\n- a. option a\n- b. option b\n");
  });

  test("a list that goes on after a paragraph counts on (text:continue-numbering, text:continue-list); one that does not restarts", () => {
    const automatic = listStyle("L1", ["1"]) + listStyle("L2", ["1"]);
    const body =
      `<text:list xml:id="list1" text:style-name="L1">${items("Open the box")}</text:list>${p("Take care: the box is heavy.")}` +
      `<text:list text:continue-numbering="true" text:style-name="L1">${items("Remove the pump", "Install it")}</text:list>${p("Later:")}` +
      `<text:list text:continue-list="list1" text:style-name="L1">${items("Test it")}</text:list>${p("Another list:")}` +
      `<text:list text:style-name="L1">${items("Fresh")}</text:list>${p("Another style:")}` +
      `<text:list text:continue-numbering="true" text:style-name="L2">${items("Not continued")}</text:list>`;
    expect(markdown(body, { automatic })).toBe(
      "1. Open the box\n\nTake care: the box is heavy.\n\n2. Remove the pump\n3. Install it\n\nLater:\n\n4. Test it\n\nAnother list:\n\n1. Fresh\n\nAnother style:\n\n1. Not continued\n",
    );
  });

  test("an item's text:start-value restarts the count there; the list style may come from styles.xml or the paragraph's style", () => {
    const common = listStyle("WWNum4", ["1"]) + `<style:style style:name="Numbered" style:family="paragraph" style:list-style-name="WWNum4"/>`;
    const body =
      `<text:list text:style-name="WWNum4"><text:list-item text:start-value="7"><text:p>Seventh</text:p></text:list-item>${items("Eighth")}</text:list>` +
      p("Between.") +
      `<text:list><text:list-item><text:p text:style-name="Numbered">By the paragraph's style</text:p></text:list-item></text:list>`;
    expect(markdown(body, { common })).toBe("7. Seventh\n8. Eighth\n\nBetween.\n\n1. By the paragraph's style\n");
  });

  test("an item's second paragraph joins it (it was an item of its own, numbered); a list header's paragraph is kept", () => {
    const automatic = listStyle("L1", ["1"]);
    const body = `<text:list text:style-name="L1"><text:list-header><text:p>Steps:</text:p></text:list-header><text:list-item><text:p>Open</text:p><text:p>Gently.</text:p></text:list-item>${items("Close")}</text:list>`;
    const converted = convertOffice("odt", odt(body, { automatic }));
    expect(converted.markdown).toBe("Steps:\n\n1. Open Gently.\n2. Close\n");
    expect(converted.html).toContain("<ol><li>Open<br>Gently.</li><li>Close</li></ol>");
  });

  test("a level with no number format (style:num-format empty) and a list without a style are bullets", () => {
    const automatic = listStyle("L1", [""]);
    expect(markdown(`<text:list text:style-name="L1">${items("a", "b")}</text:list>${p("x")}<text:list>${items("c")}</text:list>`, { automatic })).toBe("- a\n- b\n\nx\n\n- c\n");
  });
});

describe("ODT marks", () => {
  test("LibreOffice's spans: bold, italic, struck, Source Text as code, a word split by a bold run", () => {
    const md = convertOffice("odt", fixture("inline.odt")).markdown;
    expect(md).toContain("This is **bold**, *italic*, ~~struck~~, underlined, `code_span()` and a split w**or**d.");
    // A heading's marks (its style's bold) are noise.
    expect(md).toContain("# Inline test\n");
  });

  test("text styles: weight 600 or more, oblique, line-through, a monospace font by its declaration, a common character style", () => {
    const fonts = `<style:font-face style:name="Courier New1" svg:font-family="'Courier New'"/><style:font-face style:name="Arial" svg:font-family="Arial"/>`;
    const automatic =
      textStyle("T1", 'fo:font-weight="700"') +
      textStyle("T2", 'fo:font-style="oblique"') +
      textStyle("T3", 'style:text-line-through-style="solid"') +
      textStyle("T4", 'style:font-name="Courier New1"') +
      textStyle("T5", 'style:font-name="Arial" fo:font-weight="normal"') +
      textStyle("T6", 'style:text-line-through-style="none"');
    const common = `<style:style style:name="Strong_20_Emphasis" style:display-name="Strong Emphasis" style:family="text"><style:text-properties fo:font-weight="bold"/></style:style><style:style style:name="Teletype" style:family="text"/>`;
    const body = p(
      `<text:span text:style-name="T1">heavy</text:span> <text:span text:style-name="T2">slanted</text:span> <text:span text:style-name="T3">gone</text:span> ` +
        `<text:span text:style-name="T4">x = 1</text:span> <text:span text:style-name="Strong_20_Emphasis">strong</text:span> <text:span text:style-name="Teletype">tt</text:span> ` +
        `<text:span text:style-name="T6">kept</text:span>`,
    );
    expect(markdown(body, { fonts, automatic, common })).toBe("**heavy** *slanted* ~~gone~~ `x = 1` **strong** `tt` kept\n");
  });

  test("a paragraph's automatic style marks its runs (formatting on the whole paragraph); a named style's bold is its look", () => {
    const automatic = paragraphStyle("P1", 'fo:font-weight="bold"', "Text_20_body") + textStyle("T1", 'fo:font-weight="normal"') + paragraphStyle("P2", 'fo:font-size="12pt"', "Table_20_Heading");
    const common = paragraphStyle("Table_20_Heading", 'fo:font-weight="bold"') + paragraphStyle("Caption", 'fo:font-style="italic"');
    const body = p("Project Proposal", "P1") + p(`Mostly bold, <text:span text:style-name="T1">not this</text:span>`, "P1") + p("Head", "P2") + p("A caption", "Caption");
    expect(markdown(body, { automatic, common })).toBe("**Project Proposal**\n\n**Mostly bold**, not this\n\nHead\n\nA caption\n");
  });

  test("hidden text (text:display none) is left out, in a span or a whole paragraph", () => {
    const automatic = textStyle("T1", 'text:display="none"') + paragraphStyle("P1", 'text:display="none"');
    expect(markdown(p(`Visible <text:span text:style-name="T1">SECRET-HIDDEN </text:span>text.`) + p("HIDDEN PARAGRAPH", "P1"), { automatic })).toBe("Visible text.\n");
  });
});

describe("ODT tables", () => {
  test("LibreOffice's merged cells keep their columns: a covered cell is an empty cell (the row slid left)", () => {
    const md = convertOffice("odt", fixture("tables.odt")).markdown;
    expect(md).toContain("| Region | Sales |  | Note |\n| --- | --- | --- | --- |\n| North | Q1 | 100 | good |\n|  | Q2 | 200 | better |\n| South | Q1 | 50 | low |\n");
    // A list in a cell: its items a space apart (they ran together, "boltnut").
    expect(md).toContain("| Kit | bolt nut |");
  });

  test("a span without covered cells after it is padded; with them, not twice; a huge span is bounded and counted", () => {
    const cell = (text: string, span = "") => `<table:table-cell${span ? ` table:number-columns-spanned="${span}"` : ""}><text:p>${text}</text:p></table:table-cell>`;
    const row = (...cells: string[]) => `<table:table-row>${cells.join("")}</table:table-row>`;
    const table = (...rows: string[]) => `<table:table>${rows.join("")}</table:table>`;
    expect(markdown(table(row(cell("A"), cell("B", "2"), cell("C")), row(cell("1"), cell("2"), cell("3"), cell("4"))))).toBe("| A | B |  | C |\n| --- | --- | --- | --- |\n| 1 | 2 | 3 | 4 |\n");
    expect(markdown(table(row(cell("A"), cell("B", "2"), "<table:covered-table-cell/>", cell("C"))))).toBe("| A | B |  | C |\n| --- | --- | --- | --- |\n");
    const huge = odtToBlocks(odt(table(row(cell("A", "1000000000"), cell("B")))), new TextBudget());
    const rows = huge.blocks[0]?.kind === "table" ? huge.blocks[0].rows : [];
    expect(rows[0]?.length).toBe(1025);
    const budget = new TextBudget(10);
    const cut = odtToBlocks(odt(table(row(cell("A", "1000"), cell("B")))), budget);
    expect(cut.blocks[0]?.kind === "table" && cut.blocks[0].rows[0]!.length).toBeLessThan(12);
    expect(budget.cut).toBe(true);
  });
});

describe("ODT links", () => {
  test("web, mail and FTP targets are links; a bookmark, a relative file and a script are text", () => {
    const a = (href: string, text: string) => `<text:a xlink:type="simple" xlink:href="${href}">${text}</text:a>`;
    const body = p(`${a("https://example.org/x", "web")} ${a("mailto:bob@example.com", "mail")} ${a("ftp://example.org/f", "ftp")} ${a("#later", "bookmark")} ${a("../other.odt", "file")} ${a("javascript:alert(1)", "script")} ${a(" JavaScript:alert(2)", "again")}`);
    const converted = convertOffice("odt", odt(body));
    expect(converted.markdown).toBe("[web](https://example.org/x) [mail](mailto:bob@example.com) [ftp](ftp://example.org/f) bookmark file script again\n");
    expect(converted.html.toLowerCase()).not.toContain("javascript");
    expect(converted.html).not.toContain("#later");
    expect(convertOffice("odt", fixture("inline.odt")).markdown).toContain("Jump to the later section.");
  });
});

describe("ODT drawings", () => {
  test("a text box's paragraphs come after the paragraph anchoring it; an image's alt text is not text", () => {
    expect(convertOffice("odt", fixture("notes.odt")).markdown).toContain("Reviewed text continues here.\n\nBefore the box.\n\nTEXTBOX CONTENT inside a frame.\n\nSee the introduction above.");
    const md = convertOffice("odt", fixture("inline.odt")).markdown;
    expect(md).toContain("\nImage:\n");
    expect(md).not.toContain("A red rectangle");
  });

  test("shapes with text, page-anchored frames, a text box in a table cell; pictures' titles and descriptions are dropped", () => {
    const image = `<draw:frame draw:name="Image1"><draw:image xlink:href="Pictures/1.png"/><svg:title>Org chart</svg:title><svg:desc>Org chart of the sales team</svg:desc></draw:frame>`;
    const shape = `<draw:custom-shape draw:name="Text Box 1"><text:p>CALLOUT: Offer ends Friday</text:p><draw:enhanced-geometry/></draw:custom-shape>`;
    const page = `<draw:frame text:anchor-type="page"><draw:text-box><text:p>On the page</text:p></draw:text-box></draw:frame>`;
    const cell = `<table:table><table:table-row><table:table-cell><text:p>Cell<draw:frame><draw:text-box><text:p>boxed</text:p></draw:text-box></draw:frame></text:p></table:table-cell></table:table-row></table:table>`;
    expect(markdown(`${page}${p(`Figure 1: ${image}`)}${p(`Flyer body.${shape}`)}${cell}`)).toBe("On the page\n\nFigure 1:\n\nFlyer body.\n\nCALLOUT: Offer ends Friday\n\n| Cell boxed |\n| --- |\n");
  });
});

describe("ODT line breaks and spaces", () => {
  test("text:line-break is a hard line break; text:tab a space; text:s its spaces", () => {
    const converted = convertOffice("odt", odt(p("221B Baker Street<text:line-break/>London<text:line-break/>NW1 6XE") + p("a<text:tab/>b<text:s text:c=\"3\"/>c")));
    expect(converted.markdown).toBe("221B Baker Street\\\nLondon\\\nNW1 6XE\n\na b   c\n");
    expect(converted.html).toContain("<p>221B Baker Street<br>London<br>NW1 6XE</p>");
  });
});

describe("ODT paragraph styles", () => {
  test("LibreOffice's Quotations and Preformatted Text: a quotation, one code block with its indentation", () => {
    const md = convertOffice("odt", fixture("inline.odt")).markdown;
    expect(md).toContain("\n> A quoted paragraph from someone famous.\n");
    expect(md).toContain('\n```\ndef hello():\n    print("hi")\n    return 1 * 2\n```\n');
  });

  test("Title is a level-1 heading (a style based on it is not); Quote and HTML Preformatted (a DOCX's) by their names; an empty code line inside a block is kept", () => {
    const common =
      `<style:style style:name="Title" style:family="paragraph"><style:text-properties fo:font-weight="bold"/></style:style>` +
      `<style:style style:name="Subtitle" style:family="paragraph" style:parent-style-name="Title"/>` +
      `<style:style style:name="Quote" style:family="paragraph"/>` +
      `<style:style style:name="HTML_20_Preformatted" style:display-name="HTML Preformatted" style:family="paragraph"/>`;
    // P1: formatting applied to the title paragraph itself (LibreOffice's automatic style over Title).
    const automatic = `<style:style style:name="P1" style:family="paragraph" style:parent-style-name="Title"><style:paragraph-properties fo:text-align="center"/></style:style>`;
    const body = p("My Document", "P1") + p("A subtitle", "Subtitle") + p("To be or not to be.", "Quote") + p("x = 1", "HTML_20_Preformatted") + p("", "HTML_20_Preformatted") + p('<text:s text:c="4"/>indented = 2', "HTML_20_Preformatted") + p("", "HTML_20_Preformatted");
    const converted = convertOffice("odt", odt(body, { common, automatic }));
    expect(converted.markdown).toBe("# My Document\n\nA subtitle\n\n> To be or not to be.\n\n```\nx = 1\n\n    indented = 2\n```\n");
    expect(converted.metadata.title).toBe("My Document");
  });

  test("a paragraph all in a monospace font is a code line; not when the whole document is set in one", () => {
    const fonts = `<style:font-face style:name="Liberation Mono" svg:font-family="'Liberation Mono'"/>`;
    const automatic = textStyle("T1", 'style:font-name="Liberation Mono"');
    const body = p('<text:span text:style-name="T1">npm install</text:span>') + p('Run <text:span text:style-name="T1">npm test</text:span>.');
    expect(markdown(body, { fonts, automatic })).toBe("```\nnpm install\n```\n\nRun `npm test`.\n");
    const typewriter = `<style:style style:name="Standard" style:family="paragraph"><style:text-properties style:font-name="Liberation Mono"/></style:style>`;
    const plain = `<style:style style:name="P1" style:family="paragraph" style:parent-style-name="Standard"/>`;
    expect(markdown(p("Dear Sir,", "P1") + p('<text:span text:style-name="T1">mono</text:span> too', "P1"), { fonts, automatic: automatic + plain, common: typewriter })).toBe("Dear Sir,\n\nmono too\n");
  });

  test("numbered headings keep their numbers (text:outline-style), as a DOCX's and an RTF's do", () => {
    const outline =
      `<text:outline-style style:name="Outline">` +
      `<text:outline-level-style text:level="1" style:num-format="1" style:num-suffix="."/>` +
      `<text:outline-level-style text:level="2" style:num-format="1" style:num-suffix="." text:display-levels="2"/>` +
      `<text:outline-level-style text:level="3" style:num-format=""/>` +
      `<text:outline-level-style text:level="4" style:num-format="A" style:num-prefix="(" style:num-suffix=")"/>` +
      `</text:outline-style>`;
    const h = (level: number, text: string, attrs = "") => `<text:h text:outline-level="${level}"${attrs}>${text}</text:h>`;
    const body = h(1, "Scope") + h(2, "Details") + h(2, "More") + h(3, "Plain") + h(4, "Lettered") + h(1, "Next") + h(2, "Again") + h(1, "Preface", ' text:is-list-header="true"') + h(1, "Ten", ' text:restart-numbering="true" text:start-value="10"');
    expect(markdown(body, { common: outline })).toBe("# 1. Scope\n\n## 1.1. Details\n\n## 1.2. More\n\n### Plain\n\n#### (A) Lettered\n\n# 2. Next\n\n## 2.1. Again\n\n# Preface\n\n# 10. Ten\n");
    // Without an outline style (or with empty formats, LibreOffice's default), headings are their text.
    expect(markdown(h(1, "Scope"))).toBe("# Scope\n");
  });

  test("a table of contents is kept as its paragraphs, as a DOCX's, DOC's and RTF's is (it was left out); its template is not text", () => {
    const md = convertOffice("odt", fixture("notes.odt")).markdown;
    expect(md.startsWith("Contents\n\nIntroduction 1\n\nDetails 2\n\n# Introduction\n")).toBe(true);
  });
});
