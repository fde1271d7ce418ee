/**
 * @module documents/office/doc-notes
 * Footnotes and endnotes of a Word 97–2003 document (MS-DOC 2.3.2, 2.3.5), labelled and listed as a DOCX's are
 * (note-labels.ts): each reference in the body becomes `[^n]`, and the notes are listed at the document's end.
 *
 * A story's notes are two PLCs of the table stream: the reference PLC (fcPlcffndRef, fcPlcfendRef) holds the CP of
 * each reference in the body and a 2-byte FRD (non-zero: auto-numbered, the body's character there is 0x02; zero:
 * a custom mark such as `*`); the text PLC (fcPlcffndTxt, fcPlcfendTxt) holds where each note's text begins in its
 * story, then where the last one ends (`ccpFtn - 1`), then one CP to ignore (MS-DOC 2.8.17, 2.8.19, 2.8.20). The
 * footnote story starts at CP `ccpText`, the endnote story after the headers and comments. A note's text starts with
 * its own mark (0x02, or the custom mark) and ends with a paragraph mark.
 *
 * Every count and CP is the file's word: a PLC that does not fit the table stream, whose sizes do not match, whose
 * CPs are out of order or outside the body or the story, whose auto-numbered references do not land on 0x02 in the
 * body, or whose notes do not each end with a paragraph mark (a story length that lies shifts the stories after it)
 * lies about the text, and its story's notes are left out: the body still converts, its reference marks leaving
 * nothing, as before notes were read. A piece table that cannot give a note's text leaves the notes out too.
 * The notes' characters are read within what the body left of {@link MAX_DOC_CHARS}.
 */
import { DocumentCorruptError } from "../errors.ts";
import type { Block, Inline } from "../layout/model.ts";
import { MAX_DOC_CHARS, type DocText, type Fib, type PieceTable, type StoryLengths } from "./doc-text.ts";
import { MAX_NOTES, NoteLabels } from "./note-labels.ts";

/** FibRgFcLcb97 pair indexes of the reference and text PLCs of footnotes and endnotes. */
const FOOTNOTE_PLCS = { ref: 2, txt: 3 } as const;
const ENDNOTE_PLCS = { ref: 46, txt: 47 } as const;

/** The body's character at an auto-numbered reference (and at the start of each note's text). */
const AUTO_MARK = "\x02";
const PARAGRAPH_END = "\r";

/** Where the body looks up note references, in CP order as it walks its paragraphs (doc.ts `inlineOf`). */
export interface NoteRefs {
  /** The label of the note referred to at body CP `cp`, or undefined; CPs are asked in increasing order. */
  at(cp: number): string | undefined;
}

/**
 * One reference in the body: its CP, the note's key (`footnote:0`) and the note's text (its own mark left out), with
 * each character's stream offset (its formatting is looked up by it: doc-characters.ts).
 */
interface NoteRef {
  cp: number;
  key: string;
  note: DocText;
}

/** Which PLCs hold a story's notes, and where the story lies in the CP space. */
interface StorySpec {
  kind: "footnote" | "endnote";
  plcs: { ref: number; txt: number };
  /** The story's first CP and its length in CPs (FibRgLw97). */
  startCp: number;
  lengthCps: number;
}

/** The notes of a document: the references the body walk turns into labels, and the notes block at the end. */
export class DocNotes implements NoteRefs {
  private readonly labels = new NoteLabels<DocText>();
  private next = 0;

  private constructor(private readonly refs: NoteRef[]) {}

  /** Reads the footnotes and endnotes `fib` declares, checked against `body` (the main text as read). */
  static read(fib: Fib & StoryLengths, pieces: PieceTable, body: string): DocNotes {
    let allowanceChars = Math.max(0, MAX_DOC_CHARS - body.length);
    const stories: StorySpec[] = [
      { kind: "footnote", plcs: FOOTNOTE_PLCS, startCp: fib.ccpText, lengthCps: fib.ccpFtn },
      { kind: "endnote", plcs: ENDNOTE_PLCS, startCp: fib.ccpText + fib.ccpFtn + fib.ccpHdd + fib.ccpAtn, lengthCps: fib.ccpEdn },
    ];
    const refs: NoteRef[] = [];
    for (const story of stories) {
      const found = readStory(fib, pieces, body, story, allowanceChars);
      for (const ref of found) {
        refs.push(ref);
        allowanceChars -= ref.note.text.length;
      }
    }
    // Both stories' references in body order (a CP both PLCs claim is the footnote's: the walk takes the first).
    refs.sort((a, b) => a.cp - b.cp);
    return new DocNotes(refs);
  }

  at(cp: number): string | undefined {
    const refs = this.refs;
    while (this.next < refs.length && refs[this.next]!.cp < cp) this.next++;
    const ref = refs[this.next];
    if (ref === undefined || ref.cp !== cp) return undefined;
    this.next++;
    return this.labels.label(ref.key, ref.note);
  }

  /**
   * The notes block listing the notes the body referred to; `paragraphs` reads a note's text, given each character's
   * stream offset (doc.ts).
   */
  block(paragraphs: (text: string, offsets: Uint32Array) => Iterable<Inline[]>): Block | undefined {
    return this.labels.block((note) => paragraphs(note.text, note.offsets));
  }
}

/** A PLC's CPs (`count` of them) at `fc` of the table stream, as signed integers (a negative one is a lie). */
function cpsAt(table: Uint8Array, fc: number, count: number): Int32Array {
  const v = new DataView(table.buffer, table.byteOffset + fc, count * 4);
  const out = new Int32Array(count);
  for (let i = 0; i < count; i++) out[i] = v.getInt32(i * 4, true);
  return out;
}

/** The references of one story and their notes' text; none when its PLCs or lengths do not agree with the file. */
function readStory(fib: Fib, pieces: PieceTable, body: string, story: StorySpec, allowanceChars: number): NoteRef[] {
  const t = fib.table;
  const ref = fib.pair(story.plcs.ref);
  const txt = fib.pair(story.plcs.txt);
  // n references: n + 1 CPs and n FRDs of 2 bytes. The text PLC: a start per note, the last one's end, one ignored.
  if (ref.lcb === 0 || (ref.lcb - 4) % 6 !== 0 || ref.fc + ref.lcb > t.length) return [];
  const n = (ref.lcb - 4) / 6;
  if (n === 0 || txt.lcb % 4 !== 0 || txt.lcb / 4 < n + 1 || txt.fc + txt.lcb > t.length) return [];
  if (story.startCp < 0 || story.lengthCps <= 0 || fib.ccpText <= 0) return [];
  const refCps = cpsAt(t, ref.fc, n);
  const frd = new DataView(t.buffer, t.byteOffset + ref.fc + (n + 1) * 4, n * 2);
  const txtCps = cpsAt(t, txt.fc, n + 1);
  for (let i = 0; i < n; i++) {
    const cp = refCps[i]!;
    if (cp < 0 || cp >= fib.ccpText || (i > 0 && cp <= refCps[i - 1]!)) return [];
    // An auto-numbered reference stands on 0x02 (a body cut at MAX_DOC_CHARS is not read that far: not checked).
    if (frd.getInt16(i * 2, true) !== 0 && cp < body.length && body[cp] !== AUTO_MARK) return [];
    if (txtCps[i]! < 0 || txtCps[i + 1]! <= txtCps[i]!) return [];
  }
  if (txtCps[n]! > story.lengthCps) return [];

  // Only the first MAX_NOTES references can be labelled (in body order, which is theirs): the others' notes are not
  // read (4M one-character notes built 4M references and took 1.46 GB before any was dropped).
  const kept = Math.min(n, MAX_NOTES);
  // The story's text once, from the first note's start to the last kept one's end, within what the body left.
  const firstCp = txtCps[0]!;
  const wantedChars = Math.min(txtCps[kept]! - firstCp, allowanceChars);
  let text: string;
  let offsets: Uint32Array;
  try {
    ({ text, offsets } = pieces.read(story.startCp + firstCp, story.startCp + firstCp + wantedChars, true));
  } catch (err) {
    if (err instanceof DocumentCorruptError) return [];
    throw err;
  }
  // Pieces that do not cover the story, or a note not ending in its paragraph mark (MS-DOC: each MUST), say the
  // CPs do not match the text (a story length that lies shifts the next story): not the notes the body refers to.
  if (text.length < wantedChars) return [];
  const out: NoteRef[] = [];
  for (let i = 0; i < kept; i++) {
    const endCp = txtCps[i + 1]! - firstCp;
    if (endCp <= wantedChars && text[endCp - 1] !== PARAGRAPH_END) return [];
    let from = txtCps[i]! - firstCp;
    const to = Math.min(endCp, text.length);
    // The note's own mark: 0x02, or the custom mark the body shows at its reference (left out, as the reference is).
    const custom = frd.getInt16(i * 2, true) === 0;
    if (text[from] === AUTO_MARK || (custom && from < to && text[from] === body[refCps[i]!])) from++;
    out.push({ cp: refCps[i]!, key: `${story.kind}:${i}`, note: { text: text.slice(from, to), offsets: offsets.subarray(from, to) } });
  }
  return out;
}
