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
 * bytes over gigabytes of compressed zeros kept the main thread inflating into nothing for minutes.)
 */
import { Inflate } from "fflate";
import { DocumentCorruptError, MediaTooLargeError } from "../errors.ts";

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

/** The central directory's entries (end record searched from the end, as the comment may follow it). */
function centralDirectory(b: Uint8Array, view: DataView): Entry[] {
  let end = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error("no end of central directory");
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const entries: Entry[] = [];
  const decoder = new TextDecoder();
  for (let n = 0; n < count; n++) {
    if (at + 46 > b.length || view.getUint32(at, true) !== 0x02014b50) throw new Error("damaged central directory");
    const nameLength = view.getUint16(at + 28, true);
    const entry: Entry = {
      name: decoder.decode(b.subarray(at + 46, at + 46 + nameLength)),
      method: view.getUint16(at + 10, true),
      compressedSize: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      localHeader: view.getUint32(at + 42, true),
    };
    if (entry.compressedSize === 0xffffffff || entry.size === 0xffffffff || entry.localHeader === 0xffffffff) throw new Error("ZIP64 entries are not supported");
    entries.push(entry);
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
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
        if (total > maxBytes) throw new MediaTooLargeError("decompressed document", maxBytes, "bytes");
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
    if (err instanceof MediaTooLargeError || err instanceof DocumentCorruptError) throw err;
    throw new DocumentCorruptError(kind, err instanceof Error ? err.message : String(err));
  }
  return parts;
}
