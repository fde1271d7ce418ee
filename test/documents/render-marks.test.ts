/**
 * What office documents carry besides plain text, as layout/render.ts writes it (shared by DOCX, ODT, DOC, RTF and
 * PDF): bold, italic, strikethrough and code runs, hard line breaks, list numbers a document sets (a start value, a
 * count going on after a note, numbered sub-lists), a list right after another, quotations, `~` and link
 * parentheses. Each markdown is read back with Bun's CommonMark/GFM renderer and compared with the HTML the same
 * blocks give, so the two formats agree.
 */
import { describe, expect, test } from "bun:test";
import type { Block, Inline } from "../../src/documents/layout/model.ts";
import { blocksToMarkdown } from "../../src/documents/layout/render.ts";
import { blocksToHtml } from "../../src/documents/layout/render-html.ts";

const commonMark = (markdown: string) => Bun.markdown.html(markdown).replace(/\n/g, "");
const ownHtml = (blocks: Block[]) => blocksToHtml(blocks).replace(/^<html><body>|<\/body><\/html>$/g, "").replace(/\n/g, "");
const para = (...content: Inline[]): Block => ({ kind: "paragraph", content });

describe("marks", () => {
  test("bold, italic, struck and code runs; runs split mid-word are one; blanks stay outside the delimiters", () => {
    const blocks = [para({ text: "This is " }, { text: "bo", bold: true }, { text: "ld ", bold: true }, { text: "italic", italic: true }, { text: ", " }, { text: "struck", strike: true }, { text: " and " }, { text: "code_span()", code: true }, { text: "." })];
    const md = blocksToMarkdown(blocks);
    expect(md).toBe("This is **bold** *italic*, ~~struck~~ and `code_span()`.\n");
    expect(commonMark(md)).toBe("<p>This is <strong>bold</strong> <em>italic</em>, <del>struck</del> and <code>code_span()</code>.</p>");
    expect(ownHtml(blocks)).toBe("<p>This is <strong>bo</strong><strong>ld </strong><em>italic</em>, <s>struck</s> and <code>code_span()</code>.</p>");
  });

  test("bold and italic together, nested so that each closes inside the other; a bold link", () => {
    const md = blocksToMarkdown([para({ text: "both", bold: true, italic: true }, { text: " then bold", bold: true }, { text: " and " }, { text: "a link", href: "https://e.com/x", bold: true })]);
    expect(md).toBe("***both* then bold** and [**a link**](https://e.com/x)\n");
    expect(commonMark(md)).toBe('<p><strong><em>both</em> then bold</strong> and <a href="https://e.com/x"><strong>a link</strong></a></p>');
  });

  test("marked blanks are not delimited; marked text keeps its escapes (escaped edges go outside)", () => {
    const md = blocksToMarkdown([para({ text: "a" }, { text: "  ", bold: true }, { text: "b" }, { text: " *x*", italic: true })]);
    expect(md).toBe("a  b \\**x*\\*\n");
    expect(commonMark(md)).toBe("<p>a  b *<em>x</em>*</p>");
  });
});

describe("line breaks and tildes", () => {
  test("a hard line break is a backslash break in a paragraph, a space in a heading, an item or a cell", () => {
    const address: Inline[] = [{ text: "221B Baker Street" }, { text: "", lineBreak: true }, { text: "London" }, { text: "", lineBreak: true }, { text: "1. NW1 6XE" }];
    const blocks: Block[] = [para(...address), { kind: "heading", level: 2, content: address }, { kind: "list", ordered: false, items: [{ depth: 0, content: address }] }, { kind: "table", rows: [[[{ text: "h" }]], [address]] }];
    const md = blocksToMarkdown(blocks);
    expect(md).toContain("221B Baker Street\\\nLondon\\\n1\\. NW1 6XE\n\n## 221B Baker Street London 1. NW1 6XE\n\n- 221B Baker Street London 1. NW1 6XE\n");
    expect(md).toContain("| 221B Baker Street London 1. NW1 6XE |");
    expect(commonMark(md)).toStartWith("<p>221B Baker Street<br />London<br />1. NW1 6XE</p>");
    expect(ownHtml([blocks[0]!])).toBe("<p>221B Baker Street<br>London<br>1. NW1 6XE</p>");
  });

  test("a run of ~ touching text is escaped (it was struck through); one between blanks is left", () => {
    const md = blocksToMarkdown([para({ text: "~~tilde~~ and ~5 min, a ~~~ b" })]);
    expect(md).toBe("\\~\\~tilde\\~\\~ and \\~5 min, a ~~~ b\n");
    expect(commonMark(md)).not.toContain("<del>");
  });

  test("parentheses in a link target are percent-encoded (encodeURIComponent keeps them)", () => {
    const md = blocksToMarkdown([para({ text: "wiki", href: "https://e.com/Foo_(bar" })]);
    expect(md).toBe("[wiki](https://e.com/Foo_%28bar)\n");
    expect(commonMark(md)).toBe('<p><a href="https://e.com/Foo_%28bar">wiki</a></p>');
  });
});

describe("list numbers", () => {
  const item = (text: string, extra: { depth?: number; ordered?: boolean; number?: number } = {}) => ({ depth: extra.depth ?? 0, content: [{ text }], ...extra });

  test("a list that starts at 5, and one that goes on after a note between its steps", () => {
    const blocks: Block[] = [
      { kind: "list", ordered: true, items: [item("Five", { number: 5 }), item("Six")] },
      para({ text: "A note between the steps." }),
      { kind: "list", ordered: true, items: [item("Seven", { number: 7 })] },
    ];
    const md = blocksToMarkdown(blocks);
    expect(md).toBe("5. Five\n6. Six\n\nA note between the steps.\n\n7. Seven\n");
    expect(commonMark(md)).toBe(ownHtml(blocks));
    expect(ownHtml(blocks)).toBe('<ol start="5"><li>Five</li><li>Six</li></ol><p>A note between the steps.</p><ol start="7"><li>Seven</li></ol>');
  });

  test("numbered sub-items under numbers and under bullets count from 1 under each parent", () => {
    const blocks: Block[] = [
      { kind: "list", ordered: true, items: [item("First"), item("Sub A", { depth: 1, ordered: true }), item("Sub B", { depth: 1, ordered: true }), item("Second"), item("Sub C", { depth: 1, ordered: true })] },
      { kind: "list", ordered: false, items: [item("Prepare"), item("Wash", { depth: 1, ordered: true }), item("Cut", { depth: 1, ordered: true }), item("Cook")] },
    ];
    const md = blocksToMarkdown(blocks);
    expect(md).toBe("1. First\n   1. Sub A\n   2. Sub B\n2. Second\n   1. Sub C\n\n- Prepare\n  1. Wash\n  2. Cut\n- Cook\n");
    expect(commonMark(md)).toBe(ownHtml(blocks));
  });

  test("two lists of a kind back to back stay two: the second takes the other delimiter", () => {
    const blocks: Block[] = [
      { kind: "list", ordered: true, items: [item("Mix"), item("Bake")] },
      { kind: "list", ordered: true, items: [item("Chop"), item("Fry")] },
      { kind: "list", ordered: true, items: [item("Serve")] },
      { kind: "list", ordered: false, items: [item("salt")] },
      { kind: "list", ordered: false, items: [item("pepper")] },
    ];
    const md = blocksToMarkdown(blocks);
    expect(md).toBe("1. Mix\n2. Bake\n\n1) Chop\n2) Fry\n\n1. Serve\n\n- salt\n\n* pepper\n");
    expect(commonMark(md)).toBe(ownHtml(blocks));
  });
});

test("a quotation is a block quote, line breaks kept inside it", () => {
  const blocks: Block[] = [{ kind: "quote", content: [{ text: "To be," }, { text: "", lineBreak: true }, { text: "or not", italic: true }] }];
  const md = blocksToMarkdown(blocks);
  expect(md).toBe("> To be,\\\n> *or not*\n");
  expect(commonMark(md)).toBe(ownHtml(blocks).replace("<br>", "<br />"));
});

test("a link whose runs differ in marks is one link with the marks inside it", () => {
  const blocks: Block[] = [para({ text: "See " }, { text: "exam", href: "https://example.com/" }, { text: "ple", href: "https://example.com/", bold: true }, { text: " and " }, { text: "bold ", bold: true }, { text: "link", bold: true, href: "https://e.com/l" }, { text: " text", bold: true })];
  const md = blocksToMarkdown(blocks);
  expect(md).toBe("See [exam**ple**](https://example.com/) and **bold** [**link**](https://e.com/l) **text**\n");
  expect(commonMark(md)).toBe('<p>See <a href="https://example.com/">exam<strong>ple</strong></a> and <strong>bold</strong> <a href="https://e.com/l"><strong>link</strong></a> <strong>text</strong></p>');
  expect(ownHtml(blocks)).toBe('<p>See <a href="https://example.com/">exam<strong>ple</strong></a> and <strong>bold </strong><a href="https://e.com/l"><strong>link</strong></a><strong> text</strong></p>');
});

describe("marks at punctuation", () => {
  test("punctuation at a marked run's edge goes outside its delimiters, where CommonMark reads them (they printed)", () => {
    const cases: [Inline[], string, string][] = [
      [[{ text: "Note:", bold: true }, { text: "text" }], "**Note**:text", "<strong>Note</strong>:text"],
      [[{ text: "word" }, { text: "(1)", bold: true }, { text: " end" }], "word(**1**) end", "word(<strong>1</strong>) end"],
      [[{ text: "snake_", bold: true }, { text: "case" }], "**snake**\\_case", "<strong>snake</strong>_case"],
      [[{ text: "注意：", bold: true }, { text: "文字" }], "**注意**：文字", "<strong>注意</strong>：文字"],
      [[{ text: "「重要」", bold: true }, { text: "です" }], "「**重要**」です", "「<strong>重要</strong>」です"],
      [[{ text: "...", italic: true }, { text: "x" }], "...x", "...x"],
    ];
    for (const [content, markdown, html] of cases) {
      const md = blocksToMarkdown([para(...content)]);
      expect(md).toBe(`${markdown}\n`);
      expect(commonMark(md)).toBe(`<p>${html}</p>`);
    }
  });

  test("a marked run of 300,000 blanks is written in linear time (a backtracking trim took 42 s)", () => {
    const started = performance.now();
    const md = blocksToMarkdown([para({ text: `a${" ".repeat(300_000)}b`, bold: true })]);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(md.startsWith("**a ")).toBe(true);
    expect(md.endsWith(" b**\n")).toBe(true);
  });
});
