/**
 * The RTF reader's syntax (documents/office/rtf.ts), as RTF 1.9.1 gives it: `\binN` is followed by N bytes of
 * binary data, skipped whole (they were text before: NULs and control characters in the markdown, and a brace among
 * them changed the groups, so a `{\*` in a picture's bytes hid the text after it); control characters are never
 * text; a control word's name is at most 32 letters (a longer one was cut after 39 and the rest printed as text).
 */
import { describe, expect, test } from "bun:test";
import { DocumentCorruptError } from "../../src/documents/errors.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";
import { rtfToBlocks } from "../../src/documents/office/rtf.ts";

/** RTF 1.9.1: "A control word's name cannot be longer than 32 letters." */
const MAX_CONTROL_WORD_LETTERS = 32;

const latin1 = (s: string) => new Uint8Array(Buffer.from(s, "latin1"));
const texts = (rtf: string | Uint8Array) => rtfToBlocks(typeof rtf === "string" ? latin1(rtf) : rtf).blocks.map((b) => (b.kind === "paragraph" ? b.content.map((c) => c.text).join("") : b.kind));
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

describe("RTF \\binN", () => {
  test("the N bytes after \\binN are skipped: no binary in the text, and braces among them do not change the groups", () => {
    // The payload closes a group and opens a skipped destination ({\*\x): read as RTF, it hid "after".
    const payload = "\x00\x01\x1b}{\\*\\x\xff";
    const rtf = `{\\rtf1\\ansi before \\bin${payload.length} ${payload} after\\par second}`;
    expect(texts(rtf)).toEqual(["before after", "second"]);
  });

  test("every byte value as binary data leaves nothing in the markdown", () => {
    const payload = Buffer.from(Array.from({ length: 10_240 }, (_, i) => i % 256));
    const bytes = new Uint8Array(Buffer.concat([Buffer.from(`{\\rtf1 before \\bin${payload.length} `), payload, Buffer.from(" after\\par}")]));
    const { markdown } = convertOffice("rtf", bytes);
    expect(markdown.trim()).toBe("before after");
  });

  test("a \\binN longer than the file skips what is left, without an error", () => {
    expect(texts("{\\rtf1 before \\bin999999999999 xx after\\par}")).toEqual(["before"]);
    expect(texts("{\\rtf1 a\\bin-5 b\\bin c}")).toEqual(["abc"]); // the space after a control word is its delimiter
  });

  test("a picture's \\bin data inside a skipped destination does not end the destination early", () => {
    const rtf = `{\\rtf1 text {\\pict\\pngblip\\bin4 }}}} more picture} after}`;
    expect(texts(rtf)).toEqual(["text after"]);
  });
});

describe("RTF control characters", () => {
  test("C0 and C1 control characters are dropped from the text, written raw or escaped", () => {
    expect(texts("{\\rtf1 a\\'01b\\u2?c d\\'07e f\x01g\x7fh\\u150?i}")).toEqual(["abc de fghi"]);
  });

  test("8-bit characters are code page 1252, as \\'hh escapes are; tabs are spaces", () => {
    expect(texts("{\\rtf1 \x93quoted\x94 \\'93also\\'94\tend}")).toEqual(["\u201cquoted\u201d \u201calso\u201d end"]);
  });
});

describe("RTF control words", () => {
  test(`a control word of ${MAX_CONTROL_WORD_LETTERS} letters is a control word (unknown, so dropped)`, () => {
    expect(texts(`{\\rtf1 \\${"a".repeat(32)} text \\${"b".repeat(32)}12 more}`)).toEqual(["text more"]);
  });

  test("a control word longer than 32 letters is not RTF: a corrupt document, not letters printed as text", () => {
    for (const n of [33, 45, 5000]) {
      const rtf = latin1(`{\\rtf1 before \\${"a".repeat(n)} after}`);
      expect(() => rtfToBlocks(rtf)).toThrow(DocumentCorruptError);
      expect(() => convertOffice("rtf", rtf)).toThrow(`longer than ${MAX_CONTROL_WORD_LETTERS} letters`);
    }
  });

  test("ordinary RTF still reads: paragraphs, escapes, unicode with its fallback, skipped tables", () => {
    const rtf = "{\\rtf1\\ansi{\\fonttbl{\\f0 Times;}}{\\*\\generator Writer;}\\f0\\fs24 Caf\\'e9 \\u8364? costs\\tab 3\\par\\pard Line \\emdash two\\line three\\par}";
    // \line is a hard line break inside its paragraph.
    expect(convertOffice("rtf", latin1(rtf)).markdown).toBe("Café € costs 3\n\nLine —two\\\nthree\n");
    expect(CONTROL.test(convertOffice("rtf", latin1(rtf)).markdown)).toBe(false);
  });

  test("a table's rows stay apart (they ran into one another and into the next paragraph): a table, then the paragraph", () => {
    const rtf = "{\\rtf1\\trowd\\cellx1000\\cellx2000\\pard\\intbl Variety\\cell Days\\cell\\row\\trowd\\cellx1000\\cellx2000\\pard\\intbl Roma\\cell 75\\cell\\row\\pard After the table.\\par}";
    expect(rtfToBlocks(latin1(rtf)).blocks).toEqual([
      { kind: "table", rows: [[[{ text: "Variety" }], [{ text: "Days" }]], [[{ text: "Roma" }], [{ text: "75" }]]] },
      { kind: "paragraph", content: [{ text: "After the table." }] },
    ]);
  });
});
