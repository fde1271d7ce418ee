/**
 * Marks that change inside a word (src/documents/layout/inline-marks.ts, emphasis-check.ts): the markdown, read back
 * with Bun's CommonMark/GFM renderer, gives every letter the marks the document gave it and shows no delimiter as
 * text. Before, the marks nested in a fixed order (bold outermost): a word italic throughout and bold in its middle
 * was `*Wo****rd****s*`, and mark changes between letters, or between a letter and punctuation, printed `**` or `*`
 * and marked the wrong letters (`***cbcb*a*xa*aé**`, `x*~~c~~*y`).
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { strToU8, zipSync } from "fflate";
import { readsAsPlaced } from "../../src/documents/layout/emphasis-check.ts";
import type { Block, Inline } from "../../src/documents/layout/model.ts";
import { blocksToMarkdown } from "../../src/documents/layout/render.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";

const commonMark = (markdown: string) => Bun.markdown.html(markdown);
const para = (...content: Inline[]): Block => ({ kind: "paragraph", content });

type Letter = { c: string; bold: boolean; italic: boolean; strike: boolean };

/** Each character (code point) of rendered HTML with the marks around it (tags other than the marks' are dropped). */
function letters(html: string): Letter[] {
  const out: Letter[] = [];
  const depth = { bold: 0, italic: 0, strike: 0 };
  const entities: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"' };
  for (const m of html.matchAll(/<(\/?)(strong|em|del|s)>|<[^>]*>|&(amp|lt|gt|quot);|([^<&])/gu)) {
    if (m[2]) {
      const key = m[2] === "strong" ? "bold" : m[2] === "em" ? "italic" : "strike";
      depth[key] += m[1] ? -1 : 1;
      continue;
    }
    const c = m[3] ? entities[m[3]] : m[4];
    if (c === undefined || /\s/.test(c)) continue;
    out.push({ c, bold: depth.bold > 0, italic: depth.italic > 0, strike: depth.strike > 0 });
  }
  return out;
}

/** The characters of `content` with their marks, blanks left out. */
function meant(content: Inline[]): Letter[] {
  return content.flatMap((r) => [...r.text].filter((c) => !/\s/.test(c)).map((c) => ({ c, bold: !!r.bold, italic: !!r.italic, strike: !!r.strike })));
}

/**
 * Whether the markdown of `content` reads back as `content`: the same characters (so no delimiter shows), each letter
 * with its marks. Punctuation may be written outside a run's delimiters (`**Note**:`), so only letters and digits
 * are held to their marks.
 */
function readsBack(content: Inline[]): { markdown: string; ok: boolean } {
  const markdown = blocksToMarkdown([para(...content)]);
  const got = letters(commonMark(markdown));
  const want = meant(content);
  const ok = got.map((l) => l.c).join("") === want.map((l) => l.c).join("") && got.every((l, i) => !/[\p{L}\p{N}]/u.test(l.c) || (l.bold === want[i]!.bold && l.italic === want[i]!.italic && l.strike === want[i]!.strike));
  return { markdown, ok };
}

describe("marks that change inside a word", () => {
  test("the mark that runs furthest is the outer one: no run of four asterisks between letters", () => {
    const cases: [Inline[], string][] = [
      [[{ text: "Word", bold: true }, { text: "play", bold: true, italic: true }], "**Word*play***"],
      [[{ text: "Wo", italic: true }, { text: "rd", bold: true, italic: true }, { text: "s", italic: true }], "*Wo**rd**s*"],
      [[{ text: "ab", bold: true }, { text: "cd", bold: true, italic: true }, { text: "ef", bold: true }], "**ab*cd*ef**"],
      [[{ text: "over", strike: true, bold: true }, { text: "due", strike: true }], "~~**over**due~~"],
    ];
    for (const [content, markdown] of cases) {
      const got = readsBack(content);
      expect(got.markdown).toBe(`${markdown}\n`);
      expect(got.markdown).not.toContain("****");
      expect(got.ok).toBe(true);
    }
  });

  test("what CommonMark cannot say with delimiters is written with tags, never stray asterisks", () => {
    const cases: [Inline[], string][] = [
      [[{ text: "cbcb", bold: true, italic: true }, { text: "a", bold: true }, { text: "xa", bold: true, italic: true }, { text: "aé", bold: true }], "<strong><em>cbcb</em>a<em>xa</em>aé</strong>"],
      [[{ text: "x" }, { text: "c", italic: true, strike: true }, { text: "y" }], "x<em><s>c</s></em>y"],
      [[{ text: "ab", bold: true, italic: true }, { text: "cd", italic: true }, { text: "ef", bold: true, italic: true }], "<em><strong>ab</strong>cd<strong>ef</strong></em>"],
      [[{ text: "é", italic: true }, { text: "bb(c", bold: true, italic: true }, { text: "abc", bold: true }], "<em>é<strong>bb(c</strong></em><strong>abc</strong>"],
    ];
    for (const [content, markdown] of cases) {
      const got = readsBack(content);
      expect(got.markdown).toBe(`${markdown}\n`);
      expect(got.ok).toBe(true);
    }
  });

  test("punctuation stays inside the delimiters where outside they would not read: (**a) b** is no emphasis", () => {
    const content: Inline[] = [{ text: "(gamma)", bold: true, italic: true }, { text: " x: ", bold: true }, { text: "(gamma)", bold: true, italic: true, strike: true }, { text: " end" }];
    const got = readsBack(content);
    expect(got.ok).toBe(true);
    expect(got.markdown).not.toContain("<strong>");
  });

  test("any runs of letters, blanks, punctuation, backslashes and emoji, code and links read back with their marks (property)", () => {
    const run = fc.record({
      text: fc.string({ unit: fc.constantFrom("a", "b", "é", "x", "😀", " ", ".", ",", "(", ")", ":", "\\", "`", "~", "*", "!", "[", "<"), minLength: 1, maxLength: 4 }),
      bold: fc.boolean(),
      italic: fc.boolean(),
      strike: fc.boolean(),
      code: fc.boolean(),
      href: fc.constantFrom(undefined, undefined, undefined, "https://a.example/x", "https://b.example/(y)"),
    });
    fc.assert(
      fc.property(fc.array(run, { minLength: 1, maxLength: 6 }), (runs) => {
        const content: Inline[] = runs.map((r) => ({
          text: r.text,
          ...(r.bold ? { bold: true } : {}),
          ...(r.italic ? { italic: true } : {}),
          ...(r.strike ? { strike: true } : {}),
          ...(r.code ? { code: true } : {}),
          ...(r.href ? { href: r.href } : {}),
        }));
        if (!content.some((c) => c.text.trim())) return;
        const got = readsBack(content);
        if (!got.ok) throw new Error(`${JSON.stringify(content)} → ${JSON.stringify(got.markdown)} → ${commonMark(got.markdown)}`);
      }),
      { numRuns: 4000, seed: 20240611 },
    );
  });

  test("a marked code span is one unit: no delimiter inside it, even after its backslash", () => {
    for (const [content, markdown] of [
      [[{ text: "see " }, { text: "C:\\Temp\\", code: true, italic: true }, { text: " now" }], "see *`C:\\Temp\\`* now"],
      [[{ text: "C:\\Temp\\", code: true, bold: true }], "**`C:\\Temp\\`**"],
      [[{ text: "path " }, { text: "a\\", code: true, bold: true, italic: true }, { text: " b", bold: true }], "path ***`a\\`* b**"],
    ] as [Inline[], string][]) {
      const got = readsBack(content);
      expect(got.markdown).toBe(`${markdown}\n`);
      expect(got.ok).toBe(true);
      expect(commonMark(got.markdown)).toContain("<code>");
    }
    // The check knows code spans: a delimiter placed inside one does not read as placed.
    const text = "*`C:\\Temp*\\`";
    const open = { at: 0, length: 1, char: "*", open: true, mark: "italic" } as const;
    expect(readsAsPlaced(text, [open, { ...open, at: 9, open: false }], "", "", [1, 12])).toBe(false);
    expect(readsAsPlaced("*`C:\\Temp\\`*", [open, { ...open, at: 11, open: false }], "", "", [1, 11])).toBe(true);
  });

  test("code split into runs is one code span: two side by side shared their backticks", () => {
    const got = readsBack([{ text: "a" }, { text: "<", code: true, italic: true }, { text: "[", code: true, italic: true }, { text: "b" }]);
    expect(got.markdown).toBe("a<em>`<[`</em>b\n");
    expect(got.ok).toBe(true);
  });

  test("a ! before a link or a note reference is text, not an image's", () => {
    const content: Inline[] = [{ text: "Wow!" }, { text: "site", href: "https://e.example/" }, { text: " and ", bold: true }, { text: "more!", bold: true }, { text: "there", href: "https://e.example/2" }];
    const got = readsBack(content);
    expect(got.markdown).toBe("Wow\\![site](https://e.example/) **and more**\\![there](https://e.example/2)\n");
    expect(got.ok).toBe(true);
    expect(blocksToMarkdown([para({ text: "Yes!" }, { text: "1", note: "1" })])).toBe("Yes\\![^1]\n");
  });

  test("a ~ touching a fallback tag or at a run's edge is escaped: GFM strikes between single tildes", () => {
    const cases: Inline[][] = [
      [{ text: "~   ", bold: true, strike: true }, { text: "bb", italic: true }, { text: "~" }],
      [{ text: "a ~" }, { text: "b" }, { text: "~ c" }],
      [{ text: "x " }, { text: "  ~ ", italic: true, strike: true }, { text: "b" }, { text: "c~ d" }],
    ];
    for (const content of cases) {
      const got = readsBack(content);
      expect(commonMark(got.markdown)).not.toContain("<del>");
      expect(got.ok).toBe(true);
    }
    expect(blocksToMarkdown([para({ text: "a ~" }, { text: "b" }, { text: "~ c" })])).toBe("a \\~b\\~ c\n");
    expect(blocksToMarkdown([para({ text: "x" }, { text: "c~", italic: true, strike: true }, { text: "y" })])).toBe("x<em><s>c\\~</s></em>y\n");
  });

  test("stretches are judged one by one: a word-boundary mark elsewhere in the paragraph keeps its asterisks", () => {
    const content: Inline[] = [{ text: "Plain " }, { text: "bold", bold: true }, { text: " then " }, { text: "x" }, { text: "c", italic: true, strike: true }, { text: "y and " }, { text: "more", italic: true }];
    const got = readsBack(content);
    expect(got.markdown).toBe("Plain **bold** then x<em><s>c</s></em>y and *more*\n");
    expect(got.ok).toBe(true);
  });
});

test("an ODT word bold in its first half and bold italic in its second reads back so", () => {
  const ns = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"';
  const styles =
    '<style:style style:name="I" style:family="text"><style:text-properties fo:font-style="italic"/></style:style>' +
    '<style:style style:name="BI" style:family="text"><style:text-properties fo:font-weight="bold" fo:font-style="italic"/></style:style>';
  const body = '<text:p>A <text:span text:style-name="I">Wo</text:span><text:span text:style-name="BI">rd</text:span><text:span text:style-name="I">s</text:span> here.</text:p>';
  const content = `<office:document-content ${ns}><office:automatic-styles>${styles}</office:automatic-styles><office:body><office:text>${body}</office:text></office:body></office:document-content>`;
  const odt = zipSync({ mimetype: strToU8("application/vnd.oasis.opendocument.text"), "content.xml": strToU8(content) });
  const { markdown } = convertOffice("odt", odt);
  expect(markdown).toBe("A *Wo**rd**s* here.\n");
  expect(commonMark(markdown)).toBe("<p>A <em>Wo<strong>rd</strong>s</em> here.</p>\n");
});
