/**
 * Document text in markdown reads back as that text (src/documents/layout/render.ts): block syntax at the start of
 * any line is escaped, not only at the start of a run, and text that must stay on one line (a heading, a list item,
 * a table cell, a `[^n]:` note) does. Checked by rendering the markdown with Bun's own CommonMark renderer.
 */
import { describe, expect, test } from "bun:test";
import { blocksToMarkdown } from "../../src/documents/layout/render.ts";
import type { Block } from "../../src/documents/layout/model.ts";

const html = (md: string): string => (Bun as unknown as { markdown: { html(s: string): string } }).markdown.html(md);
const paragraph = (...texts: string[]): Block => ({ kind: "paragraph", content: texts.map((text) => ({ text })) });

describe("markdown of document text", () => {
  test("block syntax after a line break stays text: fences, headings, quotes, lists, breaks, setext underlines", () => {
    for (const line of ["~~~", "# Title", "> quoted", "- item", "+ item", "---", "- - -", "===", "    indented code", "2) second", "10. tenth"]) {
      const md = blocksToMarkdown([paragraph(`Before\n${line}\nafter`), paragraph("Next paragraph")]);
      const out = html(md);
      expect(out).not.toMatch(/<(pre|h1|h2|blockquote|ul|ol|hr)>/);
      expect(out).toContain("Next paragraph");
      // The line's characters all survive, no backslash shown.
      expect(out.replace(/<[^>]+>|\n/g, " ")).toContain(line.trim().replace(/>/g, "&gt;"));
      expect(out).not.toContain("\\");
    }
  });

  test("an ordered-list marker is escaped at its dot, so no backslash shows (a backslash before a digit is no escape)", () => {
    expect(blocksToMarkdown([paragraph("1. Not a list")])).toBe("1\\. Not a list\n");
    expect(html(blocksToMarkdown([paragraph("1. Not a list")]))).toBe("<p>1. Not a list</p>\n");
  });

  test("runs are joined before line starts are judged: spaces between runs stay, a run starting with '- ' mid-line is text", () => {
    const md = blocksToMarkdown([paragraph("Hello", " world", " - and", " # more")]);
    expect(html(md)).toBe("<p>Hello world - and # more</p>\n");
  });

  test("tags and entities in the text are text", () => {
    expect(html(blocksToMarkdown([paragraph("Use <div> and &copy; literally, AT&T")]))).toBe("<p>Use &lt;div&gt; and &amp;copy; literally, AT&amp;T</p>\n");
  });

  test("a note, a heading, a list item and a table cell with line breaks stay on their line", () => {
    const blocks: Block[] = [
      { kind: "heading", level: 2, content: [{ text: "Two\nlines" }] },
      { kind: "list", ordered: false, items: [{ depth: 0, content: [{ text: "first\n\n~~~ second" }] }] },
      { kind: "table", rows: [[[{ text: "a\nb" }], [{ text: "c" }]], [[{ text: "1" }], [{ text: "2\n\n3" }]]] },
      { kind: "paragraph", content: [{ text: "Text" }, { text: "1", note: "1" }] },
      { kind: "notes", notes: [{ label: "1", content: [{ text: "A note\n\nwith a blank line\n~~~" }] }] },
    ];
    const md = blocksToMarkdown(blocks);
    expect(md).toContain("## Two lines\n");
    expect(md).toContain("- first ~~~ second\n");
    expect(md).toContain("| a b | c |\n| --- | --- |\n| 1 | 2 3 |");
    // A `~` run at a run's edge is escaped (what follows a run may be another's text: GFM strikes between tildes).
    expect(md.trimEnd().split("\n").at(-1)).toBe("[^1]: A note with a blank line \\~\\~\\~");
  });

  test("code holding a fence of backticks is fenced by a longer one", () => {
    const text = "before\n```\ninside\n````\nafter";
    const md = blocksToMarkdown([{ kind: "code", text }, paragraph("Next")]);
    expect(md.startsWith("`````\n")).toBe(true);
    const out = html(md);
    expect(out.match(/<pre>/g)).toHaveLength(1);
    expect(out).toContain("<p>Next</p>");
  });
});
