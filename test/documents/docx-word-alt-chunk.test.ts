/**
 * `w:altChunk` (documents/office/docx-alt-chunk.ts, docx-html-chunk.ts): content a DOCX imports from another part, as
 * HTML-to-Word converters and the Open XML SDK's document merging write it. An HTML chunk becomes headings,
 * paragraphs, lists, tables, quotations, code, links and marks in its place; a plain-text chunk a paragraph per line;
 * an RTF or DOCX chunk what their readers make of it; anything else is left out with a `warning`, never silently.
 * Each package is built here as a zip of its parts.
 */
import { describe, expect, test } from "bun:test";
import { strToU8, zipSync } from "fflate";
import { docxToBlocks } from "../../src/documents/office/docx.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";
import { TextBudget } from "../../src/documents/office/text-budget.ts";

const R_URI = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const NS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="${R_URI}"`;
const para = (text: string) => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;
const chunk = (id: string) => `<w:altChunk r:id="${id}"/>`;

/**
 * A DOCX of `body` whose chunks are `chunks` (relationship id → target and bytes; a target is relative to `word/`
 * unless it starts with `/`), with `types` as content types.
 */
function docx(body: string, chunks: Record<string, [string, string | Uint8Array]>, types = ""): Uint8Array {
  const rels = Object.entries(chunks).map(([id, [name]]) => `<Relationship Id="${id}" Type="${R_URI}/aFChunk" Target="${name}"/>`);
  return zipSync({
    "[Content_Types].xml": strToU8(`<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/>${types}</Types>`),
    "word/document.xml": strToU8(`<w:document ${NS}><w:body>${body}</w:body></w:document>`),
    "word/_rels/document.xml.rels": strToU8(`<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels.join("")}</Relationships>`),
    ...Object.fromEntries(Object.values(chunks).map(([target, data]) => [target.startsWith("/") ? target.slice(1) : `word/${target}`, typeof data === "string" ? strToU8(data) : data])),
  });
}

describe("an HTML chunk", () => {
  test("its headings, paragraphs, lists, tables, quotations, code, links and marks come out in the chunk's place", () => {
    const html =
      "<html><head><title>t</title><style>p{}</style></head><body><h1>Imported heading</h1>" +
      "<p>Chunk   paragraph\n text with <b>bold</b>, <em>italic</em>, <code>code</code> and <a href=\"https://example.com/x\">a link</a>.</p>" +
      "<ul><li>One</li><li>Two<ul><li>Two a</li></ul></li></ul><ol start=\"3\"><li>Third</li><li>Fourth</li></ol>" +
      "<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td colspan=\"2\">Both</td></tr><tr><td><p>a</p><p>b</p></td><td>c</td></tr></tbody></table>" +
      "<blockquote><p>Quoted.</p></blockquote><pre>line 1\n  line 2</pre><script>var x = 1;</script><div>Last<br>line</div></body></html>";
    const bytes = docx(para("Before.") + chunk("htmlChunk") + para("After the chunk."), { htmlChunk: ["/word/afchunk.htm", html] });
    expect(convertOffice("docx", bytes).markdown).toBe(
      [
        "Before.",
        "",
        "# Imported heading",
        "",
        "Chunk paragraph text with **bold**, *italic*, `code` and [a link](https://example.com/x).",
        "",
        "- One",
        "- Two",
        "  - Two a",
        "",
        "3. Third",
        "4. Fourth",
        "",
        "| Name | Value |",
        "| --- | --- |",
        "| Both |  |",
        "| a b | c |",
        "",
        "> Quoted.",
        "",
        "```",
        "line 1",
        "  line 2",
        "```",
        "",
        "Last\\",
        "line",
        "",
        "After the chunk.",
        "",
      ].join("\n"),
    );
  });

  test("the kind comes from [Content_Types].xml when the name has no extension; the charset from <meta>", () => {
    const latin1 = new Uint8Array([...strToU8('<html><head><meta charset="windows-1252"></head><body><p>Caf'), 0xe9, ...strToU8("</p></body></html>")]);
    const bytes = docx(chunk("c1"), { c1: ["chunks/part1", latin1] }, '<Override PartName="/word/chunks/part1" ContentType="text/html"/>');
    expect(convertOffice("docx", bytes).markdown).toBe("Café\n");
  });

  test("its text counts against the document's text budget", () => {
    const bytes = docx(chunk("c1") + para("After."), { c1: ["c.html", `<p>${"x".repeat(500)}</p><p>${"y".repeat(500)}</p>`] });
    const budget = new TextBudget(600);
    const { blocks } = docxToBlocks(bytes, budget);
    expect(budget.cut).toBe(true);
    expect(JSON.stringify(blocks).length).toBeLessThan(1000);
  });

  test("a chunk in a table cell is the cell's text", () => {
    const body = `<w:tbl><w:tr><w:tc>${chunk("c1")}</w:tc><w:tc>${para("plain")}</w:tc></w:tr></w:tbl>`;
    expect(convertOffice("docx", docx(body, { c1: ["c.htm", "<h2>Title</h2><p>text</p>"] })).markdown).toBe("| Title text | plain |\n| --- | --- |\n");
  });
});

describe("other chunks", () => {
  test("plain text is a paragraph per line; RTF is read by the RTF reader; a DOCX by the DOCX reader", () => {
    const inner = zipSync({ "word/document.xml": strToU8(`<w:document ${NS}><w:body>${para("From the merged document.")}</w:body></w:document>`) });
    const bytes = docx(chunk("t") + chunk("r") + chunk("d"), {
      t: ["notes.txt", "First line\r\n\r\nSecond line\n"],
      r: ["part.rtf", String.raw`{\rtf1\ansi{\fonttbl{\f0 Arial;}}\f0\pard {\b Bold} RTF text.\par}`],
      d: ["merged.docx", inner],
    });
    expect(convertOffice("docx", bytes).markdown).toBe("First line\n\nSecond line\n\n**Bold** RTF text.\n\nFrom the merged document.\n");
  });

  test("an MHT chunk, a damaged DOCX chunk and a missing part are left out with a warning; the body around them converts", () => {
    const bytes = docx(para("Before.") + chunk("m") + chunk("bad") + chunk("nowhere") + para("After."), {
      m: ["page.mht", "MIME-Version: 1.0\r\nContent-Type: multipart/related; boundary=x\r\n\r\n--x\r\n"],
      bad: ["broken.docx", new Uint8Array([0x50, 0x4b, 3, 4, 1, 2, 3])],
    }, '<Default Extension="mht" ContentType="message/rfc822"/>');
    const result = docxToBlocks(bytes);
    expect(result.blocks).toEqual([
      { kind: "paragraph", content: [{ text: "Before." }] },
      { kind: "paragraph", content: [{ text: "After." }] },
    ]);
    expect(result.warning).toContain("word/page.mht (message/rfc822): imported content this reader does not convert");
    expect(result.warning).toContain("word/broken.docx: could not be read");
    expect(result.warning).toContain('w:altChunk "nowhere"');
    expect(docxToBlocks(docx(para("x"), {})).warning).toBeUndefined();
    // The converted document (what a scrape or /v2/parse answers) carries the warning too.
    const converted = convertOffice("docx", bytes);
    expect(converted.markdown).toBe("Before.\n\nAfter.\n");
    expect(converted.fields?.warning).toContain("word/page.mht (message/rfc822): imported content this reader does not convert");
    expect(convertOffice("docx", docx(para("x"), {})).fields).toBeUndefined();
  });

  test("a chunk whose zip entry is damaged is left out with a warning; the other chunks and the body convert", () => {
    const bytes = docx(para("Before.") + chunk("a") + chunk("b") + para("After."), { a: ["a.txt", "x".repeat(4096)], b: ["b.txt", "Fine chunk."] });
    // Break the first chunk's deflate stream (BTYPE 11 is invalid): reading it fails, and only it.
    const name = strToU8("word/a.txt");
    let at = 0;
    while (!(bytes[at] === 0x50 && bytes[at + 1] === 0x4b && bytes[at + 2] === 3 && bytes[at + 3] === 4 && name.every((c, i) => bytes[at + 30 + i] === c))) at++;
    bytes[at + 30 + (bytes[at + 26]! | (bytes[at + 27]! << 8)) + (bytes[at + 28]! | (bytes[at + 29]! << 8))] = 0x07;
    const result = docxToBlocks(bytes);
    expect(result.blocks.map((b) => (b.kind === "paragraph" ? b.content[0]!.text : b.kind))).toEqual(["Before.", "Fine chunk.", "After."]);
    expect(result.warning).toContain("word/a.txt: could not be read");
  });

  test("a DOCX chunk holding itself is read a bounded number of levels deep", () => {
    // Each level is the one before it as a chunk of a new document: nine levels, read three deep.
    let bytes: Uint8Array = docx(para("innermost"), {});
    for (let level = 1; level <= 8; level++) bytes = docx(para(`level ${level}`) + chunk("d"), { d: ["d.docx", bytes] });
    const result = docxToBlocks(bytes);
    expect(result.blocks.map((b) => (b.kind === "paragraph" ? b.content[0]!.text : b.kind))).toEqual(["level 8", "level 7", "level 6", "level 5"]);
    expect(result.warning).toContain("levels deep");
  });
});
