/**
 * RTF links, headings, tables and lists (documents/office/rtf.ts, rtf-fields.ts, rtf-paragraph-state.ts,
 * rtf-story.ts), as a DOCX's, DOC's and ODT's come out: a HYPERLINK field's result is a markdown link to its target; a
 * paragraph with an outline level (its own `\outlinelevelN`, or its style's in the stylesheet, or a style named
 * "heading N") is a `#` heading; a table's rows (`\intbl` paragraphs, `\cell`, `\row`) are a GFM table; list items
 * (`\lsN`, `\ilvlN`, a `{\listtext}` or `{\pntext}` marker) are a markdown list. Before, all were plain paragraphs
 * (a row one paragraph of its cells' text, an item its marker's text), and an unstarred field instruction
 * (`{\fldinst PAGE}`) was printed as text.
 *
 * links-headings.rtf was written by LibreOffice 7.4 from links-headings.fodt (`soffice --headless --convert-to rtf`):
 * three headings (levels 1–3, their styles' outline levels) and two links (web and mail); garden-lists.rtf from
 * garden-lists.fodt: a bulleted and a numbered list, each with a nested item.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_FIELD_DEPTH } from "../../src/documents/office/rtf-fields.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";
import { rtfToBlocks } from "../../src/documents/office/rtf.ts";
import { TextBudget } from "../../src/documents/office/text-budget.ts";
import { leastThreadCpuMs } from "../helpers/thread-cpu.ts";

const fixture = (name: string) => new Uint8Array(readFileSync(join(import.meta.dir, "..", "fixtures", "documents", name)));
const latin1 = (s: string) => new Uint8Array(Buffer.from(s, "latin1"));
const markdown = (rtf: string) => convertOffice("rtf", latin1(rtf)).markdown;
const link = (url: string, text: string) => String.raw`{\field{\*\fldinst HYPERLINK "${url}" }{\fldrslt {\ul ${text}}}}`;

describe("RTF written by LibreOffice", () => {
  test("headings keep their levels and links their targets (markdown and html)", () => {
    const converted = convertOffice("rtf", fixture("links-headings.rtf"));
    expect(converted.markdown).toBe(
      [
        "# Seed Library",
        "",
        "Borrow seeds from the [online catalogue](https://seeds.example.org/catalogue) and return them after harvest.",
        "",
        "## Opening hours",
        "",
        "Saturdays, or write to [the librarian](mailto:library@example.org).",
        "",
        "### Holidays",
        "",
        "Closed in August.",
        "",
      ].join("\n"),
    );
    expect(converted.html).toContain("<h1>Seed Library</h1>");
    expect(converted.html).toContain('<h3>Holidays</h3>');
    expect(converted.html).toContain('Borrow seeds from the <a href="https://seeds.example.org/catalogue">online catalogue</a> and return');
  });
});

describe("RTF links", () => {
  test("Word's field (instruction in a nested group, a data field beside it): the result is linked, the instruction never shown", () => {
    const word = String.raw`{\rtf1 See {\field{\*\fldinst {\rtlch\fcs1 \af0 HYPERLINK "https://example.org/a?b=1&c=2" }{\rtlch {\*\datafield 00d0c9ea79f9bace118c}}}{\fldrslt {\rtlch\fcs1 \cs15\ul\cf2 the page}}} today.\par}`;
    expect(markdown(word)).toBe("See [the page](https://example.org/a?b=1&c=2) today.\n");
  });

  test("only web, mail and FTP targets are links; a bookmark, a file or a script target leaves its text", () => {
    const rtf = String.raw`{\rtf1 ` + [link("ftp://files.example.org/x", "ftp"), String.raw`{\field{\*\fldinst HYPERLINK \\l "_Toc1"}{\fldrslt bookmark}}`, link("file:///etc/passwd", "file"), link("javascript:alert(1)", "script"), link("MAILTO:a@example.org", "mail")].join(", ") + String.raw`\par}`;
    expect(markdown(rtf)).toBe("[ftp](ftp://files.example.org/x), bookmark, file, script, [mail](MAILTO:a@example.org)\n");
  });

  test("other fields show their result, never their instruction, starred or not; an instruction outside a field is skipped", () => {
    expect(markdown(String.raw`{\rtf1 Page {\field{\fldinst PAGE }{\fldrslt 3}} of {\field{\*\fldinst NUMPAGES}{\fldrslt 9}}\par}`)).toBe("Page 3 of 9\n");
    expect(markdown(String.raw`{\rtf1 a {\fldinst HYPERLINK "https://x.example/" }b\par}`)).toBe("a b\n");
    // A result with no instruction read is its text.
    expect(markdown(String.raw`{\rtf1 {\field{\fldrslt plain}}\par}`)).toBe("plain\n");
  });

  test("nested fields: a link inside an IF field's result is linked; the outer result goes on unlinked after it", () => {
    const rtf = String.raw`{\rtf1 {\field{\*\fldinst IF 1 = 1 "x"}{\fldrslt before ${link("https://in.example/", "inner")} after}} end\par}`;
    expect(markdown(rtf)).toBe("before [inner](https://in.example/) after end\n");
    // A link's result holding another field (a page number) stays one link.
    const within = String.raw`{\rtf1 ${String.raw`{\field{\*\fldinst HYPERLINK "https://out.example/"}{\fldrslt page {\field{\*\fldinst PAGE}{\fldrslt 4}} here}}`}\par}`;
    expect(markdown(within)).toBe("[page 4 here](https://out.example/)\n");
  });

  test("a link in a note is a link; a link target counts against the document's text budget", () => {
    expect(markdown(String.raw`{\rtf1 Body{\footnote\pard {\super\chftn} See ${link("https://n.example/", "this")}.}\par}`)).toBe("Body[^1]\n\n[^1]: See [this](https://n.example/).\n");
    const budget = new TextBudget(20);
    const { blocks } = rtfToBlocks(latin1(String.raw`{\rtf1 Short ${link("https://example.org/a-long-target", "x")} never\par}`), budget);
    expect(budget.cut).toBe(true);
    expect(blocks).toEqual([{ kind: "paragraph", content: [{ text: "Short" }] }]);
  });

  test("hostile fields: a million nested fields and a megabyte instruction convert in time linear in their size, with bounded output", () => {
    const nestedFields = (fields: number) => latin1(`{\\rtf1 ${"{\\field{\\*\\fldinst HYPERLINK \"https://n.example/\"}{\\fldrslt x".repeat(fields)}\\par}`);
    const longInstruction = (chars: number) => latin1(String.raw`{\rtf1 {\field{\*\fldinst HYPERLINK "https://e.example/${"a".repeat(chars)}"}{\fldrslt text}} end\par}`);
    // Nesting 8 times as deep, or an instruction 8 times as long, costs about 8 times as much: eight short inputs
    // are timed against one long one, the same text in all (this thread's CPU time, the least of 3 interleaved runs,
    // test/helpers/thread-cpu.ts; wall time also counts a loaded machine's waits for a core). Each field past
    // MAX_FIELD_DEPTH costs a counter; an uncapped stack scanned per field (its `\field` looked for among all open
    // ones) measured 7.6-7.7 times as costly, and growing with the depth. Measured, loaded: 0.85-1.1 for both.
    const SHORT_FIELDS = 12_500;
    const SHORT_INSTRUCTION_CHARS = 1_000_000;
    const eightTimes = (bytes: Uint8Array) => () => {
      for (let i = 0; i < 8; i++) convertOffice("rtf", bytes);
    };
    const once = (bytes: Uint8Array) => () => convertOffice("rtf", bytes);
    const [eightShortNestedMs, longNestedMs, eightShortInstructionMs, longInstructionMs] = leastThreadCpuMs(
      [eightTimes(nestedFields(SHORT_FIELDS)), once(nestedFields(8 * SHORT_FIELDS)), eightTimes(longInstruction(SHORT_INSTRUCTION_CHARS)), once(longInstruction(8 * SHORT_INSTRUCTION_CHARS))],
      3,
    );
    expect(longNestedMs! / eightShortNestedMs!).toBeLessThan(2.5);
    expect(longInstructionMs! / eightShortInstructionMs!).toBeLessThan(2.5);
    // At the hostile sizes: the first MAX_FIELD_DEPTH fields link (all to the same target: one span); deeper ones
    // are plain text.
    expect(convertOffice("rtf", nestedFields(1_000_000)).markdown).toBe(`[${"x".repeat(1_000_000)}](https://n.example/)\n`);
    // The instruction is read to 2,048 characters: its quote never closes there, so it is no link.
    expect(convertOffice("rtf", longInstruction(1_000_000)).markdown).toBe("text end\n");
    expect(MAX_FIELD_DEPTH).toBe(64);
  }, 60_000);
});

describe("RTF headings", () => {
  test("Word: heading styles named in the stylesheet (with or without their own outline level); aliases after a comma", () => {
    const rtf = String.raw`{\rtf1{\stylesheet{\ql \snext0 Normal;}{\s1\ql\outlinelevel0\sbasedon0\snext0 heading 1;}{\s2\sbasedon0 heading 2,h2;}{\*\cs10 Default Paragraph Font;}}` + String.raw`\pard\plain \s1\outlinelevel0 Title\par\pard\plain \s2 Part\par\pard\plain Body text.\par}`;
    expect(markdown(rtf)).toBe("# Title\n\n## Part\n\nBody text.\n");
  });

  test("pandoc: \\outlinelevelN on the paragraph alone; 9 is body text and deep levels are h6", () => {
    const rtf = String.raw`{\rtf1 {\pard \ql \outlinelevel0 \b \fs36 Top\par}{\pard \outlinelevel1 Second\par}{\pard \outlinelevel7 Deep\par}{\pard \outlinelevel9 Body\par}{\pard Plain\par}}`;
    expect(markdown(rtf)).toBe("# Top\n\n## Second\n\n###### Deep\n\nBody\n\nPlain\n");
  });

  test("a \\pard inside a group (a numbered heading's {\\listtext}) ends with the group: the heading stays a heading", () => {
    const rtf = String.raw`{\rtf1 \pard\plain \s0\outlinelevel1{\listtext\pard\plain 1.2\tab}Results\par\pard Numbers.\par}`;
    expect(markdown(rtf)).toBe("## 1.2 Results\n\nNumbers.\n");
  });

  test("a style's name is not text, and a paragraph's style set before the stylesheet's definitions does not leak into it", () => {
    const rtf = String.raw`{\rtf1\pard\s1 {\stylesheet{\s1 heading 1;}{\s2\outlinelevel2 Custom;}}Text\par\pard\s2 Three\par}`;
    expect(markdown(rtf)).toBe("Text\n\n### Three\n");
  });

  test("hostile: a million nested groups each setting a level, and 100,000 styles, convert in time linear in their size", () => {
    const nestedGroups = (groups: number) => latin1(`{\\rtf1 ${"{\\pard\\outlinelevel0 a".repeat(groups)}\\par}`);
    const stylesheet = (styles: number) =>
      latin1(`{\\rtf1{\\stylesheet${Array.from({ length: styles }, (_, k) => `{\\s${k} heading ${(k % 9) + 1};}`).join("")}}\\pard\\s5 Six\\par\\pard\\s${styles - 1} Late\\par}`);
    // Eight short inputs timed against one 8 times as long, as for the fields above. Groups past MAX_SAVED_STATES
    // save nothing; an uncapped saved-state stack scanned per change measured 8.6 times as costly. The stylesheets
    // stay within MAX_STYLES (10,000), so that every style is defined in both: a copy of the styles per definition
    // measured 7.0. Measured, loaded: 0.85-1.1 for groups, 0.75-1.25 for styles.
    const SHORT_GROUPS = 12_500;
    const SHORT_STYLES = 1_250;
    const eightTimes = (bytes: Uint8Array) => () => {
      for (let i = 0; i < 8; i++) convertOffice("rtf", bytes);
    };
    const once = (bytes: Uint8Array) => () => convertOffice("rtf", bytes);
    const [eightShortGroupsMs, longGroupsMs, eightShortSheetsMs, longSheetMs] = leastThreadCpuMs(
      [eightTimes(nestedGroups(SHORT_GROUPS)), once(nestedGroups(8 * SHORT_GROUPS)), eightTimes(stylesheet(SHORT_STYLES)), once(stylesheet(8 * SHORT_STYLES))],
      3,
    );
    expect(longGroupsMs! / eightShortGroupsMs!).toBeLessThan(2.5);
    expect(longSheetMs! / eightShortSheetsMs!).toBeLessThan(2.5);
    // At the hostile sizes, every level and the styles read.
    expect(convertOffice("rtf", nestedGroups(1_000_000)).markdown).toBe(`# ${"a".repeat(1_000_000)}\n`);
    expect(convertOffice("rtf", stylesheet(100_000)).markdown).toBe("###### Six\n\nLate\n");
  }, 60_000);
});

describe("RTF tables", () => {
  const row = (...cells: string[]) => String.raw`\trowd\cellx1000\cellx2000\pard\intbl ` + cells.map((c) => `${c}\\cell `).join("") + String.raw`\row `;

  test("Word's table: a cell's paragraphs joined, an empty cell, a link in a cell, the row's end in a group of its own", () => {
    const rtf = String.raw`{\rtf1 Before.\par\trowd\irow0\cellx3000\cellx6000\pard\plain\intbl Name\cell Notes\cell{\trowd\irow0\cellx3000\cellx6000\row}` +
      String.raw`\pard\plain\intbl Basil\par sweet\cell ${link("https://herbs.example/basil", "guide")}\cell{\row}` +
      String.raw`\pard\plain\intbl Dill\cell\cell{\row}\pard\plain After.\par}`;
    expect(markdown(rtf)).toBe(["Before.", "", "| Name | Notes |", "| --- | --- |", "| Basil sweet | [guide](https://herbs.example/basil) |", "| Dill |  |", "", "After.", ""].join("\n"));
  });

  test("a list bullet's {\\listtext\\pard} in a cell does not end the table; a nested table's text joins its outer cell", () => {
    const bullet = String.raw`{\rtf1 ${row("A", "B")}\pard\intbl{\listtext\pard\plain \'b7\tab}item\cell two\cell\row\pard End\par}`;
    expect(markdown(bullet)).toBe("| A | B |\n| --- | --- |\n| · item | two |\n\nEnd\n");
    const nested = String.raw`{\rtf1\trowd\cellx5000\pard\intbl\itap1 Outer\par\pard\intbl\itap2 x\nestcell y\nestcell{\*\nesttableprops\trowd\cellx100\nestrow}\pard\intbl\itap1\cell\row\pard\itap0 After\par}`;
    expect(markdown(nested)).toBe("| Outer x y |\n| --- |\n\nAfter\n");
  });

  test("a table the file ends in is still a table; a stray \\row or \\cell outside a table ends a paragraph or is a space", () => {
    expect(markdown(String.raw`{\rtf1 ${row("a", "b")}\pard\intbl c\cell d`)).toBe("| a | b |\n| --- | --- |\n| c | d |\n");
    expect(markdown(String.raw`{\rtf1 one\row two\cell three\par}`)).toBe("one\n\ntwo three\n");
  });

  test("a table in a note is listed as its rows, each a line of its cells", () => {
    expect(markdown(String.raw`{\rtf1 Body{\footnote\pard {\super\chftn} ${row("k", "v")}\pard Done.}\par}`)).toBe("Body[^1]\n\n[^1]: k v Done.\n");
  });

  test("hostile tables: 200,000 rows, and one row of 100,000 cells, convert in time linear in their size", () => {
    const tall = (rows: number) => latin1(`{\\rtf1 ${row("a", "b").repeat(rows)}}`);
    const wide = (cells: number) => latin1(`{\\rtf1\\pard\\intbl ${"x\\cell ".repeat(cells)}\\row}`);
    // One table 8 times as long as another costs about 8 times as much (a copy of the table per row, or of the row
    // per cell, would be 64 times): eight short tables are timed against one long one, the same text in all. This
    // thread's CPU time, the least of 3 interleaved runs: wall time also counted the waits for a core and for the
    // collector's threads (the 200,000 rows below: 0.5-0.6 s of CPU, 1.4-2.1 s of wall time on an idle machine).
    // Measured, idle and loaded: 0.9-1.1 times as costly per row, 0.9-1.35 per cell; with such copies 5.1-5.7 and
    // 6.4-6.8, and growing with the sizes.
    const SHORT = 6_250;
    const eightTimes = (bytes: Uint8Array) => () => {
      for (let i = 0; i < 8; i++) rtfToBlocks(bytes);
    };
    const once = (bytes: Uint8Array) => () => rtfToBlocks(bytes);
    const [eightShortTallMs, longTallMs, eightShortWideMs, longWideMs] = leastThreadCpuMs([eightTimes(tall(SHORT)), once(tall(8 * SHORT)), eightTimes(wide(SHORT)), once(wide(8 * SHORT))], 3);
    expect(longTallMs! / eightShortTallMs!).toBeLessThan(2.5);
    expect(longWideMs! / eightShortWideMs!).toBeLessThan(2.5);
    // At the hostile sizes, every row and cell is there.
    const many = rtfToBlocks(tall(200_000)).blocks;
    expect(many).toHaveLength(1);
    expect(many[0]!.kind === "table" && many[0]!.rows.length).toBe(200_000);
    const one = rtfToBlocks(wide(100_000)).blocks;
    expect(one[0]!.kind === "table" && one[0]!.rows[0]!.length).toBe(100_000);
  }, 60_000);
});

describe("RTF lists", () => {
  test("LibreOffice's lists (\\ls, \\ilvl, a {\\listtext} marker): bullets and numbers, nested, as markdown lists", () => {
    expect(convertOffice("rtf", fixture("garden-lists.rtf")).markdown).toBe(
      ["Pack these:", "", "- Seeds", "  - Tomato", "- Trowel", "", "Then:", "", "1. Dig", "   - a. Ten centimetres", "2. Sow", "", "Done.", ""].join("\n"),
    );
  });

  test("Word's list items, older writers' {\\pntext} markers, and a list the file ends in", () => {
    const word = String.raw`{\rtf1\pard\plain{\listtext\pard\plain\f1 \'b7\tab}\ls1\ilvl0 One\par{\listtext\pard\plain\f1 \'b7\tab}\ls1\ilvl0 Two\par\pard After\par}`;
    expect(markdown(word)).toBe("- One\n- Two\n\nAfter\n");
    const legacy = String.raw`{\rtf1{\pntext\f0 1.\tab}{\*\pn\pnlvlbody\pndec\pnstart1}First\par{\pntext\f0 2.\tab}Second\par\pard Plain\par}`;
    expect(markdown(legacy)).toBe("1. First\n2. Second\n\nPlain\n");
    expect(markdown(String.raw`{\rtf1{\listtext iv)\tab}\ls3 Roman`)).toBe("- iv. Roman\n");
  });

  test("a numbered heading keeps its number as text; a bulleted paragraph in a cell keeps its bullet", () => {
    expect(markdown(String.raw`{\rtf1\pard\outlinelevel0{\listtext\pard\plain 3.\tab}\ls1 Results\par}`)).toBe("# 3. Results\n"); // after `# ` no list can start: no escape
    expect(markdown(String.raw`{\rtf1\trowd\cellx1000\pard\intbl{\listtext\pard\plain -\tab}\ls2 dash\cell\row}`)).toBe("| \\- dash |\n| --- |\n"); // escaped: it is text, not a list
  });
});

describe("RTF structure that must not outgrow the file or leak between stories", () => {
  test("a ragged table (one row of 5,000 cells over 5,000 short rows) is not padded to 25 million cells", () => {
    const n = 5_000;
    const { markdown: md } = convertOffice("rtf", latin1(`{\\rtf1\\pard\\intbl ${"\\cell ".repeat(n)}\\row ${"x\\cell\\row ".repeat(n)}}`));
    // Padded, it was 75 million characters (280 MB); GFM fills a short row itself.
    expect(md.length).toBeLessThan(200_000);
    expect(md.split("\n")[2]).toBe("| x |");
  });

  test("a link's target is charged for each span that prints it, and a cell for its separator", () => {
    const target = `https://a.example/${"a".repeat(1_990)}`;
    const budget = new TextBudget(100_000);
    const { blocks } = rtfToBlocks(latin1(`{\\rtf1 {\\field{\\*\\fldinst HYPERLINK "${target}"}{\\fldrslt ${"x\\par ".repeat(20_000)}}}}`), budget);
    expect(budget.cut).toBe(true);
    // 2,009 characters a paragraph: at most 49 of them (they were all 20,000, 40 million characters, charged once).
    expect(blocks.length).toBeLessThanOrEqual(50);
    const cells = new TextBudget(3_000);
    const table = rtfToBlocks(latin1(`{\\rtf1\\pard\\intbl ${"\\cell ".repeat(100_000)}\\row}`), cells).blocks;
    expect(cells.cut).toBe(true);
    expect(table[0]!.kind === "table" && table[0]!.rows[0]!.length).toBeLessThanOrEqual(1_000);
  });

  test("a footnote's paragraphs do not end the body's list item, nor does a note's marker make the body one", () => {
    expect(markdown(String.raw`{\rtf1{\listtext 1.\tab}\ls1\ilvl0 Dig{\footnote\pard\plain {\super\chftn} Dig in spring.\par}\par{\listtext 2.\tab}\ls1\ilvl0 Sow\par}`)).toBe(
      "1. Dig[^1]\n2. Sow\n\n[^1]: Dig in spring.\n",
    );
    expect(markdown(String.raw`{\rtf1\pard Body text{\footnote\pard\plain{\super\chftn} See:{\listtext 1.\tab}\ls1 first step}\par\pard Next\par}`)).toStartWith("Body text[^1]\n\nNext\n");
  });

  test("a footnote inside a link's result is not part of the link", () => {
    expect(markdown(String.raw`{\rtf1\pard See {\field{\*\fldinst HYPERLINK "https://a.example/"}{\fldrslt the page{\footnote\pard\plain{\super\chftn} Note text.}}} now\par}`)).toBe(
      "See [the page](https://a.example/)[^1] now\n\n[^1]: Note text.\n",
    );
  });

  test("odd placements LibreOffice reads as plain: a stray \\listtext, \\intbl before the stylesheet, \\row after the table, an unstarred \\pn", () => {
    expect(markdown(String.raw`{\rtf1\pard\listtext\field{\*\fldinst HYPERLINK "https://x.example/"}{\fldrslt Go}}\par}`)).toBe("[Go](https://x.example/)\n");
    expect(markdown(String.raw`{\rtf1{\intbl\stylesheet{\s1 heading 1;}}Text\par}`)).toBe("Text\n");
    expect(markdown(String.raw`{\rtf1\trowd\cellx1000\pard\intbl a\cell\row\pard b\row}`)).toBe("| a |\n| --- |\n\nb\n");
    expect(markdown(String.raw`{\rtf1{\pn\pnlvlblt{\pntxtb\'b7}}Item\par}`)).toBe("Item\n");
  });

  test("a style based on a heading style is a heading of its level", () => {
    expect(markdown(String.raw`{\rtf1{\stylesheet{\s1 heading 1;}{\s20\sbasedon1 My Title;}}\pard\s20 Title\par}`)).toBe("# Title\n");
  });
});

describe("ragged tables across a document", () => {
  test("the padding allowance is the document's, not each table's: 100 ragged tables do not give 300 million characters", () => {
    const table = `\\trowd\\pard\\intbl ${"\\cell ".repeat(1_000)}\\row ${"x\\cell\\row ".repeat(999)}\\pard after\\par `;
    const { markdown: md } = convertOffice("rtf", latin1(`{\\rtf1 ${table.repeat(100)}}`));
    // Each table alone is padded to a million cells; before, every one of them was: 301 million characters.
    expect(md.length).toBeLessThan(10_000_000);
  });
});
