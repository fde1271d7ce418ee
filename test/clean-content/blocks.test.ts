/**
 * The blocks `onlyCleanContent` keeps or drops (clean-content/blocks.ts): a blank line ends a block except inside a
 * fenced code block; kept blocks come back exactly as written; the model sees numbered previews, in parts.
 */
import { describe, expect, test } from "bun:test";
import { joinBlocks, PREVIEW_CHARS, previewBlock, previewParts, splitBlocks } from "../../src/clean-content/blocks.ts";

const MD = [
  "# Title",
  "",
  "A paragraph\nwrapped over two lines.",
  "",
  "- one\n- two",
  "",
  "```js\nconst a = 1;\n\n\nconst b = 2;\n```",
  "",
  "| a | b |\n|---|---|\n| 1 | 2 |",
  "",
  "~~~~\n```\nnot a close\n\n~~~\n~~~~",
  "",
  "> a quote",
].join("\n");

describe("splitBlocks", () => {
  test("a blank line ends a block, except in a fenced code block (backticks or tildes, closed by a longer or equal fence)", () => {
    expect(splitBlocks(MD)).toEqual([
      "# Title",
      "A paragraph\nwrapped over two lines.",
      "- one\n- two",
      "```js\nconst a = 1;\n\n\nconst b = 2;\n```",
      "| a | b |\n|---|---|\n| 1 | 2 |",
      "~~~~\n```\nnot a close\n\n~~~\n~~~~",
      "> a quote",
    ]);
  });

  test("joining the blocks gives back markdown written with single blank lines; runs of blank lines and blank edges go", () => {
    expect(joinBlocks(splitBlocks(MD))).toBe(MD);
    expect(splitBlocks("\n\n# A\n\n\n\nB\n  \nC\n\n")).toEqual(["# A", "B", "C"]);
    expect(splitBlocks("")).toEqual([]);
  });

  test("inline code with three backticks is not a fence; a fence indented in a list item is; CRLF reads as LF", () => {
    expect(splitBlocks("Run ```npm i``` to install.\n\n# Next\n\nMore.")).toEqual(["Run ```npm i``` to install.", "# Next", "More."]);
    expect(splitBlocks("- Install:\n\n    ```sh\n    a\n\n    b\n    ```\n\nAfter.")).toEqual(["- Install:", "    ```sh\n    a\n\n    b\n    ```", "After."]);
    expect(splitBlocks("# A\r\n\r\nB\r\nC\r\n")).toEqual(["# A", "B\nC"]);
  });

  test("an unclosed fence runs to the end: its blank lines do not split it", () => {
    expect(splitBlocks("Intro\n\n```\ncode\n\nmore code")).toEqual(["Intro", "```\ncode\n\nmore code"]);
  });
});

describe("previews", () => {
  test("one line per block with its number; long blocks cut with their length", () => {
    expect(previewBlock("- one\n- two", 3)).toBe("[3] - one - two");
    const long = "word ".repeat(200).trim();
    const shown = previewBlock(long, 0);
    expect(shown.startsWith(`[0] ${long.slice(0, PREVIEW_CHARS)}…`)).toBe(true);
    expect(shown.endsWith(`(${long.length} characters)`)).toBe(true);
  });

  test("parts hold whole previews within the size, keep the blocks' own numbers, and cover every block once", () => {
    const blocks = Array.from({ length: 50 }, (_, i) => `Paragraph number ${i} of the page.`);
    const parts = previewParts(blocks, 400);
    expect(parts.length).toBeGreaterThan(3);
    for (const p of parts) expect(p.text.length).toBeLessThanOrEqual(400);
    expect(parts.map((p) => [p.first, p.last]).flat()[0]).toBe(0);
    for (let i = 1; i < parts.length; i++) expect(parts[i]!.first).toBe(parts[i - 1]!.last + 1);
    expect(parts.at(-1)!.last).toBe(49);
    expect(parts[1]!.text.split("\n")[0]).toBe(previewBlock(blocks[parts[1]!.first]!, parts[1]!.first));
    // A preview longer than the size is a part of its own.
    expect(previewParts(["x".repeat(100), "y"], 50).map((p) => [p.first, p.last])).toEqual([[0, 0], [1, 1]]);
  });
});
