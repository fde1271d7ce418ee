import { describe, expect, test } from "bun:test";
import { strToU8, zipSync } from "fflate";
import { odtToBlocks } from "../../src/documents/office/odt.ts";

const CONTENT = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"
  xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"
  xmlns:xlink="http://www.w3.org/1999/xlink">
  <office:body><office:text>
    <text:h text:outline-level="2">Growing <text:span>tomatoes</text:span></text:h>
    <text:p>  Water in the <text:a xlink:href="https://example.org/morning">morning</text:a>,<text:s text:c="2"/>never at noon.  </text:p>
    <text:list><text:list-item><text:p>First item</text:p></text:list-item></text:list>
    <table:table><table:table-row><table:table-cell><text:p>Stage</text:p></table:table-cell><table:table-cell><text:p>Hours</text:p></table:table-cell></table:table-row></table:table>
  </office:text></office:body>
</office:document-content>`;

describe("ODT", () => {
  test("headings, paragraphs with links and spaces, lists and tables become blocks", () => {
    const bytes = zipSync({ mimetype: strToU8("application/vnd.oasis.opendocument.text"), "content.xml": strToU8(CONTENT) });
    const { blocks } = odtToBlocks(bytes);
    expect(blocks[0]).toEqual({ kind: "heading", level: 2, content: [{ text: "Growing tomatoes" }] });
    expect(blocks[1]).toEqual({
      kind: "paragraph",
      content: [{ text: "Water in the " }, { text: "morning", href: "https://example.org/morning" }, { text: ",  never at noon." }],
    });
    expect(JSON.stringify(blocks.slice(2))).toContain("First item");
    expect(blocks.find((b) => b.kind === "table")).toEqual({ kind: "table", rows: [[[{ text: "Stage" }], [{ text: "Hours" }]]] });
  });

  test("a table cell's paragraphs are joined with a space; a nested table's rows are not the outer table's", () => {
    const content = CONTENT.replace(
      /<table:table>[\s\S]*<\/table:table>/,
      `<table:table><table:table-header-rows><table:table-row><table:table-cell><text:p>Name</text:p></table:table-cell><table:table-cell><text:p>Notes</text:p></table:table-cell></table:table-row></table:table-header-rows>
      <table:table-row><table:table-cell><text:p>Ada</text:p></table:table-cell><table:table-cell><text:p>First line</text:p><text:p>Second line</text:p></table:table-cell></table:table-row>
      <table:table-row><table:table-cell><text:p>Inner</text:p></table:table-cell><table:table-cell><table:table><table:table-row><table:table-cell><text:p>nested</text:p></table:table-cell></table:table-row></table:table></table:table-cell></table:table-row></table:table>`,
    );
    const bytes = zipSync({ mimetype: strToU8("application/vnd.oasis.opendocument.text"), "content.xml": strToU8(content) });
    const table = odtToBlocks(bytes).blocks.find((b) => b.kind === "table") as { rows: { text: string }[][][] };
    const text = table.rows.map((r) => r.map((cell) => cell.map((i) => i.text).join("")));
    expect(text).toEqual([["Name", "Notes"], ["Ada", "First line Second line"], ["Inner", "nested"]]);
  });
});
