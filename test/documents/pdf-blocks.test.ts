/**
 * PDF text layer → markdown blocks, as LibreOffice and LaTeX set text: links placed on the words under their
 * rectangles, a line bold only when nearly all of it is, paragraph ends from spacing and first-line indents, code
 * in a monospace font kept as a code block, hyphenation repaired in any script. Each PDF is built with mupdf's
 * writer (pdf-builder.ts) and read as the PDF parser reads it (documents/pdf/extract.ts, documents/convert.ts).
 */
import { describe, expect, test } from "bun:test";
import { convertPages } from "../../src/documents/convert.ts";
import { joinLines, layoutBlocks } from "../../src/documents/layout/blocks.ts";
import type { PageText, TextLine } from "../../src/documents/layout/model.ts";
import { readTextLayer } from "../../src/documents/pdf/extract.ts";
import { loadMupdf } from "../../src/documents/pdf/mupdf.ts";
import { buildStyledPdf, type StyledLine, wrap } from "../fixtures/documents/pdf-builder.ts";

/** The markdown of `pdf`, read page by page as the PDF parser does. */
async function markdownOf(pdf: Uint8Array): Promise<string> {
  const m = await loadMupdf();
  const doc = m.Document.openDocument(pdf, "application/pdf");
  const pages: PageText[] = [];
  for (let i = 0; i < doc.countPages(); i++) {
    const page = doc.loadPage(i);
    pages.push(readTextLayer(page, i + 1).page);
    page.destroy();
  }
  doc.destroy();
  return convertPages(pages, {}, 1).markdown;
}

/** Plain lines (regular font) from `y` on, `pitch` apart, at `x` (the first at `firstX`, for an indent). */
function lines(texts: string[], y: number, pitch: number, size: number, x = 72, firstX = x): StyledLine[] {
  return texts.map((text, i) => ({ x: i === 0 ? firstX : x, y: y + i * pitch, size, pieces: [{ text }] }));
}

const SENTENCES = [
  "The northern offices reported their figures on time and the group checked every number before the board met.",
  "Costs fell in the second half of the year, while the western teams finished the migration of their old systems.",
  "Every department sent a short summary, and the reporting team wrote the overview that opens this document.",
  "Several offices asked for more time, which the board granted, since the new tools needed some weeks of training.",
];

describe("links sit on the words under their rectangles", () => {
  test("the same word linked twice to two targets, and a link wrapping at a line's end, each on its own words", async () => {
    const a = "https://example.com/a";
    const b = "https://example.com/b";
    const doc = "https://example.com/doc";
    const pdf = await buildStyledPdf([
      [
        { x: 72, y: 100, pieces: [{ text: "Visit " }, { text: "Portal", uri: a }, { text: " and the Portal again, and read it twice; then " }, { text: "Portal", uri: b }] },
        { x: 72, y: 114, pieces: [{ text: "B. The guide explains every step, and then reads " }, { text: "the", uri: doc }] },
        { x: 72, y: 128, pieces: [{ text: "documentation of the project", uri: doc }, { text: " carefully before the end." }] },
      ],
    ]);
    const md = await markdownOf(pdf);
    // Before: "Visit [Portal](…/b) and the [Portal](…/a) again", a list item "1. The guide…", and the "the" of the
    // wrapped link on the first "the" of the paragraph.
    expect(md).toBe(
      `Visit [Portal](${a}) and the Portal again, and read it twice; then [Portal](${b}) B. The guide explains every step, ` +
        `and then reads [the documentation of the project](${doc}) carefully before the end.\n`,
    );
  });

  test("a link in a table cell sits on its own word, not on the same word earlier in the cell", async () => {
    const pdf = await buildStyledPdf([
      [
        { x: 72, y: 100, pieces: [{ text: "Name" }] },
        { x: 300, y: 100, pieces: [{ text: "Site" }] },
        { x: 72, y: 116, pieces: [{ text: "Alpha docs" }] },
        { x: 300, y: 116, pieces: [{ text: "docs" }, { text: " and " }, { text: "docs", uri: "https://example.com/alpha" }] },
      ],
    ]);
    const md = await markdownOf(pdf);
    expect(md).toContain("| Alpha docs | docs and [docs](https://example.com/alpha) |");
  });
});

describe("a line is bold only when nearly all of its characters are", () => {
  test("a bold word at a line's start makes no heading, and does not split its paragraph", async () => {
    const pdf = await buildStyledPdf([
      [
        { x: 72, y: 80, pieces: [{ text: "Key Facts", font: "bold" }] },
        { x: 72, y: 104, pieces: [{ text: "Deadline", font: "bold" }, { text: " Day ten of the new quarter" }] },
        { x: 72, y: 126, pieces: [{ text: "Owner:", font: "bold" }, { text: " the group reporting team, which coordinates the submissions of every" }] },
        { x: 72, y: 140, pieces: [{ text: "department and writes the summary." }] },
      ],
    ]);
    const md = await markdownOf(pdf);
    // Before: "## Deadline Day ten of the new quarter", and "Owner: … of every" a heading too, apart from its last line.
    expect(md).toBe(
      "# Key Facts\n\nDeadline Day ten of the new quarter\n\n" +
        "Owner: the group reporting team, which coordinates the submissions of every department and writes the summary.\n",
    );
  });
});

describe("paragraph ends", () => {
  // With a bold title the page's characters are read one by one (pdf/glyphs.ts) and pitch is measured on baselines;
  // without, on the lines' boxes.
  test.each([false, true])("5.8 pt of space after each paragraph of 11 pt text (LibreOffice) ends it (bold title: %p)", async (title) => {
    const runs: StyledLine[] = title ? [{ x: 72, y: 70, size: 11, pieces: [{ text: "Summary", font: "bold" }] }] : [];
    let y = 100;
    for (const s of SENTENCES.slice(0, 3)) {
      const wrapped = wrap(`${s} ${s}`, 90);
      runs.push(...lines(wrapped, y, 12.65, 11));
      y += wrapped.length * 12.65 + 5.8;
    }
    const md = await markdownOf(await buildStyledPdf([runs]));
    // Before: one paragraph of all three.
    expect(md).toBe(`${title ? "# Summary\n\n" : ""}${SENTENCES.slice(0, 3).map((s) => `${s} ${s}`).join("\n\n")}\n`);
  });

  test("a section set at 1.5 lines among single-spaced paragraphs keeps its paragraph whole", async () => {
    const runs: StyledLine[] = [];
    let y = 100;
    for (const s of SENTENCES.slice(0, 2)) {
      const wrapped = wrap(`${s} ${s}`, 90);
      runs.push(...lines(wrapped, y, 12.65, 11));
      y += wrapped.length * 12.65 + 5.8;
    }
    const spaced = `${SENTENCES[2]} ${SENTENCES[3]} ${SENTENCES[2]}`;
    runs.push(...lines(wrap(spaced, 90), y, 19, 11));
    const md = await markdownOf(await buildStyledPdf([runs]));
    expect(md).toBe(`${SENTENCES.slice(0, 2).map((s) => `${s} ${s}`).join("\n\n")}\n\n${spaced}\n`);
  });

  test("first-line indents with no spacing (academic style) end paragraphs; wrapped lines stay together", async () => {
    const runs: StyledLine[] = [];
    let y = 100;
    for (const s of SENTENCES) {
      const wrapped = wrap(`${s} ${s}`, 100);
      runs.push(...lines(wrapped, y, 12, 10, 72, 87));
      y += wrapped.length * 12;
    }
    const md = await markdownOf(await buildStyledPdf([runs]));
    // Before: one paragraph of all four.
    expect(md).toBe(`${SENTENCES.map((s) => `${s} ${s}`).join("\n\n")}\n`);
  });

  test("a hanging indent (a reference list) starts a paragraph at each entry's first line", async () => {
    const entries = [
      "Adams, J. and Brown, K. (2019). A long study of reporting practice in large groups of offices, with notes. Journal of Reports 12.",
      "Clark, L. (2021). Another long study, of the tools that offices use to send their figures to the group. Tools Quarterly 3.",
    ];
    const runs: StyledLine[] = [];
    let y = 100;
    for (const e of entries) {
      const wrapped = wrap(e, 80);
      runs.push(...lines(wrapped, y, 13, 11, 90, 72));
      y += wrapped.length * 13;
    }
    expect(await markdownOf(await buildStyledPdf([runs]))).toBe(`${entries.join("\n\n")}\n`);
  });

  test("one ragged paragraph of many lines stays one paragraph", async () => {
    const text = SENTENCES.join(" ");
    const md = await markdownOf(await buildStyledPdf([lines(wrap(text, 70), 100, 13.5, 11)]));
    expect(md).toBe(`${text}\n`);
  });
});

describe("code in a monospace font", () => {
  test("consecutive monospace lines become a fenced code block, indented by their x offsets or leading blanks", async () => {
    const code = ["def main():", "    total = 0", "    for x in range(10):", "        total += x", "", "    return total"];
    const runs: StyledLine[] = [{ x: 72, y: 90, pieces: [{ text: "The function:" }] }];
    // Indented by position (each line starts where its first character is), a blank line as a double pitch.
    code.forEach((line, i) => {
      if (line) runs.push({ x: 72 + 6 * (line.length - line.trimStart().length), y: 110 + i * 11.3, size: 10, pieces: [{ text: line.trimStart(), font: "mono" }] });
    });
    // Indented by blanks in the text.
    runs.push({ x: 72, y: 185, pieces: [{ text: "And a second one:" }] });
    ["if (ready) {", "    start();", "}"].forEach((line, i) => runs.push({ x: 72, y: 200 + i * 11.3, size: 10, pieces: [{ text: line, font: "mono" }] }));
    runs.push({ x: 72, y: 250, pieces: [{ text: "That is all." }] });
    const md = await markdownOf(await buildStyledPdf([runs]));
    // Before: "def main(): total = 0 for x in range(10): total += x" and the rest as paragraphs.
    expect(md).toBe(`The function:\n\n\`\`\`\n${code.join("\n")}\n\`\`\`\n\nAnd a second one:\n\n\`\`\`\nif (ready) {\n    start();\n}\n\`\`\`\n\nThat is all.\n`);
  });

  test("a line far to the right keeps a bounded indentation (a crafted page a million points wide)", () => {
    const mono = (text: string, x: number, y: number): TextLine => ({ x0: x, y0: y, x1: x + 6 * text.length, y1: y + 10, text, size: 10, bold: false, italic: false, mono: true });
    const blocks = layoutBlocks([{ number: 1, width: 2e6, height: 792, source: "text", lines: [mono("start", 72, 100), mono("far", 1e6, 111)] }]);
    expect(blocks).toHaveLength(1);
    const code = blocks[0]!.kind === "code" ? blocks[0]!.text : "";
    expect(code.split("\n")).toEqual(["start", `${" ".repeat(160)}far`]);
  });
});

describe("hyphenation at a line's end", () => {
  test("is repaired in any script before a lower-case letter", () => {
    expect(joinLines("они отве-", "чают за")).toBe("они отвечают за");
    expect(joinLines("μια λέ-", "ξη")).toBe("μια λέξη");
    expect(joinLines("Nord-", "Ost")).toBe("Nord- Ost");
    expect(joinLines("Москва-", "Сити")).toBe("Москва- Сити");
  });

  test("a Cyrillic word broken over two lines of a paragraph is whole again", () => {
    const line = (text: string, y: number): TextLine => ({ x0: 72, y0: y, x1: 300, y1: y + 11, text, size: 11, bold: false, italic: false, mono: false });
    const lines = [line("Слова переносятся, и они отве-", 100), line("чают за проверку.", 114)];
    const blocks = layoutBlocks([{ number: 1, width: 612, height: 792, source: "text", lines }]);
    expect(blocks).toEqual([{ kind: "paragraph", content: [{ text: "Слова переносятся, и они отвечают за проверку." }] }]);
  });
});
