/**
 * @module documents/office/unzip
 * Unzips the parts of an office document (DOCX, ODT) the parsers read, with the decompressed size bounded
 * (reliability.md #8: limits count decompressed bytes), in memory and in time.
 *
 * The archive is read through its central directory (as any zip reader does): only the kept entries' bytes are
 * touched, whatever the others hold (a streaming reader that looks for the next header inside an entry's data
 * mistook the bytes of an image for one). Each kept entry is inflated in slices and its output counted as it
 * comes: a part that inflates past the size the directory declares, or parts past {@link MAX_OFFICE_UNZIPPED_BYTES}
 * together, stop the read at once. (A one-shot inflate bounded only the output buffer: a header declaring 1000
 * bytes over gigabytes of compressed zeros kept the main thread inflating into nothing for minutes.) ZIP64
 * archives (an end record and entry fields in ZIP64's 8-byte form, which some writers use for every file) are read.
 */
import { Inflate } from "fflate";
import { DocumentCorruptError, DocumentTooLargeError } from "../errors.ts";

/**
 * Most decompressed bytes the parts of one office document may hold. Only the XML parts a parser reads are
 * unzipped (no media), and that XML becomes an in-memory tree of about 50 times its size: 32 MiB of XML is a book
 * of thousands of pages, and already ~1.5 GB of tree. (At 200 MiB a 577 KB DOCX took the process past 12 GB.)
 */
export const MAX_OFFICE_UNZIPPED_BYTES = 32 * 1024 * 1024;

/** Compressed bytes handed to the inflater at a time: what may be inflated past a limit before the read stops. */
const SLICE_BYTES = 4 * 1024;

/** One entry of the central directory. */
interface Entry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localHeader: number;
}

/** Where the central directory starts and how many entries it has, from the end record (ZIP64's when it says so). */
function directoryLocation(b: Uint8Array, view: DataView): { count: number; at: number } {
  let end = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error("no end of central directory");
  const count = view.getUint16(end + 10, true);
  const at = view.getUint32(end + 16, true);
  if (count !== 0xffff && at !== 0xffffffff && view.getUint32(end + 12, true) !== 0xffffffff) return { count, at };
  // A field at its maximum: the real values are in the ZIP64 end record, which the locator just before names. Some
  // writers use it for every archive, however small; others only past 65,535 entries or 4 GiB.
  const locator = end - 20;
  if (locator < 0 || view.getUint32(locator, true) !== 0x07064b50) return { count, at };
  const record = big(view, locator + 8);
  if (record + 56 > b.length || view.getUint32(record, true) !== 0x06064b50) throw new Error("damaged ZIP64 end of central directory");
  return { count: big(view, record + 32), at: big(view, record + 48) };
}

/** An 8-byte little-endian field, as a number (past 2^53 it cannot be an offset into bytes held in memory). */
function big(view: DataView, at: number): number {
  const n = view.getBigUint64(at, true);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error("ZIP64 field out of range");
  return Number(n);
}

/**
 * An entry's sizes and local header offset: the 4-byte fields, or, for those at 0xffffffff, the ZIP64 extra field
 * (id 1), which holds 8-byte values of just those fields in this order: size, compressed size, local header offset.
 */
function zip64Fields(view: DataView, extraAt: number, extraLength: number, entry: Entry): void {
  for (let at = extraAt; at + 4 <= extraAt + extraLength; ) {
    const id = view.getUint16(at, true);
    const length = view.getUint16(at + 2, true);
    if (id === 0x0001) {
      let field = at + 4;
      const next = () => {
        if (field + 8 > Math.min(at + 4 + length, extraAt + extraLength)) throw new Error(`${entry.name}: damaged ZIP64 extra field`);
        const value = big(view, field);
        field += 8;
        return value;
      };
      if (entry.size === 0xffffffff) entry.size = next();
      if (entry.compressedSize === 0xffffffff) entry.compressedSize = next();
      if (entry.localHeader === 0xffffffff) entry.localHeader = next();
      return;
    }
    at += 4 + length;
  }
  throw new Error(`${entry.name}: a size or offset at 0xffffffff without a ZIP64 extra field`);
}

/** The central directory's entries (end record searched from the end, as the comment may follow it). */
function centralDirectory(b: Uint8Array, view: DataView): Entry[] {
  const location = directoryLocation(b, view);
  const count = location.count;
  let at = location.at;
  const entries: Entry[] = [];
  const decoder = new TextDecoder();
  for (let n = 0; n < count; n++) {
    if (at + 46 > b.length || view.getUint32(at, true) !== 0x02014b50) throw new Error("damaged central directory");
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const entry: Entry = {
      name: decoder.decode(b.subarray(at + 46, at + 46 + nameLength)),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localHeader: view.getUint32(at + 42, true),
    };
    if (entry.compressedSize === 0xffffffff || entry.size === 0xffffffff || entry.localHeader === 0xffffffff) {
      zip64Fields(view, at + 46 + nameLength, Math.min(extraLength, b.length - (at + 46 + nameLength)), entry);
    }
    entries.push(entry);
    at += 46 + nameLength + extraLength + view.getUint16(at + 32, true);
  }
  return entries;
}

/** The entries of `bytes` whose names `keep` accepts; `kind` names the format in errors. */
export function unzipParts(bytes: Uint8Array, kind: string, keep: (name: string) => boolean, maxBytes = MAX_OFFICE_UNZIPPED_BYTES): Record<string, Uint8Array> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: Record<string, Uint8Array> = {};
  let total = 0;
  try {
    for (const e of centralDirectory(bytes, view)) {
      if (!keep(e.name)) continue;
      if (e.localHeader + 30 > bytes.length || view.getUint32(e.localHeader, true) !== 0x04034b50) throw new Error(`${e.name}: damaged local header`);
      const start = e.localHeader + 30 + view.getUint16(e.localHeader + 26, true) + view.getUint16(e.localHeader + 28, true);
      const data = bytes.subarray(start, start + e.compressedSize);
      if (data.length < e.compressedSize) throw new Error(`${e.name}: truncated`);
      const chunks: Uint8Array[] = [];
      let size = 0;
      const take = (chunk: Uint8Array) => {
        size += chunk.length;
        total += chunk.length;
        if (total > maxBytes) throw new DocumentTooLargeError(maxBytes);
        if (size > e.size) throw new DocumentCorruptError(kind, `${e.name} inflates past the ${e.size} bytes its header declares`);
        chunks.push(chunk);
      };
      if (e.method === 0) take(data);
      else if (e.method === 8) {
        const inflater = new Inflate((chunk) => take(chunk));
        for (let at = 0; at < data.length; at += SLICE_BYTES) inflater.push(data.subarray(at, at + SLICE_BYTES), at + SLICE_BYTES >= data.length);
        if (data.length === 0) inflater.push(data, true);
      } else throw new Error(`${e.name}: unsupported compression method ${e.method}`);
      parts[e.name] = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
    }
  } catch (err) {
    if (err instanceof DocumentTooLargeError || err instanceof DocumentCorruptError) throw err;
    throw new DocumentCorruptError(kind, err instanceof Error ? err.message : String(err));
  }
  return parts;
}
