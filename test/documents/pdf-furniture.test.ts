/**
 * Page furniture (layout/furniture.ts) keeps what only looks like it: a table row whose one cell is a number, in the
 * bottom margin, lost that cell (the row fell out of its table), and chapter headings at the top of their pages
 * ("Chapter 1" … "Chapter 6" read as one running header, digits ignored) were all dropped. Running headers and
 * footers, "Page N of M" and bare page numbers still go. Unit tests on positioned lines, then PDFs made with mupdf's
 * writer converted as the PDF worker converts them.
 */
import { describe, expect, test } from "bun:test";
import { removeFurniture } from "../../src/documents/layout/furniture.ts";
import type { PageText, TextLine } from "../../src/documents/layout/model.ts";
import { PdfConversion } from "../../src/documents/pdf/conversion.ts";
import { loadMupdf } from "../../src/documents/pdf/mupdf.ts";
import { buildPdf, type TextRun } from "../fixtures/documents/pdf-builder.ts";

/** A line of `text` whose box starts at `yPt` (US Letter: the margins are y < 79.2 and y > 712.8). */
const line = (text: string, yPt: number, xPt = 72, sizePt = 11): TextLine => ({ x0: xPt, x1: xPt + text.length * sizePt * 0.5, y0: yPt, y1: yPt + sizePt * 1.1, text, size: sizePt, bold: false, italic: false, mono: false });
const page = (n: number, lines: TextLine[]): PageText => ({ number: n, width: 612, height: 792, lines, source: "text" });
/** Ordinary body text, so the body size is 11 pt. */
const body = (n: number) => line(`Body text of page ${n}, long enough to make eleven points the body size of the document.`, 300);
const texts = (pages: PageText[]) => removeFurniture(pages).map((p) => p.lines.map((l) => l.text));

describe("furniture: what is kept", () => {
  test("a table row in the bottom margin keeps its number cell; the page numbers below it go", () => {
    const row = (n: number) => [line(`Metric 36-${n}`, 722), line(`${733 + n}`, 722, 250), line("kEUR", 722, 400)];
    const pages = [1, 2, 3].map((n) => page(n, [body(n), ...row(n), line(`${n}`, 760, 300)]));
    expect(texts(pages)).toEqual([1, 2, 3].map((n) => [body(n).text, `Metric 36-${n}`, `${733 + n}`, "kEUR"]));
  });

  test("a number alone on its line but not the margin's outermost line is content, even when it is the page's", () => {
    const pages = [1, 2, 3].map((n) => page(n, [body(n), line(`${n}`, 725), line(`${n}`, 760, 300)]));
    expect(texts(pages)).toEqual([1, 2, 3].map((n) => [body(n).text, `${n}`]));
  });

  test("a lone number that follows no page-number progression is content", () => {
    // Pages 1 and 3 carry page numbers; page 2 ends with a number that is not 2 (nor 2 plus an offset others share).
    const pages = [page(1, [body(1), line("1", 760, 300)]), page(2, [body(2), line("17", 760, 300)]), page(3, [body(3), line("3", 760, 300)])];
    expect(texts(pages)).toEqual([[body(1).text], [body(2).text, "17"], [body(3).text]]);
  });

  test("heading-sized chapter titles at the top of their pages are kept, though each number is its page's", () => {
    const pages = [1, 2, 3, 4, 5, 6].map((n) => page(n, [line(`Chapter ${n}`, 57, 72, 18), body(n), line(`${n}`, 760, 300)]));
    expect(texts(pages)).toEqual([1, 2, 3, 4, 5, 6].map((n) => [`Chapter ${n}`, body(n).text]));
  });

  test("body-sized lines that differ in a number that does not track the page are kept", () => {
    const chapterOn = new Map([[1, 1], [2, 2], [4, 3], [5, 4]]);
    const pages = [1, 2, 3, 4, 5, 6].map((n) => page(n, [...(chapterOn.has(n) ? [line(`Section ${chapterOn.get(n)}`, 40)] : []), body(n)]));
    expect(texts(pages).map((t) => t[0])).toEqual(["Section 1", "Section 2", body(3).text, "Section 3", "Section 4", body(6).text]);
  });
});

describe("furniture: what still goes", () => {
  test("a footer whose date and time come before the page number, and a large header missing from the title page", () => {
    const pages = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) =>
      page(n, [
        ...(n > 1 ? [line("Annual Report 2025", 40, 72, 14)] : []),
        body(n),
        line("Printed 24.11.2026 10:45", 760, 72, 8),
        line(`Page ${n} of 9`, 760, 480, 8),
      ]),
    );
    // Before: the footer stayed on every page (only the first 4 numbers were tried), and the header became a
    // heading on pages 2-9 (a large row had to be on every page).
    expect(texts(pages)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => [body(n).text]));
  });

  test("running headers, 'Page N of M', a footer row with its page number, and offset page numbers", () => {
    const pages = [1, 2, 3].map((n) =>
      page(n, [line("ACME Quarterly Review", 30), body(n), line(`Page ${n} of 3`, 740, 480, 9), line("ACME Corp", 765, 72, 9), line(`${n + 10}`, 765, 520, 9)]),
    );
    expect(texts(pages)).toEqual([1, 2, 3].map((n) => [body(n).text]));
  });

  test("bare page numbers with an offset (printed 11, 12, 13), top or bottom, and a large header identical on every page", () => {
    const top = [1, 2, 3].map((n) => page(n, [line(`- ${n + 10} -`, 30, 300), line("ACME", 50, 72, 20), body(n)]));
    expect(texts(top)).toEqual([1, 2, 3].map((n) => [body(n).text]));
    // The page number alone on a single page, equal to its page number.
    expect(texts([page(1, [body(1), line("1", 760, 300)])])).toEqual([[body(1).text]]);
  });
});

/** Converts `pdf` as the PDF worker does (text layer, furniture, layout, markdown). */
async function markdownOf(pdf: Uint8Array): Promise<string> {
  const conversion = PdfConversion.open(await loadMupdf(), pdf);
  try {
    conversion.pages(0, conversion.total, "fast", 200);
    return conversion.convert(conversion.total, [], {}).markdown;
  } finally {
    conversion.close();
  }
}

describe("furniture in PDFs", () => {
  test("A4 with a page break before each chapter: the six chapter headings stay, the page numbers go", async () => {
    const pdf = await buildPdf(
      [1, 2, 3, 4, 5, 6].map((n) => ({
        width: 595,
        height: 842,
        runs: [
          { text: `Chapter ${n}`, x: 57, y: 73, size: 18, bold: true },
          { text: `This is the body of chapter ${n}. It has a sentence or two of ordinary text.`, x: 57, y: 100 },
          { text: `${n}`, x: 295, y: 810, size: 12 },
        ],
      })),
    );
    const md = await markdownOf(pdf);
    for (let n = 1; n <= 6; n++) expect(md).toContain(`# Chapter ${n}\n\nThis is the body of chapter ${n}.`);
    expect(md).not.toMatch(/^\d$/m);
  });

  test("a table running into the bottom margin keeps every cell; the running header and 'Page N of M' go", async () => {
    const cells = (label: string, value: string, yPt: number): TextRun[] => [
      { text: label, x: 72, y: yPt },
      { text: value, x: 250, y: yPt },
      { text: "kEUR", x: 400, y: yPt },
    ];
    const pdf = await buildPdf(
      [1, 2, 3].map((p) => {
        const runs: TextRun[] = [{ text: "ACME Report 2026", x: 72, y: 40, size: 9 }, ...cells("Metric", "Value", 90)];
        for (let r = 0; r < 50; r++) runs.push(...cells(`Metric ${p * 10 + 6}-${r}`, `${p * 100 + 600 + r}`, 103 + r * 13));
        runs.push({ text: `Page ${p} of 3`, x: 480, y: 775, size: 9 });
        return { runs };
      }),
    );
    const md = await markdownOf(pdf);
    // Rows 48 and 49 (baselines at y 727 and 740 of 792) lie in the bottom margin.
    for (const p of [1, 2, 3]) for (const r of [0, 48, 49]) expect(md).toContain(`| Metric ${p * 10 + 6}-${r} | ${p * 100 + 600 + r} | kEUR |`);
    expect(md).toContain("| Metric 16-36 | 736 | kEUR |");
    expect(md).not.toContain("ACME Report 2026");
    expect(md).not.toMatch(/Page \d of 3/);
  });
});
