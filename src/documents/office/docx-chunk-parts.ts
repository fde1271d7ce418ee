/**
 * @module documents/office/docx-chunk-parts
 * Reading the parts a DOCX imports (`w:altChunk`, docx-alt-chunk.ts) out of its zip, and what that may cost. Every
 * read is charged, the failed ones too: each failed read had inflated up to what was left before it failed, so a
 * package that names one bad entry a thousand times (1,000 central-directory entries over one local entry of 40 MB of
 * spaces) made a thousand reads of 32 MiB each: a 107 KB file took 192 s; a DOCX chunk of 40 MB of spaces imported
 * 5,000 times, 85 s for a 30 KB file. So:
 *
 * - a read that fails for size spends all that was left (it inflated that much): nothing more is read;
 * - any other failed read (a damaged entry) spends one of the document's {@link MAX_FAILED_CHUNK_READS}: how much it
 *   inflated before failing is not known (unzip.ts reports none), so their number is bounded instead;
 * - the chunks are read together, in one pass over the central directory; when one is damaged, the others are read
 *   again without it (the failing entry is the last one the pass accepted), so a damaged chunk costs one more pass,
 *   not one pass for every chunk (a directory of 60,000 entries went through 1,000 times: 4.9 s).
 */
import { DocumentCorruptError, DocumentTooLargeError } from "../errors.ts";
import { MAX_OFFICE_UNZIPPED_BYTES, unzipParts } from "./unzip.ts";

/**
 * Most failed chunk reads in one document, its DOCX chunks' included: each may have inflated up to the
 * {@link MAX_OFFICE_UNZIPPED_BYTES} before it failed (about 0.15 s each); a real document has none or one.
 */
export const MAX_FAILED_CHUNK_READS = 4;

/**
 * Most characters of HTML markup a document's chunks are parsed from, all together (a longer chunk is cut there, a
 * later one left out, with a warning). The markup is parsed into a DOM (linkedom) of a hundred times its size or more:
 * a 48 KB DOCX whose chunk was `<p>x</p>` 4 million times (32 MB) peaked at 5.0 GB (7.0 s). Cut at this bound, that
 * file peaks at 0.65 GB (0.8 s), and the worst markup measured, `<li>x` repeated, at 1.3 GB (1.1 s): within what a
 * DOCX of native XML costs at worst (1.5–1.9 GB).
 */
export const MAX_HTML_CHUNK_CHARS = 4 * 1024 * 1024;

/**
 * What the chunks of one document may still cost, one object shared by the document and the DOCX chunks in it
 * (however deep): the bytes they are read from (a chunk's bytes, what a DOCX chunk's own parts inflate to), the
 * failed reads left, and the characters of HTML markup left.
 */
export interface ChunkAllowance {
  bytesLeft: number;
  failedReadsLeft: number;
  htmlCharsLeft: number;
}

/** A fresh allowance, for a document read from the top. */
export function chunkAllowance(): ChunkAllowance {
  return { bytesLeft: MAX_OFFICE_UNZIPPED_BYTES, failedReadsLeft: MAX_FAILED_CHUNK_READS, htmlCharsLeft: MAX_HTML_CHUNK_CHARS };
}

/** Why an imported part was not read: the document's parts (with its chunks) reached their size limit. */
export const CHUNKS_PAST_LIMIT = `the document's parts and imported chunks reach the ${MAX_OFFICE_UNZIPPED_BYTES.toLocaleString("en-US")} bytes they may inflate to`;
/** Why an imported part was not read: enough damaged ones were tried before it. */
export const TOO_MANY_FAILED = `${MAX_FAILED_CHUNK_READS} imported chunks of the document could not be read before it`;

/** The imported parts read, the bytes spent on them, and why the others were not read (by lower-case name). */
export interface ChunkParts {
  files: Record<string, Uint8Array>;
  spentBytes: number;
  errors: Map<string, string>;
}

/**
 * Reads the parts `names` (lower-case) names from zip `bytes` within `maxBytes`, charging failures as the module
 * says: one pass, and one more per damaged part (at most the allowance's failed reads).
 */
export function readChunkParts(bytes: Uint8Array, names: ReadonlySet<string>, maxBytes: number, allowance: ChunkAllowance): ChunkParts {
  const out: ChunkParts = { files: {}, spentBytes: 0, errors: new Map() };
  const left = new Set(names);
  const giveUp = (why: string) => {
    for (const name of left) out.errors.set(name, why);
    return out;
  };
  while (left.size > 0) {
    if (allowance.failedReadsLeft <= 0) return giveUp(TOO_MANY_FAILED);
    let last: string | undefined;
    try {
      const keep = (name: string) => {
        const lower = name.toLowerCase();
        if (!left.has(lower)) return false;
        last = lower;
        return true;
      };
      for (const [name, data] of Object.entries(unzipParts(bytes, "DOCX", keep, maxBytes - out.spentBytes))) {
        out.files[name] = data;
        out.spentBytes += data.length;
      }
      return out;
    } catch (err) {
      if (err instanceof DocumentTooLargeError) {
        // It inflated all that was left before it stopped.
        out.spentBytes = maxBytes;
        return giveUp(CHUNKS_PAST_LIMIT);
      }
      if (!(err instanceof DocumentCorruptError)) throw err;
      allowance.failedReadsLeft--;
      // unzip.ts reads the entries it keeps in order and stops at the first that fails: the last one kept. None kept:
      // the directory itself is damaged, and no pass will read anything.
      if (last === undefined) return giveUp(err.message);
      out.errors.set(last, err.message);
      left.delete(last);
    }
  }
  return out;
}
