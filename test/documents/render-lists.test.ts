/**
 * Markdown of lists and headings (layout/render.ts, shared by PDF, DOCX, ODT, DOC and RTF): an item nested under a
 * numbered item is indented to its parent's content column (3 spaces under `1. `, 4 under `10. `), not a fixed 2,
 * which CommonMark reads as a new list after the numbered one (the numbering restarted); a heading's text is not
 * escaped as a paragraph's would be (`## 1\. Background`), only its closing `#`. Checked with Bun's CommonMark
 * renderer against the HTML the same blocks give.
 */
import { describe, expect, test } from "bun:test";
import type { Block } from "../../src/documents/layout/model.ts";
import { blocksToMarkdown } from "../../src/documents/layout/render.ts";
import { blocksToHtml } from "../../src/documents/layout/render-html.ts";

/** HTML of `markdown` by a CommonMark renderer, without the line breaks between tags. */
const commonMark = (markdown: string) => Bun.markdown.html(markdown).replace(/\n/g, "");
/** The body of the HTML the renderer itself gives for `blocks`. */
const ownHtml = (blocks: Block[]) => blocksToHtml(blocks).replace(/^<html><body>|<\/body><\/html>$/g, "");
const list = (ordered: boolean, items: [number, string][]): Block => ({ kind: "list", ordered, items: items.map(([depth, text]) => ({ depth, content: [{ text }] })) });

describe("nested list items", () => {
  test("under a numbered item: indented 3 spaces, so the numbered list goes on", () => {
    const blocks = [list(true, [[0, "Prepare the data."], [0, "Validate the data."], [1, "Run the structural checks."], [2, "Compare the totals."], [1, "Review the report."], [0, "Publish."]])];
    const md = blocksToMarkdown(blocks);
    expect(md).toBe("1. Prepare the data.\n2. Validate the data.\n   - Run the structural checks.\n     - Compare the totals.\n   - Review the report.\n3. Publish.\n");
    expect(commonMark(md)).toBe(ownHtml(blocks));
    expect(commonMark(md)).not.toContain("<ol start=");
  });

  test("under item 10: indented 4 spaces", () => {
    const items: [number, string][] = Array.from({ length: 10 }, (_, i) => [0, `Step ${i + 1}.`]);
    const blocks = [list(true, [...items, [1, "A detail of step 10."], [0, "Step 11."]])];
    const md = blocksToMarkdown(blocks);
    expect(md).toContain("\n10. Step 10.\n    - A detail of step 10.\n11. Step 11.\n");
    expect(commonMark(md)).toBe(ownHtml(blocks));
  });

  test("under a bullet: 2 spaces a level, as before", () => {
    const blocks = [list(false, [[0, "One"], [1, "Two"], [2, "Three"], [0, "Four"]])];
    const md = blocksToMarkdown(blocks);
    expect(md).toBe("- One\n  - Two\n    - Three\n- Four\n");
    expect(commonMark(md)).toBe(ownHtml(blocks));
  });
});

describe("heading text", () => {
  test("a numbered heading is not escaped; a paragraph that would read as a list still is", () => {
    const blocks: Block[] = [
      { kind: "heading", level: 2, content: [{ text: "1. Background" }] },
      { kind: "heading", level: 3, content: [{ text: "- > ~~~ === --- # Marks" }] },
      { kind: "paragraph", content: [{ text: "1. Not a list" }] },
    ];
    const md = blocksToMarkdown(blocks);
    expect(md).toBe("## 1. Background\n\n### - > ~~~ === --- # Marks\n\n1\\. Not a list\n");
    expect(commonMark(md)).toBe("<h2>1. Background</h2><h3>- &gt; ~~~ === --- # Marks</h3><p>1. Not a list</p>");
  });

  test("a closing run of # is escaped, since the heading line would drop it", () => {
    const blocks: Block[] = [
      { kind: "heading", level: 2, content: [{ text: "Item #" }] },
      { kind: "heading", level: 2, content: [{ text: "#" }] },
      { kind: "heading", level: 2, content: [{ text: "C#" }] },
    ];
    const md = blocksToMarkdown(blocks);
    expect(md).toBe("## Item \\#\n\n## \\#\n\n## C#\n");
    expect(commonMark(md)).toBe("<h2>Item #</h2><h2>#</h2><h2>C#</h2>");
  });
});
