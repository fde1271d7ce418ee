/**
 * @module documents/office/doc-text-boxes
 * The text boxes of a Word 97–2003 document's body (MS-DOC 2.3.6 "Main Document Textboxes"): their text is a story
 * of its own, after the endnotes in the CP space (`ccpTxbx` long), each box a stretch of it that the PlcftxbxTxt
 * (fcPlcftxbxTxt) delimits, whose FTXBXS names the shape holding it (`lid`). The shape is anchored in the body at a
 * CP the PlcSpaMom (fcPlcSpaMom) gives with its FSPA (`spid`). A box's paragraphs are read after the paragraph that
 * anchors it, as a DOCX's are (a box's text was left out).
 *
 * Every count and CP is the file's word: PLCs that do not fit the table stream, CPs out of order or outside their
 * story, leave the boxes out (the body converts as before); a box whose shape is not anchored in the body (a
 * header's) or that is an unused reusable slot is not read.
 */
import { DocumentCorruptError } from "../errors.ts";
import type { DocText, Fib, PieceTable, StoryLengths } from "./doc-text.ts";

/** FibRgFcLcb97 indexes of the text boxes' PLC and the body's shapes' PLC. */
const TEXT_BOX_PAIR = 56;
const SHAPE_PAIR = 40;

/** Bytes of an FTXBXS and an FSPA (the data of each PLC entry). */
const FTXBXS_BYTES = 22;
const FSPA_BYTES = 26;

/** A text box: the body CP its shape is anchored at, and its text with each character's stream offset. */
export interface DocTextBox {
  anchorCp: number;
  text: DocText;
}

/** A PLC of `size`-byte data at `fc` of the table stream: its CPs and each entry's data offset; undefined when it does not fit. */
function plc(t: Uint8Array, fc: number, lcb: number, size: number): { cps: Int32Array; data: number } | undefined {
  if (lcb < 4 || (lcb - 4) % (4 + size) !== 0 || fc + lcb > t.length) return undefined;
  const n = (lcb - 4) / (4 + size);
  const v = new DataView(t.buffer, t.byteOffset + fc, lcb);
  const cps = new Int32Array(n + 1);
  for (let i = 0; i <= n; i++) cps[i] = v.getInt32(i * 4, true);
  return { cps, data: fc + (n + 1) * 4 };
}

/** The body's text boxes, in the order of their anchors; at most `allowanceChars` of their text read. */
export function readTextBoxes(fib: Fib & StoryLengths, pieces: PieceTable, allowanceChars: number): DocTextBox[] {
  const t = fib.table;
  const v = new DataView(t.buffer, t.byteOffset, t.byteLength);
  const length = fib.ccpTxbx ?? 0;
  const boxes = plc(t, fib.pair(TEXT_BOX_PAIR).fc, fib.pair(TEXT_BOX_PAIR).lcb, FTXBXS_BYTES);
  const shapes = plc(t, fib.pair(SHAPE_PAIR).fc, fib.pair(SHAPE_PAIR).lcb, FSPA_BYTES);
  if (length <= 0 || !boxes || !shapes) return [];
  // Where each shape (by its spid) is anchored in the body.
  const anchors = new Map<number, number>();
  for (let i = 0; i + 1 < shapes.cps.length; i++) {
    const cp = shapes.cps[i]!;
    if (cp >= 0 && cp < fib.ccpText) anchors.set(v.getInt32(shapes.data + i * FSPA_BYTES, true), cp);
  }
  const storyCp = fib.ccpText + fib.ccpFtn + fib.ccpHdd + fib.ccpAtn + fib.ccpEdn;
  for (let i = 0; i + 1 < boxes.cps.length; i++) {
    if (boxes.cps[i]! < 0 || boxes.cps[i + 1]! < boxes.cps[i]! || boxes.cps[i + 1]! > length) return [];
  }
  // The story once (each read walks the piece table: one per box was boxes × pieces), within the allowance.
  let story: DocText;
  try {
    story = pieces.read(storyCp, storyCp + Math.min(length, allowanceChars), true);
  } catch (err) {
    if (err instanceof DocumentCorruptError) return [];
    throw err;
  }
  const out: DocTextBox[] = [];
  for (let i = 0; i + 1 < boxes.cps.length; i++) {
    const from = Math.min(boxes.cps[i]!, story.text.length);
    const to = Math.min(boxes.cps[i + 1]!, story.text.length);
    const ftxbxs = boxes.data + i * FTXBXS_BYTES;
    const reusable = v.getUint16(ftxbxs + 8, true) !== 0;
    const anchorCp = anchors.get(v.getInt32(ftxbxs + 14, true));
    if (reusable || anchorCp === undefined || to === from) continue;
    out.push({ anchorCp, text: { text: story.text.slice(from, to), offsets: story.offsets.subarray(from, to) } });
  }
  return out.sort((a, b) => a.anchorCp - b.anchorCp);
}
