/**
 * Field instructions as Word writes them (documents/office/inline-runs.ts `hyperlinkTarget`, docx-inline.ts): a
 * HYPERLINK's address in typographic quotes (Word's AutoFormat, and RTF's `\ldblquote`) or with `\"` inside its
 * quotes; a `\l` location with a space, percent-encoded in the fragment; and every format's instruction capped at
 * 2,048 characters, a DOCX's too (a 28 MB code cost 310 MB).
 */
import { describe, expect, test } from "bun:test";
import { strToU8, zipSync } from "fflate";
import { convertOffice } from "../../src/documents/office/readers.ts";

const NS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`;
const convert = (body: string) => convertOffice("docx", zipSync({ "word/document.xml": strToU8(`<w:document ${NS}><w:body>${body}</w:body></w:document>`) }));
const md = (body: string) => convert(body).markdown;
const r = (text: string) => `<w:r><w:t xml:space="preserve">${text}</w:t></w:r>`;
const instr = (code: string) => `<w:r><w:instrText xml:space="preserve">${code}</w:instrText></w:r>`;
/** A complex field whose code is `codes` (one w:instrText each) and whose result is `text`. */
const field = (codes: string[], text: string) =>
  `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r>${codes.map(instr).join("")}<w:r><w:fldChar w:fldCharType="separate"/></w:r>${r(text)}<w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`;

describe("a HYPERLINK field's arguments", () => {
  test("typographic quotes are quotes", () => {
    expect(md(field([" HYPERLINK \u201chttps://example.com/a\u201d "], "curly"))).toBe("[curly](https://example.com/a)\n");
    expect(md(field([' HYPERLINK "https://example.com/b" \\l \u201cpart\u201d '], "curly fragment"))).toBe("[curly fragment](https://example.com/b#part)\n");
  });

  test('\\" inside quotes is a quote, not the end of the address', () => {
    expect(md(field([' HYPERLINK "https://example.com/search?q=\\"hi\\"" '], "quoted"))).toBe("[quoted](https://example.com/search?q=\"hi\")\n");
  });

  test("a location with a space is percent-encoded in the fragment: the HTML's link (what `links` reads) too", () => {
    const doc = convert(field([' HYPERLINK "https://example.com/page" \\l "Part two" '], "spaced"));
    expect(doc.markdown).toBe("[spaced](https://example.com/page#Part%20two)\n");
    expect(doc.html).toContain('href="https://example.com/page#Part%20two"');
  });
});

describe("a DOCX field's code is capped at 2,048 characters, as a DOC's and an RTF's", () => {
  test("a switch past the cap is not read, in one w:instrText or many", () => {
    const head = ' HYPERLINK "https://example.com/page" ';
    expect(md(field([head + " ".repeat(3000) + '\\l "late" '], "one"))).toBe("[one](https://example.com/page)\n");
    expect(md(field([head, ...Array.from({ length: 100 }, () => " ".repeat(30)), '\\l "late" '], "many"))).toBe("[many](https://example.com/page)\n");
    expect(md(field([head + '\\l "early" '], "short"))).toBe("[short](https://example.com/page#early)\n");
  });

  test("a code of 28 MB in 1,000 pieces is read in bounded time", () => {
    const piece = " ".repeat(28_000);
    const started = performance.now();
    expect(md(field([' HYPERLINK "https://example.com/" ', ...Array.from({ length: 1000 }, () => piece)], "big"))).toBe("[big](https://example.com/)\n");
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
