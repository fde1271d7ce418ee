/**
 * ODT and RTF footnotes and endnotes (documents/office/odt.ts, rtf.ts, rtf-story.ts, note-labels.ts), given as a
 * DOCX's and a DOC's are: each reference a GFM footnote reference (`[^1]`, a linked superscript in HTML) labelled in
 * the order the text meets them (endnotes numbered on with the footnotes), the notes listed at the end. Before, an
 * ODT's `text:note` vanished (reference and text), an RTF's starred `{\*\footnote}` vanished (and a `\u` escape in
 * it ate the body's next character), and an unstarred `{\footnote}` (as Word writes it) ran into the body's text.
 *
 * garden-notes.odt and garden-notes.rtf were written by LibreOffice 7.4 from garden-notes.fodt, the source of
 * garden-notes.doc too (`soffice --headless --convert-to odt garden-notes.fodt`, `--convert-to rtf`): five footnotes
 * (one in a heading, one in a table cell, one with a custom `*` mark, one of two paragraphs, one with a bold word)
 * and two endnotes (one with a link). The ODT and the RTF give exactly the DOC's markdown.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { strToU8, zipSync } from "fflate";
import { DocumentCorruptError } from "../../src/documents/errors.ts";
import { MAX_NOTES } from "../../src/documents/office/note-labels.ts";
import { odtToBlocks } from "../../src/documents/office/odt.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";
import { rtfToBlocks } from "../../src/documents/office/rtf.ts";
import { TextBudget } from "../../src/documents/office/text-budget.ts";
import { GARDEN_BODY, GARDEN_NOTES } from "../fixtures/documents/garden-notes.ts";

const fixture = (name: string) => new Uint8Array(readFileSync(join(import.meta.dir, "..", "fixtures", "documents", name)));
const latin1 = (s: string) => new Uint8Array(Buffer.from(s, "latin1"));
const rtfMarkdown = (rtf: string) => convertOffice("rtf", latin1(rtf)).markdown;

const ODT_NS = 'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:xlink="http://www.w3.org/1999/xlink"';
const odt = (body: string) =>
  zipSync({
    mimetype: strToU8("application/vnd.oasis.opendocument.text"),
    "content.xml": strToU8(`<office:document-content ${ODT_NS}><office:body><office:text>${body}</office:text></office:body></office:document-content>`),
  });
const odtNote = (body: string, cls = "footnote") => `<text:note text:note-class="${cls}"><text:note-citation>1</text:note-citation><text:note-body>${body}</text:note-body></text:note>`;

/** What garden-notes.doc gives (doc-notes.test.ts): the ODT and the RTF give the same. */
const DOC_MARKDOWN = [...GARDEN_BODY, ...GARDEN_NOTES, ""].join("\n");

const NOTES_HTML =
  '<section class="footnotes"><ol><li id="fn-1">A summer crop.</li><li id="fn-2">Eight hours a day. More in winter.</li><li id="fn-3">Between 18 and 24 °C, see ';

describe("ODT notes", () => {
  test("footnotes and endnotes become [^n] in the order the text meets them, listed at the end: the DOC's markdown", () => {
    const converted = convertOffice("odt", fixture("garden-notes.odt"));
    expect(converted.markdown).toBe(DOC_MARKDOWN);
    expect(convertOffice("doc", fixture("garden-notes.doc")).markdown).toBe(DOC_MARKDOWN);
    expect(converted.metadata.title).toBe("Garden Notes");
    expect(converted.html).toContain('<h1>Growing Tomatoes<sup><a href="#fn-1" id="fnref-1">1</a></sup></h1>');
    expect(converted.html).toContain('<p>Tomatoes need light<sup><a href="#fn-2" id="fnref-2">2</a></sup> and warmth<sup><a href="#fn-3" id="fnref-3">3</a></sup>.</p>');
    expect(converted.html).toContain('<td>Roma<sup><a href="#fn-6" id="fnref-6">6</a></sup></td>');
    expect(converted.html).toContain(NOTES_HTML + '<a href="https://example.org/climate">the climate guide</a>.</li>');
  });

  test("a note's link stays a link, its bold word bold; the custom * mark (its citation) becomes the number", () => {
    const { blocks } = odtToBlocks(fixture("garden-notes.odt"));
    const notes = blocks.find((b) => b.kind === "notes");
    expect(notes?.kind === "notes" && notes.notes[2]).toEqual({ label: "3", content: [{ text: "Between 18 and 24 °C, see " }, { text: "the climate guide", href: "https://example.org/climate" }, { text: "." }] });
    expect(notes?.kind === "notes" && notes.notes[3]).toEqual({ label: "4", content: [{ text: "In the " }, { text: "morning", bold: true }, { text: ", never at noon." }] });
    expect(blocks[2]).toEqual({ kind: "paragraph", content: [{ text: "Water them daily" }, { text: "4", note: "4" }, { text: ", and mulch" }, { text: "5", note: "5" }, { text: " them." }] });
  });

  test("the notes' text counts against the document's text budget, after the body's (as a DOCX's)", () => {
    // The body takes 121 of 140 characters (a note reference counts its label); the notes share the other 19.
    const budget = new TextBudget(140);
    const { blocks } = odtToBlocks(fixture("garden-notes.odt"), budget);
    expect(budget.cut).toBe(true);
    const notes = blocks.find((b) => b.kind === "notes");
    expect(notes?.kind === "notes" && notes.notes.slice(0, 3)).toEqual([
      { label: "1", content: [{ text: "A summer crop." }] },
      { label: "2", content: [{ text: "Eight" }] },
      { label: "3", content: [] },
    ]);
  });

  test("a note's lists are its text; a note in a note or a comment in a note is not; a note without a body leaves nothing", () => {
    const body =
      `<text:p>One${odtNote("<text:list><text:list-item><text:p>Listed</text:p></text:list-item></text:list><text:p>then text.</text:p>")}` +
      ` two${odtNote(`<text:p>Outer${odtNote("<text:p>Inner</text:p>")} note<office:annotation><text:p>comment</text:p></office:annotation>.</text:p>`, "endnote")}` +
      ` three<text:note text:note-class="footnote"><text:note-citation>9</text:note-citation></text:note>.</text:p>`;
    expect(convertOffice("odt", odt(body)).markdown).toBe("One[^1] two[^2] three.\n\n[^1]: Listed then text.\n[^2]: Outer note.\n");
  });
});

describe("RTF notes", () => {
  test("LibreOffice's {\\*\\footnote} groups become [^n] where they stand, listed at the end; a custom * mark becomes the number", () => {
    const converted = convertOffice("rtf", fixture("garden-notes.rtf"));
    expect(converted.markdown).toBe(DOC_MARKDOWN);
    expect(converted.html).toContain('<p>Tomatoes need light<sup><a href="#fn-2" id="fnref-2">2</a></sup> and warmth<sup><a href="#fn-3" id="fnref-3">3</a></sup>.</p>');
    expect(converted.html).toContain(NOTES_HTML + '<a href="https://example.org/climate">the climate guide</a>.</li>');
  });

  test("Word's {\\footnote} groups (not starred) are notes, not body text; \\chftn and a custom mark leave the body", () => {
    const rtf =
      "{\\rtf1 Word text{\\cs15\\super \\chftn }{\\footnote \\pard\\plain {\\cs15\\super \\chftn } This is a footnote.\\par}, " +
      "more{\\super *}{\\footnote\\ftnalt {\\super *} Custom endnote.} end.\\par " +
      "Squared x{\\super 2}{\\super\\chftn}{\\footnote Not the 2.}\\par}";
    expect(rtfMarkdown(rtf)).toBe("Word text[^1], more[^2] end.\n\nSquared x2[^3]\n\n[^1]: This is a footnote.\n[^2]: Custom endnote.\n[^3]: Not the 2.\n");
  });

  test("superscript before a note that the note does not begin with is text, not a mark: it stays in the body", () => {
    expect(rtfMarkdown(String.raw`{\rtf1 E = mc{\super 2}{\footnote\pard\plain{\super\chftn} Note.}\par}`)).toBe("E = mc2[^1]\n\n[^1]: Note.\n");
    expect(rtfMarkdown(String.raw`{\rtf1 at 10{\super th}{\footnote\pard {\super\chftn } Note.}\par}`)).toBe("at 10th[^1]\n\n[^1]: Note.\n");
    expect(rtfMarkdown(String.raw`{\rtf1 {\super x{\footnote\plain note}y}\par}`)).toBe("x[^1]y\n\n[^1]: note\n");
    // A custom mark the note repeats is still its mark.
    expect(rtfMarkdown(String.raw`{\rtf1 Word text{\super *}{\footnote {\super *} Custom.}, more\par}`)).toBe("Word text[^1], more\n\n[^1]: Custom.\n");
  });

  test("the notes' text counts against the document's text budget as it is read", () => {
    const budget = new TextBudget(140);
    const { blocks } = rtfToBlocks(fixture("garden-notes.rtf"), budget);
    expect(budget.cut).toBe(true);
    expect(blocks.at(-1)).toEqual({
      kind: "notes",
      notes: [
        { label: "1", content: [{ text: "A summer crop." }] },
        { label: "2", content: [{ text: "Eight hours a day." }, { text: " " }, { text: "More in winter." }] },
        // The link's target (28 characters, printed with it) did not fit: the text stops before the link, as a DOCX's.
        { label: "3", content: [{ text: "Between 18 and 24 °C, see" }] },
      ],
    });
  });

  test("a note in a note is skipped; a note the file ends in is kept; a \\u escape in a skipped group leaves the body's text whole", () => {
    expect(rtfMarkdown("{\\rtf1 A{\\footnote outer {\\footnote inner} tail} B{\\*\\footnote x\\u176\\'b0y}C\\par}")).toBe("A[^1] B[^2]C\n\n[^1]: outer tail\n[^2]: x°y\n");
    expect(rtfMarkdown("{\\rtf1 A{\\*\\unknown \\u176\\'b0}C\\par}")).toBe("AC\n");
    expect(rtfMarkdown("{\\rtf1 Cut{\\footnote never closed")).toBe("Cut[^1]\n\n[^1]: never closed\n");
    // The note separators are destinations, never text.
    expect(rtfMarkdown("{\\rtf1 {\\ftnsep \\chftnsep\\par}{\\ftncn continued\\par}Body\\par}")).toBe("Body\n");
  });
});

describe("hostile notes (ODT and RTF)", () => {
  test(`at most ${MAX_NOTES.toLocaleString("en-US")} notes are listed; the rest leave nothing; bounded in time`, () => {
    const started = performance.now();
    const rtf = rtfToBlocks(latin1(`{\\rtf1 a${"{\\footnote x}".repeat(MAX_NOTES + 50_000)}\\par}`)).blocks;
    const odtBlocks = odtToBlocks(odt(`<text:p>a${odtNote("<text:p>n</text:p>").repeat(MAX_NOTES + 5)}</text:p>`)).blocks;
    for (const blocks of [rtf, odtBlocks]) {
      const notes = blocks.at(-1);
      expect(notes?.kind === "notes" && notes.notes.length).toBe(MAX_NOTES);
      const refs = blocks[0]?.kind === "paragraph" ? blocks[0].content.filter((c) => c.note !== undefined).length : 0;
      expect(refs).toBe(MAX_NOTES);
    }
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  test("deep nesting: a million nested note groups (RTF) is one note; a note body nested past the bound is a typed corrupt document", () => {
    expect(rtfMarkdown(`{\\rtf1 a${"{\\footnote b".repeat(1_000_000)}}`)).toBe("a[^1]\n\n[^1]: b\n");
    expect(rtfMarkdown(`{\\rtf1 a${"{".repeat(1_000_000)}\\footnote b`)).toBe("a[^1]\n\n[^1]: b\n");
    const nestedNotes = odt(`<text:p>a${"<text:note><text:note-body><text:p>x".repeat(50_000)}</text:p>`);
    expect(convertOffice("odt", nestedNotes).markdown).toBe("a[^1]\n\n[^1]: x\n");
    const deep = odt(`<text:p>a${odtNote(`${"<text:section>".repeat(50_000)}<text:p>x</text:p>`)}</text:p>`);
    expect(() => odtToBlocks(deep)).toThrow(DocumentCorruptError);
  });
});
