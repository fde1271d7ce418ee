/**
 * Document lists render with depths relative to the list (layout/render.ts listDepths): a DOCX list whose first item
 * sits at level 2 was an indented code block in markdown and HTML with unbalanced tags; a jump of two levels left an
 * empty level.
 */
import { describe, expect, test } from "bun:test";
import { listDepths } from "../../src/documents/layout/list-numbers.ts";
import { blocksToMarkdown } from "../../src/documents/layout/render.ts";
import { blocksToHtml } from "../../src/documents/layout/render-html.ts";
import type { Block } from "../../src/documents/layout/model.ts";

const list = (depths: number[]): Block => ({ kind: "list", ordered: false, items: depths.map((depth, i) => ({ depth, content: [{ text: `item ${i}` }] })) });
const count = (s: string, needle: string) => s.split(needle).length - 1;

describe("list depths", () => {
  test("relative to the first item, one level at a time", () => {
    const of = (depths: number[]) => listDepths(depths.map((depth) => ({ depth })));
    expect(of([2, 3])).toEqual([0, 1]);
    expect(of([0, 2, 0])).toEqual([0, 1, 0]);
    expect(of([1, 3, 2, 1])).toEqual([0, 1, 1, 0]);
    expect(of([2, 3, 1, 0])).toEqual([0, 1, 0, 0]);
    expect(of([0, 1, 2, 1, 0])).toEqual([0, 1, 2, 1, 0]);
  });

  test("a list starting at level 2 after a paragraph: a list in markdown, balanced HTML", () => {
    const blocks: Block[] = [{ kind: "paragraph", content: [{ text: "Intro paragraph" }] }, list([2, 3])];
    expect(blocksToMarkdown(blocks)).toBe("Intro paragraph\n\n- item 0\n  - item 1\n");
    const html = blocksToHtml(blocks);
    expect(html).toContain("<ul><li>item 0<ul><li>item 1</li></ul></li></ul>");
    expect([count(html, "<ul>"), count(html, "<li>")]).toEqual([count(html, "</ul>"), count(html, "</li>")]);
  });

  test("a jump of two levels nests one level deeper, not two", () => {
    const blocks = [list([0, 2, 0])];
    expect(blocksToMarkdown(blocks)).toBe("- item 0\n  - item 1\n- item 2\n");
    const html = blocksToHtml(blocks);
    expect(html).toContain("<ul><li>item 0<ul><li>item 1</li></ul></li><li>item 2</li></ul>");
  });
});
