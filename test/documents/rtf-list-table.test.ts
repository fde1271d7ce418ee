/**
 * An RTF's list table (documents/office/rtf-lists.ts): a list paragraph without a `{\listtext}` marker is numbered
 * from its list's levels (`\levelnfc`, `\levelstartat`) and overrides (`\lfolevel\listoverridestartat`), as Word
 * counts: per list, a paragraph between items not restarting it, a level starting again under each parent. Before,
 * the tables were skipped and such a paragraph was a bullet whatever its list, its start value lost. A marker, where
 * there is one, still says the number, and the count goes on from it.
 */
import { describe, expect, test } from "bun:test";
import { convertOffice } from "../../src/documents/office/readers.ts";

const convert = (rtf: string) => convertOffice("rtf", new TextEncoder().encode(rtf));

/**
 * Lists as Word writes them: list 10 digits from 5 with a lettered second level, list 20 bullets; overrides 1 and 2
 * name them, override 3 restarts list 10 at 1.
 */
const TABLES = String.raw`{\*\listtable` +
  String.raw`{\list\listtemplateid1\listhybrid{\listlevel\levelnfc0\levelnfcn0\levelstartat5{\leveltext\'02\'00.;}{\levelnumbers\'01;}}` +
  String.raw`{\listlevel\levelnfc4\levelnfcn4\levelstartat1{\leveltext\'02\'01.;}{\levelnumbers\'01;}}{\listname Steps;}\listid10}` +
  String.raw`{\list\listtemplateid2{\listlevel\levelnfc23\levelstartat1{\leveltext\'01\u8226 ?;}{\levelnumbers;}}\listid20}}` +
  String.raw`{\*\listoverridetable{\listoverride\listid10\listoverridecount0\ls1}{\listoverride\listid20\listoverridecount0\ls2}` +
  String.raw`{\listoverride\listid10\listoverridecount1{\lfolevel\listoverridestartat\levelstartat1}\ls3}}`;

describe("RTF list paragraphs without {\\listtext}", () => {
  test("are numbered by the list table: a start value, a lettered level, a count going on, bullets, a restart", () => {
    const body = String.raw`\pard\ls1\ilvl0 Five\par\pard\ls1\ilvl1 sub a\par\pard\ls1\ilvl1 sub b\par\pard\ls1\ilvl0 Six\par\pard\ls1\ilvl1 again a\par` +
      String.raw`\pard Between.\par\pard\ls1\ilvl0 Seven\par\pard\ls2\ilvl0 bullet\par\pard\ls3\ilvl0 restarted one\par\pard\ls3\ilvl0 restarted two\par`;
    const doc = convert(`{\\rtf1\\ansi${TABLES}${body}}`);
    expect(doc.markdown).toBe("5. Five\n   - a. sub a\n   - b. sub b\n6. Six\n   - a. again a\n\nBetween.\n\n7. Seven\n\n- bullet\n\n1. restarted one\n2. restarted two\n");
    expect(doc.html).toContain('<ol start="5"><li>Five<ol type="a"><li>sub a</li><li>sub b</li></ol></li><li>Six<ol type="a"><li>again a</li></ol></li></ol>');
    expect(doc.html).toContain('<ol start="7"><li>Seven</li></ol>\n<ul><li>bullet</li></ul>\n<ol><li>restarted one</li><li>restarted two</li></ol>');
    // The tables' own text (a list's name, a level's text) is never the document's.
    expect(doc.markdown).not.toContain("Steps");
  });

  test("a marker where there is one says the number, and the count goes on from it", () => {
    const body = String.raw`\pard\ls1\ilvl0{\listtext 9.\tab}Nine\par\pard\ls1\ilvl0 Ten\par`;
    expect(convert(`{\\rtf1${TABLES}${body}}`).markdown).toBe("9. Nine\n10. Ten\n");
  });

  test("LibreOffice's tables (\\levelnfc 255 for its outline, the list names in \\listtable): numbered, nothing leaks", () => {
    const tables = String.raw`{\*\listtable{\list\listtemplateid1{\listlevel\levelnfc255\leveljc0\levelstartat1\levelfollow2{\leveltext \'00;}{\levelnumbers;}\fi0\li0}\listid1}` +
      String.raw`{\list\listtemplateid2{\listlevel\levelnfc2\leveljc0\levelstartat3\levelfollow0{\leveltext \'02\'00.;}{\levelnumbers\'01;}\fi-360\li720}\listid2}}` +
      String.raw`{\*\listoverridetable{\listoverride\listid1\listoverridecount0\ls1}{\listoverride\listid2\listoverridecount0\ls2}}`;
    const body = String.raw`\pard\plain \s0\ilvl0\ls2 \li720\fi-360{\loch Third}\par \pard\plain \s0\ilvl0\ls2 {\loch Fourth}\par \pard\plain {\loch After}\par`;
    const doc = convert(`{\\rtf1\\ansi${tables}${body}}`);
    expect(doc.markdown).toBe("- iii. Third\n- iv. Fourth\n\nAfter\n");
    expect(doc.html).toContain('<ol start="3" type="i"><li>Third</li><li>Fourth</li></ol>');
  });

  test("a list table of 20,000 lists and 20,000 list paragraphs reads in linear time; lists past 10,000 are not read", () => {
    /** An RTF of lists `from`…`to` (each starting at its own number) and one paragraph of each. */
    const rtf = (from: number, to: number) => {
      let lists = "";
      let overrides = "";
      let body = "";
      for (let i = from; i <= to; i++) {
        lists += String.raw`{\list{\listlevel\levelnfc0\levelstartat${i}}\listid${i}}`;
        overrides += String.raw`{\listoverride\listid${i}\ls${i}}`;
        body += String.raw`\pard\ls${i}\ilvl0 x\par`;
      }
      return String.raw`{\rtf1{\*\listtable${lists}}{\*\listoverridetable${overrides}}${body}}`;
    };
    const whole = rtf(1, 20_000);
    const doc = convert(whole);
    // Each list starts at its own value; one past the bound is a bullet, as every such list was before.
    expect(doc.html.includes('<ol start="10000"><li>x</li></ol>')).toBe(true);
    expect(doc.html.includes('<ol start="10001">')).toBe(false);
    expect(doc.html.endsWith("<ul><li>x</li></ul></body></html>")).toBe(true);
    // Linear: 8,000 lists in one document take about as long as 16 documents of 500 (a ratio, not a time, so a
    // loaded machine does not fail it; quadratic, the one would take about 16 times as long). Best of two each.
    const one = rtf(1, 8_000);
    const parts = Array.from({ length: 16 }, (_, p) => rtf(p * 500 + 1, (p + 1) * 500));
    const time = (f: () => unknown) => {
      const started = performance.now();
      f();
      return performance.now() - started;
    };
    const readParts = () => parts.forEach(convert);
    readParts();
    const base = Math.min(time(readParts), time(readParts));
    const best = Math.min(time(() => convert(one)), time(() => convert(one)));
    expect(best / base).toBeLessThan(4);
  }, 60_000);
});
