/**
 * @module engines/http/gunzip
 * A streaming gzip decoder that stops at the end of the gzip data and ignores trailing bytes, as browsers and curl do.
 *
 * Why not `zlib.createGunzip()`: after a complete member it treats any further byte other than NUL as the start of
 * another member, so a body with `\n\n` appended (some PHP output buffers and proxies do that) fails with
 * "incorrect header check", and the whole chunk's decoded output is dropped with the error. Here the gzip framing
 * (RFC 1952) is read by hand around a raw-deflate inflater: the header is checked, the deflate data inflated, and
 * the CRC-32 / ISIZE trailer verified. Further members are decoded too (concatenated gzip is valid); the first bytes
 * that are not a gzip header after a complete member end the body. A corrupt first member stays an error.
 *
 * Memory: output is passed on in the inflater's pieces (16 KiB) as it is produced, and `destroy()` stops the
 * inflater at once, so the caller's decoded-size limit bounds memory the same way it does for the zlib classes.
 */
import { Transform, type TransformCallback } from "node:stream";
import zlib from "node:zlib";

/** Longest gzip header accepted (FEXTRA, FNAME and FCOMMENT can make it long; real ones are tens of bytes). */
const MAX_HEADER_BYTES = 64 * 1024;
const TRAILER_BYTES = 8;
const FHCRC = 0x02;
const FEXTRA = 0x04;
const FNAME = 0x08;
const FCOMMENT = 0x10;
const RESERVED_FLAGS = 0xe0;

/** A zlib-style data error (same `code` as node:zlib's), so callers report it like any other decoding failure. */
function dataError(message: string): Error {
  return Object.assign(new Error(message), { code: "Z_DATA_ERROR", errno: zlib.constants.Z_DATA_ERROR });
}

/**
 * Length of the gzip header at the start of `bytes`: a number when complete, `"partial"` when more bytes are
 * needed, or `"invalid"` when these bytes cannot start a gzip member.
 */
export function gzipHeaderLength(bytes: Uint8Array): number | "partial" | "invalid" {
  if (bytes.length >= 1 && bytes[0] !== 0x1f) return "invalid";
  if (bytes.length >= 2 && bytes[1] !== 0x8b) return "invalid";
  if (bytes.length >= 3 && bytes[2] !== 8) return "invalid"; // CM 8 = deflate, the only method defined
  if (bytes.length >= 4 && (bytes[3]! & RESERVED_FLAGS) !== 0) return "invalid";
  if (bytes.length < 10) return "partial";
  const flags = bytes[3]!;
  let at = 10;
  if (flags & FEXTRA) {
    if (bytes.length < at + 2) return "partial";
    at += 2 + (bytes[at]! | (bytes[at + 1]! << 8));
  }
  for (const flag of [FNAME, FCOMMENT]) {
    if (!(flags & flag)) continue;
    const nul = bytes.indexOf(0, at);
    if (nul < 0) return "partial";
    at = nul + 1;
  }
  if (flags & FHCRC) at += 2;
  return bytes.length < at ? "partial" : at;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  return a.length === 0 ? b : Buffer.concat([a, b]);
}

/** See the module comment. Use like `zlib.createGunzip()`: write compressed bytes, read decoded ones. */
export class GzipMemberDecoder extends Transform {
  private state: "header" | "body" | "trailer" | "ignore" = "header";
  private pending: Uint8Array = new Uint8Array(0);
  private members = 0;
  private inflater?: zlib.InflateRaw;
  private written = 0;
  private crc = 0;
  private sizeBytes = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.consume(chunk).then(() => callback(), callback);
  }

  override _flush(callback: TransformCallback): void {
    this.finish().then(() => callback(), callback);
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    this.inflater?.destroy(); // stops inflating now: what keeps a bomb from running on after the limit
    callback(err);
  }

  private async consume(chunk: Uint8Array): Promise<void> {
    let input = chunk;
    while (input.length > 0 && !this.destroyed) {
      if (this.state === "ignore") return;
      if (this.state === "body") {
        input = await this.inflate(input);
        continue;
      }
      this.pending = concat(this.pending, input);
      input = new Uint8Array(0);
      if (this.state === "header") input = this.readHeader();
      else input = this.readTrailer();
    }
  }

  /** Starts a member when `pending` holds a whole header; returns the bytes after it. */
  private readHeader(): Uint8Array {
    const length = gzipHeaderLength(this.pending);
    if (length === "invalid" || (length === "partial" && this.pending.length > MAX_HEADER_BYTES)) {
      // After a complete member, anything that is not another member is trailing garbage: the body ends here.
      if (this.members > 0) {
        this.state = "ignore";
        this.pending = new Uint8Array(0);
        return this.pending;
      }
      throw dataError("incorrect header check");
    }
    if (length === "partial") return new Uint8Array(0);
    const rest = this.pending.subarray(length);
    this.pending = new Uint8Array(0);
    this.startMember();
    return rest;
  }

  private startMember(): void {
    // Sync flush at the end: tolerate a truncated stream the way browsers do instead of failing the whole page.
    const inflater = zlib.createInflateRaw({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
    inflater.on("data", (piece: Buffer) => {
      this.crc = zlib.crc32(piece, this.crc);
      this.sizeBytes += piece.length;
      this.push(piece);
    });
    this.inflater = inflater;
    this.written = 0;
    this.crc = 0;
    this.sizeBytes = 0;
    this.state = "body";
  }

  /**
   * Feeds deflate data to the member's inflater. The inflater consumes input only up to the end of the deflate
   * stream, so input it left over means the member's data ended: the rest is returned, starting with the trailer.
   */
  private async inflate(input: Uint8Array): Promise<Uint8Array> {
    const inflater = this.inflater!;
    this.written += input.length;
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      inflater.once("error", onError);
      inflater.write(input, () => {
        inflater.off("error", onError);
        resolve();
      });
    });
    const unused = this.written - inflater.bytesWritten;
    if (unused <= 0) return new Uint8Array(0);
    inflater.destroy();
    this.inflater = undefined;
    this.state = "trailer";
    return input.subarray(input.length - unused);
  }

  /** Checks CRC-32 and ISIZE once `pending` holds the 8 trailer bytes; returns the bytes after them. */
  private readTrailer(): Uint8Array {
    if (this.pending.length < TRAILER_BYTES) return new Uint8Array(0);
    const view = new DataView(this.pending.buffer, this.pending.byteOffset, TRAILER_BYTES);
    if (view.getUint32(0, true) !== this.crc >>> 0) throw dataError("incorrect data check");
    if (view.getUint32(4, true) !== this.sizeBytes % 2 ** 32) throw dataError("incorrect length check");
    const rest = this.pending.subarray(TRAILER_BYTES);
    this.pending = new Uint8Array(0);
    this.members++;
    this.state = "header";
    return rest;
  }

  /** End of input: a truncated member keeps what was decoded (lenient, like browsers); no member at all is an error. */
  private async finish(): Promise<void> {
    if (this.state === "body") {
      const inflater = this.inflater!;
      await new Promise<void>((resolve, reject) => {
        inflater.once("error", reject);
        inflater.once("end", resolve);
        inflater.end();
      });
      return;
    }
    if (this.state === "header" && this.members === 0 && this.pending.length > 0) throw dataError("unexpected end of file");
  }
}
