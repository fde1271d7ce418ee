/**
 * @module documents/office/doc-text
 * The main text of a Word 97–2003 document (`.doc`, MS-DOC): the File Information Block at the start of the
 * `WordDocument` stream says which table stream holds the piece table (CLX) and how many characters the body has
 * (`ccpText`); the piece table maps character positions to stretches of the WordDocument stream, each either
 * UTF-16 or "compressed" 8-bit (code page 1252). Each character comes back with the stream offset it was read
 * from: paragraph properties are keyed by those offsets (doc-paragraphs.ts). The stories after the body (footnotes,
 * endnotes: doc-notes.ts) are read through the same piece table, at the CPs that follow `ccpText`.
 */
import { DocumentCorruptError, DocumentEncryptedError } from "../errors.ts";
import { UnsupportedFileError } from "../../errors.ts";
import type { CompoundFile } from "./cfb.ts";
import { MAX_DOCUMENT_TEXT_CHARS } from "../types.ts";

/** The FIB fields the reader uses. */
export interface Fib {
  /** Characters of the main document (before footnotes, headers, comments…). */
  ccpText: number;
  table: Uint8Array;
  /** Offset and size in the table stream of a FibRgFcLcb97 pair by its index (33: CLX, 13: PAPX bin table, 1: styles). */
  pair(index: number): { fc: number; lcb: number };
}

/**
 * The lengths of the stories after the body (FibRgLw97), in their order in the CP space: the footnotes start at
 * `ccpText`, then come the headers, the comments and the endnotes (MS-DOC 2.3: each begins right after the one
 * before; the macro story's length between headers and comments, `reserved3`, MUST be 0 and is ignored).
 */
export interface StoryLengths {
  ccpFtn: number;
  ccpHdd: number;
  ccpAtn: number;
  ccpEdn: number;
  /** The main document's text boxes (doc-text-boxes.ts), after the endnotes; none when not given. */
  ccpTxbx?: number;
}

/** A story's text (the body's, a footnote's): its characters and, per character, the WordDocument stream offset it came from. */
export interface DocText {
  text: string;
  offsets: Uint32Array;
}

/** Most characters read from a body (a 5,000-page book holds about 10 million): a piece table declaring more is cut there. */
export const MAX_DOC_CHARS = MAX_DOCUMENT_TEXT_CHARS;

/** Code page 1252's characters for 0x80–0x9F, where it differs from Latin-1 (the rest maps to itself). */
const CP1252 = "€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ";

const corrupt = (why: string) => new DocumentCorruptError("DOC", why);

/** Reads the FIB of `word` (the WordDocument stream) and opens its table stream. */
export function readFib(word: Uint8Array, file: CompoundFile): Fib & StoryLengths {
  const v = new DataView(word.buffer, word.byteOffset, word.byteLength);
  // Word 6.0 and 95 write their own FIB (wIdent 0xA5DC, or a Word 97 one with an nFib below 106, as Apache POI reads
  // it) and keep their tables in this stream: another format, as an Excel 5.0/95 workbook is for XLS, not a damaged
  // Word 97 file.
  if (word.length >= 4 && (v.getUint16(0, true) === 0xa5dc || v.getUint16(2, true) < 106)) {
    throw new UnsupportedFileError("application/msword (a Word 6.0/95 document; save it as .doc 97–2003 or .docx)");
  }
  if (word.length < 0x1aa) throw corrupt("the WordDocument stream is too short for its header");
  if (v.getUint16(0, true) !== 0xa5ec) throw corrupt("the WordDocument stream has no Word 97 header");
  const flags = v.getUint16(0x0a, true);
  if (flags & 0x0100) throw new DocumentEncryptedError("DOC");
  const table = file.stream(flags & 0x0200 ? "1Table" : "0Table");
  if (!table) throw corrupt("the table stream is missing");
  const pairs = v.getUint16(0x98, true);
  return {
    ccpText: v.getInt32(0x4c, true),
    ccpFtn: v.getInt32(0x50, true),
    ccpHdd: v.getInt32(0x54, true),
    ccpAtn: v.getInt32(0x5c, true),
    ccpEdn: v.getInt32(0x60, true),
    ccpTxbx: v.getInt32(0x64, true),
    table,
    pair(index) {
      const at = 0x9a + index * 8;
      if (index >= pairs || at + 8 > word.length) return { fc: 0, lcb: 0 };
      return { fc: v.getUint32(at, true), lcb: v.getUint32(at + 4, true) };
    },
  };
}

/**
 * The piece table (CLX) of a document: which stretch of the WordDocument stream holds each range of character
 * positions. Found once; every story (the body, the footnotes, the endnotes) is read through it.
 */
export class PieceTable {
  private readonly tv: DataView;
  /** Where the PlcPcd's CPs start in the table stream, and how many pieces it has. */
  private readonly plc: number;
  private readonly pieces: number;

  constructor(
    private readonly word: Uint8Array,
    fib: Fib,
  ) {
    const { fc, lcb } = fib.pair(33);
    const t = fib.table;
    if (lcb === 0 || fc + lcb > t.length) throw corrupt("the piece table is missing or outside the table stream");
    const tv = new DataView(t.buffer, t.byteOffset, t.byteLength);
    // The CLX: property runs (clxt 1, skipped), then the piece table (clxt 2).
    // Each step moves forward by at least 3 bytes and stays inside the CLX: a negative or oversized length (crafted)
    // looped for ever or read past the stream.
    let at = fc;
    while (at + 3 <= fc + lcb && t[at] === 1) {
      const size = tv.getInt16(at + 1, true);
      if (size < 0 || at + 3 + size > fc + lcb) throw corrupt("a property run of the CLX has an impossible size");
      at += 3 + size;
    }
    if (at + 5 > t.length || t[at] !== 2) throw corrupt("no piece table in the CLX");
    const size = tv.getUint32(at + 1, true);
    this.plc = at + 5;
    if (this.plc + size > t.length || size < 16) throw corrupt("the piece table runs past the table stream");
    this.pieces = Math.floor((size - 4) / 12);
    this.tv = tv;
  }

  /**
   * The characters at CPs [`fromCp`, `toCp`) (the caller bounds the range: at most {@link MAX_DOC_CHARS}), in the
   * order the pieces give them; with `withOffsets`, each one's stream offset too (paragraph properties are keyed by
   * them; a note's text does not need them).
   */
  read(fromCp: number, toCp: number, withOffsets: boolean): DocText {
    const { tv, word, plc, pieces } = this;
    const end = Math.max(0, toCp - fromCp);
    const chars: string[] = [];
    const offsets = new Uint32Array(withOffsets ? end : 0);
    let n = 0;
    for (let i = 0; i < pieces && n < end; i++) {
      const cpStart = tv.getUint32(plc + i * 4, true);
      const cpEnd = tv.getUint32(plc + (i + 1) * 4, true);
      if (cpEnd < cpStart) throw corrupt("a piece points outside the WordDocument stream");
      // The part of this piece inside the range (pieces are in CP order: none past the range is needed).
      if (cpStart >= toCp) break;
      if (cpEnd <= fromCp) continue;
      const skip = Math.max(0, fromCp - cpStart);
      const pcd = plc + (pieces + 1) * 4 + i * 8;
      const fcRaw = tv.getUint32(pcd + 2, true);
      const compressed = (fcRaw & 0x40000000) !== 0;
      const width = compressed ? 1 : 2;
      const start = (compressed ? (fcRaw & 0x3fffffff) / 2 : fcRaw) + skip * width;
      const count = Math.min(cpEnd - cpStart - skip, end - n);
      if (start + count * width > word.length) throw corrupt("a piece points outside the WordDocument stream");
      for (let k = 0; k < count; k++) {
        if (compressed) {
          const byte = word[start + k]!;
          chars.push(byte >= 0x80 && byte < 0xa0 ? CP1252[byte - 0x80]! : String.fromCharCode(byte));
          if (withOffsets) offsets[n] = start + k;
        } else {
          chars.push(String.fromCharCode(word[start + 2 * k]! | (word[start + 2 * k + 1]! << 8)));
          if (withOffsets) offsets[n] = start + 2 * k;
        }
        n++;
      }
    }
    return { text: chars.join(""), offsets: offsets.subarray(0, withOffsets ? n : 0) };
  }
}

/** The body's characters (the main document, CPs 0 to `ccpText`, at most {@link MAX_DOC_CHARS}), from the piece table. */
export function bodyText(word: Uint8Array, fib: Fib, pieces: PieceTable = new PieceTable(word, fib)): DocText {
  return pieces.read(0, Math.min(Math.max(0, fib.ccpText), MAX_DOC_CHARS), true);
}
