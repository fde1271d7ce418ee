/**
 * Runs and paragraphs as Word 2016+, Google Docs and pandoc write them (documents/office/docx-inline.ts,
 * docx-symbols.ts, docx-styles.ts, docx-blocks.ts, inline-runs.ts, rtf.ts): emoji as `mc:AlternateContent` with a
 * `w16se:symEx` choice and the character in the fallback, a link's fragment kept apart in `w:anchor` or a field's
 * `\l`, AutoCorrect's arrows and pasted bullets in symbol fonts, pandoc's "Block Text" quotations, positional tabs,
 * drop caps, and Word's smart quotes in RTF. Each document is built here as WordprocessingML parts in a zip.
 */
import { describe, expect, test } from "bun:test";
import { strToU8, zipSync } from "fflate";
import { convertOffice } from "../../src/documents/office/readers.ts";

const R_URI = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const NS =
  `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="${R_URI}" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" ` +
  'xmlns:w16se="http://schemas.microsoft.com/office/word/2015/wordml/symex" xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" mc:Ignorable="w16se"';
const RELS = `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rIdA" Type="${R_URI}/hyperlink" Target="https://docs.example.com/guide" TargetMode="External"/></Relationships>`;

function md(body: string, styles = ""): string {
  const bytes = zipSync({
    "word/document.xml": strToU8(`<w:document ${NS}><w:body>${body}</w:body></w:document>`),
    "word/_rels/document.xml.rels": strToU8(RELS),
    "word/styles.xml": strToU8(`<w:styles ${NS}>${styles}</w:styles>`),
  });
  return convertOffice("docx", bytes).markdown;
}
const r = (text: string, rPr = "") => `<w:r>${rPr ? `<w:rPr>${rPr}</w:rPr>` : ""}<w:t xml:space="preserve">${text}</w:t></w:r>`;
const p = (content: string, pPr = "") => `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ""}${content}</w:p>`;
const font = (name: string) => `<w:rFonts w:ascii="${name}" w:hAnsi="${name}"/>`;

describe("mc:AlternateContent in a run", () => {
  test("Word 2016's emoji (a w16se:symEx choice) are the fallback's text, once", () => {
    const emoji = (ch: string, code: string) =>
      `<w:r><w:rPr>${font("Segoe UI Emoji")}</w:rPr><mc:AlternateContent><mc:Choice Requires="w16se"><w16se:symEx w16se:font="Segoe UI Emoji" w16se:char="${code}"/></mc:Choice><mc:Fallback><w:t>${ch}</w:t></mc:Fallback></mc:AlternateContent></w:r>`;
    expect(md(p(emoji("✅", "2705") + r(" Done")) + p(emoji("❌", "274C") + r(" Blocked")))).toBe("✅ Done\n\n❌ Blocked\n");
  });

  test("a choice this reader understands is read, not the fallback: a text box once", () => {
    const box = (t: string) => `<w:txbxContent>${p(r(t))}</w:txbxContent>`;
    const alternate = `<mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wps:txbx>${box("In the box")}</wps:txbx></w:drawing></mc:Choice><mc:Fallback><w:pict>${box("In the box")}</w:pict></mc:Fallback></mc:AlternateContent>`;
    expect(md(p(r("Anchor") + `<w:r>${alternate}</w:r>`))).toBe("Anchor\n\nIn the box\n");
  });
});

describe("a link's fragment", () => {
  test("w:anchor beside r:id is the target's fragment; an anchor alone (a bookmark) stays text", () => {
    expect(md(p(`<w:hyperlink r:id="rIdA" w:anchor="installation" w:history="1">${r("install guide")}</w:hyperlink>`))).toBe("[install guide](https://docs.example.com/guide#installation)\n");
    expect(md(p(`<w:hyperlink w:anchor="_Toc1">${r("Chapter 1")}</w:hyperlink>`))).toBe("Chapter 1\n");
  });

  test('a HYPERLINK field\'s \\l "sec" is its fragment; its tooltip is not the address; \\l alone is a bookmark', () => {
    const field = (code: string, text: string) =>
      `<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve">${code}</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>${r(text)}<w:r><w:fldChar w:fldCharType="end"/></w:r>`;
    expect(md(p(field(' HYPERLINK "https://example.com/page" \\l "sec" ', "field link")))).toBe("[field link](https://example.com/page#sec)\n");
    expect(md(p(field(' HYPERLINK \\o "Tip text" "https://example.com/" ', "tipped")))).toBe("[tipped](https://example.com/)\n");
    expect(md(p(field(' HYPERLINK \\l "_Toc2" ', "Inside")))).toBe("Inside\n");
    expect(md(p(`<w:fldSimple w:instr=' HYPERLINK "https://example.com/a" \\l "b" '>${r("simple")}</w:fldSimple>`))).toBe("[simple](https://example.com/a#b)\n");
  });

  test("an RTF HYPERLINK field keeps its \\l fragment too", () => {
    const rtf = String.raw`{\rtf1\ansi{\field{\*\fldinst HYPERLINK "https://example.com/page" \\l "sec"}{\fldrslt rtf link}}\par}`;
    expect(convertOffice("rtf", strToU8(rtf)).markdown).toBe("[rtf link](https://example.com/page#sec)\n");
  });
});

describe("symbol fonts", () => {
  const sym = (f: string, c: string) => `<w:r><w:rPr>${font(f)}</w:rPr><w:sym w:font="${f}" w:char="${c}"/></w:r>`;

  test("Word's AutoCorrect arrows (Wingdings F0E0, F0DF, F0E8, F0E7, F0F3) and Wingdings 2 ticks", () => {
    expect(md(p(r("Input ") + sym("Wingdings", "F0E0") + r(" output ") + sym("Wingdings", "F0DF") + r(" back")))).toBe("Input → output ← back\n");
    expect(md(p(sym("Wingdings", "F0E8") + sym("Wingdings", "F0E7") + sym("Wingdings", "F0F3") + r(" ") + sym("Wingdings 2", "F050") + sym("Wingdings 2", "F054")))).toBe("➔⬅⬄ ✓☒\n");
  });

  test("a symbol font's private-use characters typed as text are its glyphs; unknown ones are left out; other fonts' are kept", () => {
    expect(md(p(r("\uf0b7", font("Symbol")) + r(" pasted bullet")))).toBe("• pasted bullet\n");
    expect(md(p(r("\uf0fc", font("Wingdings")) + r(" done ") + r("\uf0e0", font("Wingdings")) + r(" next")))).toBe("✓ done → next\n");
    expect(md(p(r("a\uf021b", font("Wingdings 3"))))).toBe("ab\n");
    expect(md(p(r("private \uf0b7", font("Calibri"))))).toBe("private \uf0b7\n");
  });

  test("plain characters in Symbol and Wingdings are the font's glyphs, as Word shows them (they printed as letters)", () => {
    expect(md(p(r("a + b = p", font("Symbol")) + r(" in Greek")))).toBe("α + β = π in Greek\n");
    expect(md(p(r("\u00fc", font("Wingdings")) + r(" checked ") + r("J", font("Wingdings"))))).toBe("✓ checked ☺\n");
    // A glyph read from a private-use character is not read again (Symbol's F0D2 is ®, whose own code AE is →).
    expect(md(p(r("\uf0d2\uf0ae", font("Symbol"))))).toBe("®→\n");
    // Webdings and fonts merely named alike keep their letters.
    expect(md(p(r("abc", font("Webdings")) + r(" xyz", font("Symbol MT"))))).toBe("abc xyz\n");
  });
});

describe("pandoc's styles and Word's layout characters", () => {
  test('"Block Text" (pandoc\'s block quote) is a quotation', () => {
    const styles = '<w:style w:type="paragraph" w:styleId="BlockText"><w:name w:val="Block Text"/></w:style>';
    expect(md(p(r("A quoted passage."), '<w:pStyle w:val="BlockText"/>'), styles)).toBe("> A quoted passage.\n");
  });

  test("a positional tab (w:ptab) separates words as a tab does", () => {
    expect(md(p(r("Left") + '<w:r><w:ptab w:relativeTo="margin" w:alignment="right" w:leader="none"/></w:r>' + r("Right")))).toBe("Left Right\n");
  });
});

describe("drop caps", () => {
  const frame = (type: string) => `<w:framePr w:dropCap="${type}" w:lines="3" w:wrap="around" w:vAnchor="text" w:hAnchor="text"/>`;

  test("a drop cap's letter begins the next paragraph's first word", () => {
    expect(md(p(r("O"), frame("drop")) + p(r("nce upon a time.")) + p(r("Later.")))).toBe("Once upon a time.\n\nLater.\n");
    expect(md(p(r("I"), frame("margin")) + p(r("n the beginning.")))).toBe("In the beginning.\n");
  });

  test("a drop cap nothing follows stays a paragraph; a frame that is not a drop cap is its own paragraph", () => {
    expect(md(p(r("O"), frame("drop")) + `<w:tbl><w:tr><w:tc>${p(r("cell"))}</w:tc></w:tr></w:tbl>`)).toBe("O\n\n| cell |\n| --- |\n");
    expect(md(p(r("Z"), frame("drop")))).toBe("Z\n");
    expect(md(p(r("Sidebar"), frame("none")) + p(r("Body.")))).toBe("Sidebar\n\nBody.\n");
  });

  test("the text boxes a drop cap anchors come after the paragraph it begins (they were lost)", () => {
    const box = `<w:r><w:pict><w:txbxContent>${p(r("Boxed note"))}</w:txbxContent></w:pict></w:r>`;
    expect(md(p(r("O") + box, frame("drop")) + p(r("nce upon a time.")) + p(r("Later.")))).toBe("Once upon a time.\n\nBoxed note\n\nLater.\n");
    expect(md(p(r("Z") + box, frame("drop")))).toBe("Z\n\nBoxed note\n");
  });

  test("a whole word as a drop cap is a word of its own; a letter or two begin the first word", () => {
    expect(md(p(r("ONCE"), frame("drop")) + p(r("upon a time.")))).toBe("ONCE upon a time.\n");
    expect(md(p(r("ONCE"), frame("drop")) + p(r(" upon a time.")))).toBe("ONCE upon a time.\n");
    expect(md(p(r("Th"), frame("drop")) + p(r("ere was once.")))).toBe("There was once.\n");
  });

  test("a drop cap before a heading or a line of code is a paragraph of its own, not part of them", () => {
    const styles = '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style>';
    expect(md(p(r("c"), frame("drop")) + p(r("ode line", font("Consolas"))))).toBe("c\n\n```\node line\n```\n");
    expect(md(p(r("T"), frame("drop")) + p(r("itle"), '<w:pStyle w:val="Heading1"/>'), styles)).toBe("T\n\n# itle\n");
  });
});

describe("Word's RTF", () => {
  test("smart quotes stay typographic, as the same document's DOCX has them", () => {
    const rtf = String.raw`{\rtf1\ansi\pard \ldblquote Quoted,\rdblquote  she said; \lquote it\rquote s done\emdash really\endash now.\par}`;
    expect(convertOffice("rtf", strToU8(rtf)).markdown).toBe("“Quoted,” she said; ‘it’s done—really–now.\n");
  });
});
