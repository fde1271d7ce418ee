/**
 * @module documents/office/unzip
 * Unzips the parts of an office document (DOCX, ODT) the parsers read, with the decompressed size bounded
 * (reliability.md #8: limits count decompressed bytes). A 2 MB DOCX whose XML inflates to gigabytes took the
 * process to 2 GB before; now its declared sizes are summed before anything is inflated, and fflate writes each
 * entry into a buffer of its declared size, so a lying header cannot inflate past it either.
 */
import { unzipSync } from "fflate";
import { DocumentCorruptError, MediaTooLargeError } from "../errors.ts";

/** Most decompressed bytes the parts of one office document may hold. */
export const MAX_OFFICE_UNZIPPED_BYTES = 200 * 1024 * 1024;

/** The entries of `bytes` whose names `keep` accepts; `kind` names the format in errors. */
export function unzipParts(bytes: Uint8Array, kind: string, keep: (name: string) => boolean, maxBytes = MAX_OFFICE_UNZIPPED_BYTES): Record<string, Uint8Array> {
  let total = 0;
  try {
    return unzipSync(bytes, {
      filter: (f) => {
        if (!keep(f.name)) return false;
        total += f.originalSize;
        if (total > maxBytes) throw new MediaTooLargeError("decompressed document", maxBytes, "bytes");
        return true;
      },
    });
  } catch (err) {
    if (err instanceof MediaTooLargeError) throw err;
    throw new DocumentCorruptError(kind, err instanceof Error ? err.message : String(err));
  }
}
