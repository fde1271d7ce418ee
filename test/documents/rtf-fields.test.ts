/**
 * RTF field instructions as Word writes them (documents/office/rtf-fields.ts, inline-runs.ts `hyperlinkTarget`):
 * Word writes a typographic quote as `\ldblquote`/`\rdblquote`, in an instruction too, and those are the address's
 * quotes (the text keeps them typographic: “ ”); `\"` inside the quotes (`\\"` in RTF) is a quote; a `\l` location's
 * space is percent-encoded in the fragment.
 */
import { describe, expect, test } from "bun:test";
import { convertOffice } from "../../src/documents/office/readers.ts";

const convert = (body: string) => convertOffice("rtf", new Uint8Array(Buffer.from(String.raw`{\rtf1\ansi\deff0{\fonttbl{\f0 Arial;}}` + body + "}", "latin1")));
const markdown = (body: string) => convert(body).markdown;

describe("an RTF HYPERLINK field's instruction", () => {
  test("\\ldblquote … \\rdblquote are its quotes; the text around keeps them typographic", () => {
    expect(markdown(String.raw`\pard {\field{\*\fldinst HYPERLINK \ldblquote https://example.com/x\rdblquote }{\fldrslt curly link}} and \ldblquote text\rdblquote\par`)).toBe(
      "[curly link](https://example.com/x) and “text”\n",
    );
  });

  test("an escaped quote inside the address", () => {
    expect(markdown(String.raw`\pard {\field{\*\fldinst HYPERLINK "https://example.com/say?q=\\"hi\\""}{\fldrslt say}}\par`)).toBe('[say](https://example.com/say?q="hi")\n');
  });

  test("a location with a space is percent-encoded in the link, the HTML's too (it was `#a b`)", () => {
    expect(convert(String.raw`\pard {\field{\*\fldinst HYPERLINK "https://example.com/page" \\l "a b"}{\fldrslt spaced}}\par`).html).toContain('href="https://example.com/page#a%20b"');
  });
});
