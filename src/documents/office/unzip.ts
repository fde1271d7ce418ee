/**
 * @module documents/office/unzip
 * Unzips the parts of an office document (DOCX, ODT) the parsers read, with the decompressed size bounded
 * (reliability.md #8: limits count decompressed bytes), in memory and in time.
 *
 * The archive is streamed through fflate's `Unzip` in slices, and the bytes each part inflates to are counted as
 * they come: a part that inflates past the size its header declares, or parts past {@link MAX_OFFICE_UNZIPPED_BYTES}
 * together, stop the whole read at once. A one-shot `unzipSync` bounded only the output buffer: a header declaring
 * 1000 bytes over gigabytes of compressed zeros kept the main thread inflating into nothing for minutes.
 */
import { Unzip, UnzipInflate } from "fflate";
import { DocumentCorruptError, MediaTooLargeError } from "../errors.ts";

/**
 * Most decompressed bytes the parts of one office document may hold. Only the XML parts a parser reads are
 * unzipped (no media), and that XML becomes an in-memory tree of about 50 times its size: 32 MiB of XML is a book
 * of thousands of pages, and already ~1.5 GB of tree. (At 200 MiB a 577 KB DOCX took the process past 12 GB.)
 */
export const MAX_OFFICE_UNZIPPED_BYTES = 32 * 1024 * 1024;

/** Compressed bytes handed to the inflater at a time: what may be inflated past a limit before the read stops. */
const SLICE_BYTES = 16 * 1024;

/** The entries of `bytes` whose names `keep` accepts; `kind` names the format in errors. */
export function unzipParts(bytes: Uint8Array, kind: string, keep: (name: string) => boolean, maxBytes = MAX_OFFICE_UNZIPPED_BYTES): Record<string, Uint8Array> {
  const parts: Record<string, Uint8Array> = {};
  let total = 0;
  const unzip = new Unzip((file) => {
    if (!keep(file.name)) return;
    const declared = file.originalSize;
    const chunks: Uint8Array[] = [];
    let size = 0;
    file.ondata = (err, chunk, final) => {
      if (err) throw err instanceof MediaTooLargeError || err instanceof DocumentCorruptError ? err : new DocumentCorruptError(kind, err.message);
      size += chunk.length;
      total += chunk.length;
      if (total > maxBytes) throw new MediaTooLargeError("decompressed document", maxBytes, "bytes");
      if (declared !== undefined && size > declared) {
        throw new DocumentCorruptError(kind, `${file.name} inflates past the ${declared} bytes its header declares`);
      }
      chunks.push(chunk);
      if (final) parts[file.name] = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  try {
    for (let at = 0; at < bytes.length; at += SLICE_BYTES) unzip.push(bytes.subarray(at, at + SLICE_BYTES), at + SLICE_BYTES >= bytes.length);
    if (bytes.length === 0) unzip.push(bytes, true);
  } catch (err) {
    if (err instanceof MediaTooLargeError || err instanceof DocumentCorruptError) throw err;
    throw new DocumentCorruptError(kind, err instanceof Error ? err.message : String(err));
  }
  return parts;
}
