/**
 * DOC footnotes and endnotes (documents/office/doc-notes.ts, note-labels.ts): as a DOCX's, each reference becomes a
 * GFM footnote reference (`[^1]`, a linked superscript in HTML) labelled in the order the text meets them (endnotes
 * numbered on with the footnotes), and the notes are listed at the end. The fixture garden-notes.doc was written by
 * LibreOffice 7.4 from garden-notes.fodt beside it (`soffice --headless --convert-to doc:"MS Word 97"
 * garden-notes.fodt`): five footnotes (one in a heading, one in a table cell, one with a custom `*` mark, one of two
 * paragraphs, one with a bold word) and two endnotes (one with a link). Note PLCs that lie (sizes that do not match,
 * CPs out of range or order, a PLC outside its stream, a story length that shifts the stories after it, a story
 * claiming two billion characters) leave their notes out, at once; the body still converts.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DocNotes } from "../../src/documents/office/doc-notes.ts";
import { bodyText, PieceTable, type Fib, type StoryLengths } from "../../src/documents/office/doc-text.ts";
import { docToBlocks } from "../../src/documents/office/doc.ts";
import { convertOffice } from "../../src/documents/office/readers.ts";
import { TextBudget } from "../../src/documents/office/text-budget.ts";
import { GARDEN_BODY, GARDEN_NOTES } from "../fixtures/documents/garden-notes.ts";

const fixture = (name: string) => new Uint8Array(readFileSync(join(import.meta.dir, "..", "fixtures", "documents", name)));
const doc = fixture("garden-notes.doc");

const BODY = GARDEN_BODY;
const NOTES = GARDEN_NOTES;
const FOOTNOTE_TEXTS = ["A summer crop.", "Eight hours a day. More in winter.", "In the **morning**, never at noon.", "Straw works best.", "A paste tomato."];
const ALL_TEXTS = NOTES.map((n) => n.replace(/^\[\^\d+\]: /, ""));
const ENDNOTE_TEXTS = ["Between 18 and 24 °C, see [the climate guide](https://example.org/climate).", "Or yellow, for yellow varieties."];

/** The body's markdown with its note references and the notes list left out: what a document without notes gives. */
const bodyOnly = (md: string) => md.replace(/\[\^\d+\]: .*\n?/g, "").replace(/\[\^\d+\]/g, "").trimEnd();
const BODY_ONLY = bodyOnly(BODY.join("\n"));

/** The WordDocument stream's FIB in the file (its wIdent; the fixture has no earlier 0xA5EC). */
const fibAt = Buffer.from(doc).indexOf(Buffer.from([0xec, 0xa5]));
/** A copy of the fixture with the FibRgFcLcb97 pair `index` set to `fc`/`lcb`, or a FibRgLw97 count at `0x40 + 4 * lw` set. */
function withPair(index: number, fc: number, lcb: number, bytes: Uint8Array = doc.slice()): Uint8Array {
  const v = new DataView(bytes.buffer, bytes.byteOffset + fibAt);
  v.setUint32(0x9a + index * 8, fc, true);
  v.setUint32(0x9a + index * 8 + 4, lcb, true);
  return bytes;
}
function pairOf(index: number): [number, number] {
  const v = new DataView(doc.buffer, doc.byteOffset + fibAt);
  return [v.getUint32(0x9a + index * 8, true), v.getUint32(0x9a + index * 8 + 4, true)];
}
function withCount(offset: number, value: number): Uint8Array {
  const bytes = doc.slice();
  new DataView(bytes.buffer, bytes.byteOffset + fibAt).setInt32(offset, value, true);
  return bytes;
}
/** A copy with the bytes `from` (found once in the file: a PLC within one sector) replaced by `to`. */
function withBytes(from: number[], to: number[]): Uint8Array {
  const buf = Buffer.from(doc);
  const at = buf.indexOf(Buffer.from(from));
  expect(at).toBeGreaterThan(0);
  expect(buf.indexOf(Buffer.from(from), at + 1)).toBe(-1);
  const bytes = doc.slice();
  bytes.set(to, at);
  return bytes;
}
const i32s = (...ns: number[]) => [...Buffer.from(new Int32Array(ns).buffer)];

describe("DOC notes", () => {
  test("footnotes and endnotes become [^n] in the order the text meets them, and are listed at the end (markdown and html)", () => {
    const converted = convertOffice("doc", doc);
    expect(converted.markdown).toBe([...BODY, ...NOTES, ""].join("\n"));
    expect(converted.html).toContain('<p>Tomatoes need light<sup><a href="#fn-2" id="fnref-2">2</a></sup> and warmth<sup><a href="#fn-3" id="fnref-3">3</a></sup>.</p>');
    expect(converted.html).toContain('<td>Roma<sup><a href="#fn-6" id="fnref-6">6</a></sup></td>');
    expect(converted.html).toContain(
      '<section class="footnotes"><ol><li id="fn-1">A summer crop.</li><li id="fn-2">Eight hours a day. More in winter.</li>' +
        '<li id="fn-3">Between 18 and 24 °C, see <a href="https://example.org/climate">the climate guide</a>.</li>',
    );
  });

  test("a note's link stays a link, its bold word bold; a custom * mark becomes the number", () => {
    const { blocks } = docToBlocks(doc);
    const notes = blocks.find((b) => b.kind === "notes");
    expect(notes?.kind === "notes" && notes.notes[2]).toEqual({ label: "3", content: [{ text: "Between 18 and 24 °C, see " }, { text: "the climate guide", href: "https://example.org/climate" }, { text: "." }] });
    expect(notes?.kind === "notes" && notes.notes[3]).toEqual({ label: "4", content: [{ text: "In the " }, { text: "morning", bold: true }, { text: ", never at noon." }] });
    expect(blocks[2]).toEqual({ kind: "paragraph", content: [{ text: "Water them daily" }, { text: "4", note: "4" }, { text: ", and mulch" }, { text: "5", note: "5" }, { text: " them." }] });
    expect(convertOffice("doc", doc).metadata.title).toBe("Garden Notes");
  });

  test("the notes' text counts against the document's text budget, after the body's", () => {
    // The body takes 122 of 140 characters (a note reference counts its label); the notes share the other 18.
    const budget = new TextBudget(140);
    const { blocks } = docToBlocks(doc, budget);
    expect(budget.cut).toBe(true);
    const notes = blocks.find((b) => b.kind === "notes");
    expect(notes?.kind === "notes" && notes.notes.slice(0, 3)).toEqual([
      { label: "1", content: [{ text: "A summer crop." }] },
      { label: "2", content: [{ text: "Eig" }] },
      { label: "3", content: [] },
    ]);
  });

  test("note PLCs that lie leave their notes out, at once; the body still converts; a document without notes has none", () => {
    const [refFc, refLcb] = pairOf(2);
    const [txtFc, txtLcb] = pairOf(3);
    const [endRefFc] = pairOf(46);
    // The intact file has all seven (the baseline the damaged copies are measured against).
    expect(convertOffice("doc", doc).markdown).toBe([...BODY, ...NOTES, ""].join("\n"));
    const cases: [string, Uint8Array, string[]][] = [
      ["footnote refs one entry longer than the file has", withPair(2, refFc, refLcb + 6), ENDNOTE_TEXTS],
      ["footnote refs of a size no PLC has", withPair(2, refFc, refLcb - 1), ENDNOTE_TEXTS],
      ["footnote refs past the table stream", withPair(2, 0xfffffff0, refLcb), ENDNOTE_TEXTS],
      ["footnote refs of 4 GB", withPair(2, refFc, 0xfffffffa), ENDNOTE_TEXTS],
      ["footnote refs read from the text PLC (CPs not on reference marks)", withPair(2, txtFc, txtLcb), ENDNOTE_TEXTS],
      ["footnote text PLC shorter than the references", withPair(3, txtFc, 8), ENDNOTE_TEXTS],
      ["endnote refs read from the footnote text PLC", withPair(46, txtFc, txtLcb), FOOTNOTE_TEXTS],
      ["endnote refs one byte into their PLC", withPair(46, endRefFc + 1, 16), FOOTNOTE_TEXTS],
      ["a footnote reference CP past the body", withBytes(i32s(16, 37, 68), i32s(16, 37, 5000)), ENDNOTE_TEXTS],
      ["footnote reference CPs out of order", withBytes(i32s(16, 37, 68), i32s(16, 68, 37)), ENDNOTE_TEXTS],
      ["a negative footnote reference CP", withBytes(i32s(16, 37, 68), i32s(-1, 37, 68)), ENDNOTE_TEXTS],
      ["endnote text CPs past the endnote story", withBytes(i32s(0, 91, 126, 127), i32s(0, 91, 999_999, 1_000_000)), FOOTNOTE_TEXTS],
      ["a footnote story shorter than its notes", withCount(0x50, 60), []],
      ["a footnote story longer than its notes (the endnotes shift)", withCount(0x50, 140), FOOTNOTE_TEXTS],
      ["a footnote story of two billion characters (the endnotes shift past the text)", withCount(0x50, 2_000_000_000), FOOTNOTE_TEXTS],
      ["an endnote story of two billion characters (its notes end where their PLC says)", withCount(0x60, 2_000_000_000), ALL_TEXTS],
      ["no note PLCs at all", withPair(46, 0, 0, withPair(2, 0, 0)), []],
    ];
    for (const [name, bytes, kept] of cases) {
      const started = performance.now();
      const md = convertOffice("doc", bytes).markdown; // not even a 422: the notes are left out, the body converts
      expect(performance.now() - started).toBeLessThan(500);
      // Without its footnotes, the custom mark `*` stands as text again, as it did before notes were read.
      const body = kept.includes(FOOTNOTE_TEXTS[0]!) ? BODY_ONLY : BODY_ONLY.replace("mulch them", "mulch\\* them");
      expect({ name, body: bodyOnly(md) }).toEqual({ name, body });
      const listed = [...md.matchAll(/^\[\^\d+\]: (.*)$/gm)].map((m) => m[1]);
      expect({ name, listed }).toEqual({ name, listed: kept });
    }
    // A document without notes: no reference, no notes block (its expectations in doc.test.ts are unchanged).
    expect(convertOffice("doc", fixture("handbook.doc")).markdown).not.toContain("[^");
  });
});

describe("crafted note PLCs", () => {
  /** A body "A*b\r" (a reference at CP 1) and one footnote "\x02 Note.\r" plus the story's closing mark, 8-bit. */
  function crafted(edit: { refCps?: number[]; frd?: number; txtCps?: number[]; ccpFtn?: number; pieceEnd?: number } = {}) {
    const body = "A\x02b\r";
    const story = "\x02 Note.\r\r";
    const text = body + story;
    const word = new Uint8Array(1024);
    const at = 600;
    for (let i = 0; i < text.length; i++) word[at + i] = text.charCodeAt(i);
    const table = new Uint8Array(128);
    const tv = new DataView(table.buffer);
    table[0] = 2; // the CLX: one piece over the whole text, compressed, at `at`
    tv.setUint32(1, 16, true);
    tv.setUint32(9, edit.pieceEnd ?? text.length, true);
    tv.setUint32(13 + 2, (at * 2) | 0x40000000, true);
    const refCps = edit.refCps ?? [1, 99];
    refCps.forEach((cp, i) => tv.setInt32(32 + i * 4, cp, true));
    tv.setInt16(32 + refCps.length * 4, edit.frd ?? 1, true);
    const txtCps = edit.txtCps ?? [0, story.length - 1, story.length];
    txtCps.forEach((cp, i) => tv.setInt32(64 + i * 4, cp, true));
    const pairs: Record<number, [number, number]> = { 33: [0, 21], 2: [32, refCps.length * 4 + 2], 3: [64, txtCps.length * 4] };
    const fib: Fib & StoryLengths = {
      ccpText: body.length,
      ccpFtn: edit.ccpFtn ?? story.length,
      ccpHdd: 0,
      ccpAtn: 0,
      ccpEdn: 0,
      table,
      pair: (i) => (pairs[i] ? { fc: pairs[i]![0], lcb: pairs[i]![1] } : { fc: 0, lcb: 0 }),
    };
    const pieces = new PieceTable(word, fib);
    const notes = DocNotes.read(fib, pieces, bodyText(word, fib, pieces).text);
    return { label: notes.at(1), block: notes.block((note) => [[{ text: note.trim() }]]) };
  }

  test("a well-formed footnote is found at its reference; lying CPs, marks and lengths give none, at once", () => {
    expect(crafted()).toEqual({ label: "1", block: { kind: "notes", notes: [{ label: "1", content: [{ text: "Note." }] }] } });
    const started = performance.now();
    for (const lie of [
      { refCps: [2, 99] }, // an auto-numbered reference not on 0x02
      { refCps: [4, 99] }, // past the body
      { refCps: [-1, 99] },
      { txtCps: [0, 2_000_000_000, 2_000_000_001], ccpFtn: 2_000_000_001 }, // two billion characters of note
      { txtCps: [0, 5, 9] }, // the note does not end with its paragraph mark
      { txtCps: [3, 3, 9] }, // an empty range
      { txtCps: [-4, 7, 8] },
      { ccpFtn: 3 }, // a story shorter than its notes
      { pieceEnd: 4 }, // pieces that stop at the body
    ]) {
      expect({ lie, ...crafted(lie) }).toEqual({ lie, label: undefined, block: undefined });
    }
    expect(performance.now() - started).toBeLessThan(200);
  });
});
