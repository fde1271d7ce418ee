/**
 * @module documents/office/doc-text
 * The main text of a Word 97–2003 document (`.doc`, MS-DOC): the File Information Block at the start of the
 * `WordDocument` stream says which table stream holds the piece table (CLX) and how many characters the body has
 * (`ccpText`); the piece table maps character positions to stretches of the WordDocument stream, each either
 * UTF-16 or "compressed" 8-bit (code page 1252). Each character comes back with the stream offset it was read
 * from: paragraph properties are keyed by those offsets (doc-paragraphs.ts).
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

/** The body text: its characters and, per character, the WordDocument stream offset it came from. */
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
export function readFib(word: Uint8Array, file: CompoundFile): Fib {
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
    table,
    pair(index) {
      const at = 0x9a + index * 8;
      if (index >= pairs || at + 8 > word.length) return { fc: 0, lcb: 0 };
      return { fc: v.getUint32(at, true), lcb: v.getUint32(at + 4, true) };
    },
  };
}

/** The body's characters, from the piece table. */
export function bodyText(word: Uint8Array, fib: Fib): DocText {
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
  const plc = at + 5;
  if (plc + size > t.length || size < 16) throw corrupt("the piece table runs past the table stream");
  const pieces = Math.floor((size - 4) / 12);
  const end = Math.min(Math.max(0, fib.ccpText), MAX_DOC_CHARS);
  const chars: string[] = [];
  const offsets = new Uint32Array(end);
  let n = 0;
  for (let i = 0; i < pieces && n < end; i++) {
    const cpStart = tv.getUint32(plc + i * 4, true);
    const cpEnd = tv.getUint32(plc + (i + 1) * 4, true);
    const pcd = plc + (pieces + 1) * 4 + i * 8;
    const fcRaw = tv.getUint32(pcd + 2, true);
    const compressed = (fcRaw & 0x40000000) !== 0;
    const start = compressed ? (fcRaw & 0x3fffffff) / 2 : fcRaw;
    const count = Math.min(cpEnd - cpStart, end - n);
    if (cpEnd < cpStart || start + count * (compressed ? 1 : 2) > word.length) throw corrupt("a piece points outside the WordDocument stream");
    for (let k = 0; k < count; k++) {
      if (compressed) {
        const byte = word[start + k]!;
        chars.push(byte >= 0x80 && byte < 0xa0 ? CP1252[byte - 0x80]! : String.fromCharCode(byte));
        offsets[n++] = start + k;
      } else {
        chars.push(String.fromCharCode(word[start + 2 * k]! | (word[start + 2 * k + 1]! << 8)));
        offsets[n++] = start + 2 * k;
      }
    }
  }
  return { text: chars.join(""), offsets: offsets.subarray(0, n) };
}
