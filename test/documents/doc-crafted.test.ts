/**
 * DOC files a reviewer crafted or found (documents/office/doc*.ts, detect.ts): a property run of the piece table
 * with a negative size (the reader looped for ever), a CLX at the very end of its stream (a RangeError, answered
 * 500), a paragraph-property bin table naming one page 100,000 times (29 runs each: gigabytes), 20,000 nested
 * fields (quadratic), a table nested in a cell (it split the outer row), and an XLS whose cell mentions
 * "WordDocument" (read as a damaged DOC). The fixtures report.doc and wordy.xls were written by LibreOffice from the
 * .fodt and .fods files beside them.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sniffBytes } from "../../src/documents/detect.ts";
import { DocParagraphs } from "../../src/documents/office/doc-paragraphs.ts";
import { bodyText, type Fib } from "../../src/documents/office/doc-text.ts";
import { inlineOf } from "../../src/documents/office/doc.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";

const fixture = (name: string) => new Uint8Array(readFileSync(join(import.meta.dir, "..", "fixtures", "documents", name)));

/** A FIB over `table`, whose FibRgFcLcb pairs are `pairs` (index → [fc, lcb]). */
const fibOf = (table: Uint8Array, pairs: Record<number, [number, number]>, ccpText = 0): Fib => ({
  ccpText,
  table,
  pair: (i) => (pairs[i] ? { fc: pairs[i]![0], lcb: pairs[i]![1] } : { fc: 0, lcb: 0 }),
});

describe("crafted DOC structures", () => {
  test("a CLX property run of negative size, and a CLX at the end of its stream: 422s at once", () => {
    const looping = new Uint8Array([1, 0xfd, 0xff, 2, 0, 0, 0, 0]);
    expect(() => bodyText(new Uint8Array(1024), fibOf(looping, { 33: [0, 8] }, 10))).toThrow(expect.objectContaining({ code: "SCRAPE_DOCUMENT_CORRUPT" }));
    const atEnd = new Uint8Array([0, 0, 0, 1]);
    expect(() => bodyText(new Uint8Array(1024), fibOf(atEnd, { 33: [3, 1] }, 10))).toThrow(expect.objectContaining({ code: "SCRAPE_DOCUMENT_CORRUPT" }));
  });

  test("a bin table naming one page of 29 runs 100,000 times is read as one page", () => {
    // The WordDocument stream: an FKP at page 1 (bytes 512–1023) with 29 runs, each a plain paragraph.
    const word = new Uint8Array(1024);
    const page = new DataView(word.buffer, 512, 512);
    for (let j = 0; j <= 29; j++) page.setUint32(j * 4, j * 10, true);
    word[512 + 511] = 29;
    // PlcBtePapx: n+1 FCs, then n page numbers, all 1.
    const n = 100_000;
    const table = new Uint8Array((n + 1) * 4 + n * 4);
    const tv = new DataView(table.buffer);
    for (let i = 0; i <= n; i++) tv.setUint32(i * 4, i, true);
    for (let i = 0; i < n; i++) tv.setUint32((n + 1) * 4 + i * 4, 1, true);
    const started = performance.now();
    const paragraphs = new DocParagraphs(word, fibOf(table, { 13: [0, table.length] }));
    expect(performance.now() - started).toBeLessThan(500);
    expect(paragraphs.at(15).inTable).toBe(false);
  });

  test("20,000 nested fields take linear time, and a link inside a field's result stays a link", () => {
    const nested = "\x13\x14".repeat(20_000) + "a".repeat(20_000) + "\x15".repeat(20_000);
    const started = performance.now();
    expect(inlineOf(nested).map((s) => s.text).join("")).toBe("a".repeat(20_000));
    expect(performance.now() - started).toBeLessThan(500);
    expect(inlineOf('See \x13 IF 1 = 1 "x" \x14\x13 HYPERLINK "https://example.org/a" \x14the page\x15\x15 now')).toEqual([
      { text: "See " },
      { text: "the page", href: "https://example.org/a" },
      { text: " now" },
    ]);
  });
});

describe("real files", () => {
  test("a table nested in a cell stays in that cell; merged cells, a footnote and a hyperlink field", () => {
    const md = convertOffice("doc", fixture("report.doc")).markdown;
    expect(md).toContain("| O1 | O2 before I11 I12 I21 I22 O2 after |\n| --- | --- |\n| O3 | O4 |");
    expect(md).toContain("Body with a footnote[^1] and a [link one](https://example.com/a) then page 1 end.");
    expect(md).toContain("\n[^1]: The footnote text.");
  });

  test("an XLS whose cell says WordDocument is an XLS (its root streams decide, not its bytes)", () => {
    const xls = fixture("wordy.xls");
    expect(sniffBytes(xls)).toBe("xls");
    expect(convertOffice("xls", xls).markdown).toContain("WordDocument");
    expect(sniffBytes(fixture("report.doc"))).toBe("doc");
  });
});
