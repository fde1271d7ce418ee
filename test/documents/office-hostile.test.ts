/**
 * Crafted DOCX/ODT files from the hostile-input review (findings F2–F4): attribute values that amplify the output
 * (`text:c`, `w:ilvl`, outline levels), parts that are not XML, nesting deep enough to overflow a recursive walk,
 * tables too long for a `Math.max(...)` spread, and media parts the converter never reads. Each answers a
 * bounded result or a typed 422, never a RangeError/TypeError (a 500).
 */
import { describe, expect, test } from "bun:test";
import { strToU8, zipSync } from "fflate";
import { DocumentCorruptError } from "../../src/documents/errors.ts";
import type { Block } from "../../src/documents/layout/model.ts";
import { blocksToMarkdown } from "../../src/documents/layout/render.ts";
import { blocksToHtml } from "../../src/documents/layout/render-html.ts";
import { docxToBlocks } from "../../src/documents/office/docx.ts";
import { odtToBlocks } from "../../src/documents/office/odt.ts";
import { intAttr, MAX_XML_DEPTH } from "../../src/documents/office/xml.ts";

const ODT_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:xlink="http://www.w3.org/1999/xlink"';
const W_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

function odt(body: string, content?: string): Uint8Array {
  const xml = content ?? `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODT_NS}><office:body><office:text>${body}</office:text></office:body></office:document-content>`;
  return zipSync({ mimetype: strToU8("application/vnd.oasis.opendocument.text"), "content.xml": strToU8(xml) });
}

function docx(body: string, extra: Record<string, Uint8Array> = {}): Uint8Array {
  const xml = `<?xml version="1.0" encoding="UTF-8"?><w:document ${W_NS}><w:body>${body}</w:body></w:document>`;
  return zipSync({ ...extra, "word/document.xml": strToU8(xml) });
}

const para = (text: string, pPr = "") => `<w:p>${pPr ? `<w:pPr>${pPr}</w:pPr>` : ""}<w:r><w:t>${text}</w:t></w:r></w:p>`;

/** Markdown and HTML of `blocks`: what a response carries. */
const rendered = (blocks: Block[]) => blocksToMarkdown(blocks) + blocksToHtml(blocks);

describe("office documents: output amplification (F3)", () => {
  test("an ODT text:s count is clamped to 0..100 spaces; non-numeric, negative and Infinity do not throw", () => {
    const cases: [string, string][] = [
      ["300000000", "a" + " ".repeat(100) + "b"],
      ["1e9", "a" + " ".repeat(100) + "b"],
      ["-1", "ab"],
      ["Infinity", "a b"],
      ["NaN", "a b"],
      ["", "a b"],
    ];
    for (const [c, text] of cases) {
      const { blocks } = odtToBlocks(odt(`<text:p>a<text:s text:c="${c}"/>b</text:p>`));
      expect(blocks).toEqual([{ kind: "paragraph", content: [{ text }] }]);
    }
  });

  test("a DOCX w:ilvl of 1e8 or -1 is a list depth of 0..8", () => {
    const item = (ilvl: string) => para("x", `<w:numPr><w:ilvl w:val="${ilvl}"/><w:numId w:val="1"/></w:numPr>`);
    const { blocks } = docxToBlocks(docx(item("0") + item("100000000") + item("-1") + item("zz")));
    expect(blocks[0]!.kind).toBe("list");
    const depths = blocks.flatMap((b) => (b.kind === "list" ? b.items.map((i) => i.depth) : []));
    expect(depths).toEqual([0, 8, 0, 0]);
    expect(rendered(blocks).length).toBeLessThan(500);
  });

  test("heading levels are 1..6 whatever the file says (ODT outline-level, DOCX outlineLvl)", () => {
    const o = odtToBlocks(odt(["-1", "0", "NaN", "99", "3"].map((l) => `<text:h text:outline-level="${l}">h</text:h>`).join("")));
    expect(o.blocks.map((b) => (b.kind === "heading" ? b.level : 0))).toEqual([1, 1, 1, 6, 3]);
    const d = docxToBlocks(docx(["-3", "Infinity", "8", "2"].map((l) => para("h", `<w:outlineLvl w:val="${l}"/>`)).join("")));
    expect(d.blocks.map((b) => (b.kind === "heading" ? b.level : b.kind))).toEqual(["paragraph", "paragraph", 6, 3]);
    expect(() => rendered(o.blocks.concat(d.blocks))).not.toThrow();
  });

  test("ODT list nesting past 8 levels stays at depth 8", () => {
    const n = 30;
    const { blocks } = odtToBlocks(odt("<text:list><text:list-item>".repeat(n) + "<text:p>x</text:p>" + "</text:list-item></text:list>".repeat(n)));
    expect(blocks).toEqual([{ kind: "list", ordered: false, items: [{ depth: 8, content: [{ text: "x" }] }] }]);
  });

  test("intAttr clamps and falls back", () => {
    expect(intAttr("7", 0, 5, 1)).toBe(5);
    expect(intAttr("-Infinity", 0, 5, 1)).toBe(1);
    expect(intAttr(null, 0, 5, 1)).toBe(1);
    expect(intAttr(" 2.9 ", 0, 5, 1)).toBe(2);
  });
});

describe("office documents: crafted structure is a 422, not a 500 (F4)", () => {
  test("an ODT whose content.xml is not XML is a corrupt document", () => {
    expect(() => odtToBlocks(odt("", "not xml"))).toThrow(DocumentCorruptError);
    expect(() => odtToBlocks(odt("", ""))).toThrow(DocumentCorruptError);
  });

  test("a DOCX whose document.xml is not XML is a corrupt document", () => {
    expect(() => docxToBlocks(zipSync({ "word/document.xml": strToU8("not xml") }))).toThrow(DocumentCorruptError);
  });

  const deep = 50_000;
  const cases: [string, () => unknown][] = [
    ["DOCX w:ins", () => docxToBlocks(docx(`<w:p>${"<w:ins>".repeat(deep)}<w:r><w:t>x</w:t></w:r>${"</w:ins>".repeat(deep)}</w:p>`))],
    ["DOCX w:sdt", () => docxToBlocks(docx("<w:sdt><w:sdtContent>".repeat(deep) + para("x") + "</w:sdtContent></w:sdt>".repeat(deep)))],
    ["ODT text:span", () => odtToBlocks(odt(`<text:p>${"<text:span>".repeat(deep)}x${"</text:span>".repeat(deep)}</text:p>`))],
    ["ODT text:section", () => odtToBlocks(odt("<text:section>".repeat(deep) + "<text:p>x</text:p>" + "</text:section>".repeat(deep)))],
    ["ODT text:list", () => odtToBlocks(odt("<text:list><text:list-item>".repeat(deep) + "<text:p>x</text:p>" + "</text:list-item></text:list>".repeat(deep)))],
  ];
  for (const [name, run] of cases) {
    test(`${deep} nested ${name} is a corrupt document, not a stack overflow`, () => {
      expect(run).toThrow(DocumentCorruptError);
    });
  }

  test(`nesting up to ${MAX_XML_DEPTH} levels still converts`, () => {
    const n = MAX_XML_DEPTH - 5;
    const { blocks } = odtToBlocks(odt(`<text:p>${"<text:span>".repeat(n)}x${"</text:span>".repeat(n)}</text:p>`));
    expect(blocks).toEqual([{ kind: "paragraph", content: [{ text: "x" }] }]);
  });

  test("a table of 1.2M rows renders (no Math.max spread past the argument limit)", () => {
    const rows = Array.from({ length: 1_200_000 }, () => [] as never[]);
    rows[0] = [[{ text: "a" }], [{ text: "b" }]] as never[];
    const blocks: Block[] = [{ kind: "table", rows }];
    const md = blocksToMarkdown(blocks);
    // 2.4M cells padded would pass MAX_PADDED_CELLS: the header holds the width, GFM fills the short rows itself.
    expect(md.startsWith("| a | b |\n| --- | --- |\n|  |\n")).toBe(true);
  });
});

describe("office documents: parts never read are never inflated (F2)", () => {
  test("a DOCX with a broken word/media entry converts: the media is skipped, not inflated", () => {
    const bytes = docx(para("hello"), { "word/media/image1.png": new Uint8Array(4096).fill(7), "word/embeddings/x.bin": new Uint8Array(4096).fill(9) });
    // Break the first entry's deflate stream (BTYPE 11 is invalid): inflating it would fail the whole read.
    const dataAt = 30 + (bytes[26]! | (bytes[27]! << 8)) + (bytes[28]! | (bytes[29]! << 8));
    expect(new TextDecoder().decode(bytes.subarray(30, 30 + 21))).toBe("word/media/image1.png");
    bytes[dataAt] = 0x07;
    const { blocks } = docxToBlocks(bytes);
    expect(blocks).toEqual([{ kind: "paragraph", content: [{ text: "hello" }] }]);
  });
});
