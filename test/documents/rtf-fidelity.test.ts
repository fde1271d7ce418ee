/**
 * What an RTF says beyond its paragraphs, read as a DOCX's is (documents/office/rtf.ts, rtf-character-state.ts,
 * rtf-fonts.ts, rtf-paragraph-state.ts, rtf-story.ts, rtf-info.ts): a tracked deletion (`\deleted`) and hidden text
 * (`\v`) are not text (they were printed: "The result was very REMOVEDWORDS good."); bold, italic, struck-through
 * and monospace runs are marked; a list item's number is its marker's (a list starting at 5, one counting on after a
 * paragraph between its items), another list (`\ls`) is another list block and a numbered sub-list stays under its
 * bullet; `\line` is a hard line break, not a new paragraph; Quote, preformatted and Title styles are a quotation, a
 * code block and a heading; `{\info{\title}}` is the title; a text box's paragraphs follow the paragraph that anchors
 * it. The documents are written here as LibreOffice 7.4 and Word write them.
 */
import { describe, expect, test } from "bun:test";
import { convertOffice } from "../../src/documents/office/readers.ts";

const latin1 = (s: string) => new Uint8Array(Buffer.from(s, "latin1"));
const FONTS = String.raw`{\fonttbl{\f0\froman\fprq2\fcharset0 Liberation Serif;}{\f1\fmodern\fprq1\fcharset0 Liberation Mono{\*\falt Courier New};}{\f2\fswiss\fprq2\fcharset0 Consolas;}{\f3\fmodern\fcharset128\fprq1 MS Gothic;}}`;
/** An RTF document of `body`, with the font table above and `head` (a stylesheet, a list table, an info group). */
const rtf = (body: string, head = "") => latin1(String.raw`{\rtf1\ansi\deff0${FONTS}${head}` + body + "}");
const markdown = (body: string, head = "") => convertOffice("rtf", rtf(body, head)).markdown;
/** A paragraph as LibreOffice writes one: its properties, then its text in groups of their own. */
const para = (text: string, props = "") => String.raw`\pard\plain ${props}{\loch ${text}}\par `;
/** A list item as LibreOffice writes it: its marker in `{\listtext}`, its list `\lsN` and level `\ilvlN`. */
const item = (marker: string, ls: number, level: number, text: string) => String.raw`\pard\plain {\listtext\pard\plain ${marker}\tab}\ilvl${level}\ls${ls} {\loch ${text}}\par `;

describe("RTF text that is not shown", () => {
  test("a tracked deletion and hidden text are left out; \\v0 and the group's end show text again", () => {
    const body = String.raw`\pard\plain {\loch The result was }{\revised very }{\deleted\revauthdel1 REMOVEDWORDS }{\loch good.}\par ` + String.raw`\pard\plain Visible {\v SECRET-HIDDEN }text.\v  gone\v0  back\par `;
    expect(markdown(body)).toBe("The result was very good.\n\nVisible text. back\n");
  });
});

describe("RTF marks", () => {
  test("bold, italic, struck (\\strike, \\striked1) and monospace runs; \\b0 and the group's end turn them off", () => {
    const body = para(String.raw`This is }{\b bold}{, }{\i italic\i0  plain}{, }{\strike struck}{ and }{\striked1 double}{, }{\f1 code_span()}{, }{\f2 x = 1}{ and a split w}{\b or}{d.`);
    expect(markdown(body)).toBe("This is **bold**, *italic* plain, ~~struck~~ and ~~double~~, `code_span()`, `x = 1` and a split w**or**d.\n");
  });

  test("a font of East Asian characters (\\fmodern\\fcharset128, as Word files MS Gothic) is not code; \\plain ends code", () => {
    expect(markdown(para(String.raw`{\f3 \u26085?\u26412?\u35486?} and {\f1 mono\plain  plain}`))).toBe("日本語 and `mono` plain\n");
  });

  test("a character style that is code (LibreOffice's Source Text, by name or by its monospace font) marks code", () => {
    const sheet = String.raw`{\stylesheet{\s0 Normal;}{\*\cs15\snext15 Source Text;}{\*\cs16\f1 My Mono;}}`;
    expect(markdown(para(String.raw`Run }{\cs15 npm test}{ or }{\cs16 make`), sheet)).toBe("Run `npm test` or `make`\n");
  });

  test("a heading's text is not marked, nor bold that is its paragraph style's (a table's heading row)", () => {
    const sheet = String.raw`{\stylesheet{\s0 Normal;}{\s1\outlinelevel0\b heading 1;}{\s22\b Table Heading;}}`;
    const table = String.raw`\trowd\cellx2000\cellx4000\pard\plain\s22\intbl\b {Name}\cell\pard\plain\s22\intbl\b {Age}\cell\row\trowd\cellx2000\cellx4000\pard\plain\intbl {Ann}\cell\pard\plain\intbl {\b 30}\cell\row `;
    expect(markdown(para(String.raw`{\b Results} in {\i brief}`, String.raw`\s1\b `) + table + para("After."), sheet)).toBe(
      "# Results in brief\n\n| Name | Age |\n| --- | --- |\n| Ann | **30** |\n\nAfter.\n",
    );
  });
});

describe("RTF lists", () => {
  test("a list starting at 5, a count going on after a paragraph between items, and another list (\\ls) after it", () => {
    const body =
      para("Steps:") + item("5.", 1, 0, "Fifth") + item("6.", 1, 0, "Sixth") + para("Take care.") + item("7.", 1, 0, "Seventh") + item("1.", 2, 0, "Alpha") + item("2.", 2, 0, "Beta");
    expect(markdown(body)).toBe("Steps:\n\n5. Fifth\n6. Sixth\n\nTake care.\n\n7. Seventh\n\n1) Alpha\n2) Beta\n");
  });

  test("a numbered sub-list under bullets stays in its parent's list; a restart in one \\ls is a new list", () => {
    const bullet = String.raw`\u8226\'95`;
    const body = item(bullet, 4, 0, "Prepare") + item("1.", 4, 1, "Wash") + item("2.", 4, 1, "Cut") + item(bullet, 4, 0, "Cook") + para("Again:") + item("1.", 5, 0, "One") + item("2.", 5, 0, "Two") + item("1.", 5, 0, "Uno");
    expect(markdown(body)).toBe("- Prepare\n  1. Wash\n  2. Cut\n- Cook\n\nAgain:\n\n1. One\n2. Two\n\n1) Uno\n");
  });
});

describe("RTF line breaks", () => {
  test("\\line is a hard line break inside the paragraph; \\page still ends one", () => {
    expect(markdown(para(String.raw`221B Baker Street\line London\line NW1 6XE`) + para(String.raw`Before page break\page after page break`))).toBe(
      "221B Baker Street\\\nLondon\\\nNW1 6XE\n\nBefore page break\n\nafter page break\n",
    );
  });
});

describe("RTF paragraph styles", () => {
  test("Title is a level-1 heading, Quote a quotation, HTML Preformatted one code block with its indentation", () => {
    const sheet = String.raw`{\stylesheet{\s0 Normal;}{\s56\sbasedon51 Title;}{\s57 Subtitle;}{\s59 Quote;}{\s60 HTML Preformatted;}}`;
    const body = para("My Document", String.raw`\s56 `) + para("A subtitle", String.raw`\s57 `) + para("To be or not to be.", String.raw`\s59 `) + para("x = 1", String.raw`\s60 `) + para("", String.raw`\s60 `) + String.raw`\pard\plain \s60{    }{\loch indented\tab = 2}\par ` + para("After.");
    expect(markdown(body, sheet)).toBe("# My Document\n\nA subtitle\n\n> To be or not to be.\n\n```\nx = 1\n\n    indented\t= 2\n```\n\nAfter.\n");
  });

  test("paragraphs whose text is all monospace are a code block (LibreOffice's Preformatted Text sets the font)", () => {
    expect(markdown(para("def hello():", String.raw`\f1 `) + para(String.raw`    print("hi")`, String.raw`\f1 `) + para("Done."))).toBe('```\ndef hello():\n    print("hi")\n```\n\nDone.\n');
  });

  test("a document set all in a monospace font (its Normal style's, or its default) is text, not one long listing", () => {
    const sheet = String.raw`{\stylesheet{\s0\f1 Normal;}}`;
    expect(markdown(para("INT. KITCHEN - NIGHT", String.raw`\s0\f1 `) + para(String.raw`Ann enters, then }{\f2 grep}{ and }{\b leaves`, String.raw`\s0\f1 `), sheet)).toBe(
      "INT. KITCHEN - NIGHT\n\nAnn enters, then `grep` and **leaves**\n",
    );
    const courier = latin1(String.raw`{\rtf1\ansi\deff1${FONTS}` + para("Typed in Courier.") + "}");
    expect(convertOffice("rtf", courier).markdown).toBe("Typed in Courier.\n");
  });
});

describe("RTF information and text boxes", () => {
  test("{\\info{\\title}} is the document's title, its other entries not text", () => {
    const converted = convertOffice("rtf", rtf(para("Introduction", String.raw`\outlinelevel0 `) + para("Text."), String.raw`{\info{\title Notes and \u8364? Fields}{\author Ann}{\creatim\yr2024\mo1\dy2}}`));
    expect(converted.metadata.title).toBe("Notes and € Fields");
    expect(converted.markdown).toBe("# Introduction\n\nText.\n");
  });

  test("a text box's paragraphs (\\shptxt) follow the paragraph that anchors it; its properties and fallback are not text", () => {
    const shape = String.raw`{\shp{\*\shpinst\shpleft3402\shpright6237{\sp{\sn shapeType}{\sv 202}}{\sp{\sn wzDescription}{\sv A red logo}}{\shptxt \pard\plain {\loch TEXTBOX CONTENT inside a frame.}\par \pard}}{\shprslt{\*\do\dobxcolumn{\dptxbxtext Fallback copy\par}}}}`;
    const body = String.raw`\pard\plain {\loch ${shape}Before the box.}\par ` + para("See above.");
    expect(markdown(body)).toBe("Before the box.\n\nTEXTBOX CONTENT inside a frame.\n\nSee above.\n");
  });

  test("an older writer's drawing object text box ({\\*\\do … {\\dptxbxtext}}) is read too", () => {
    const body = String.raw`\pard\plain Flyer body.{\*\do\dobxcolumn\dptxbx{\dptxbxtext\pard CALLOUT: Offer ends Friday\par}}\par ` + para("End.");
    expect(markdown(body)).toBe("Flyer body.\n\nCALLOUT: Offer ends Friday\n\nEnd.\n");
  });
});
