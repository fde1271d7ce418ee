/**
 * @module egress/framing
 * Where an HTTP/1.1 message body ends (RFC 9112 §6), so the proxy can keep connections alive without letting bytes
 * cross from one exchange into the next. Bodies are still relayed as raw bytes; {@link BodyTracker} only counts
 * them and says how many of a chunk belong to the current body.
 *
 * Strictness is the point. Anything ambiguous that the two ends of a connection could read differently (both
 * `Transfer-Encoding` and `Content-Length` in a request, several different lengths, a non-chunked request coding,
 * bare LF in chunk framing, over-long chunk sizes) is refused instead of guessed at: a request with such framing gets
 * a 400, a response with it is delivered close-delimited or fails, never reused.
 */
import { CrawlboxError } from "../errors.ts";
import { MAX_HEAD_BYTES } from "./http-head.ts";

/** How a message body is delimited. */
export type BodyFraming =
  | { kind: "none" }
  | { kind: "length"; length: number }
  | { kind: "chunked" }
  /** Until the sender closes the connection (responses only). */
  | { kind: "close" };

function all(headers: Array<[string, string]>, lowerName: string): string[] {
  const out: string[] = [];
  for (const [n, v] of headers) if (n.toLowerCase() === lowerName) out.push(v);
  return out;
}

/** The codings of all Transfer-Encoding fields, lower-cased, in order. */
function transferCodings(headers: Array<[string, string]>): string[] {
  return all(headers, "transfer-encoding")
    .flatMap((v) => v.split(","))
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "");
}

/** The single Content-Length value, undefined when absent, NaN when invalid or when several values disagree. */
function contentLength(headers: Array<[string, string]>): number | undefined {
  const values = all(headers, "content-length").flatMap((v) => v.split(",").map((x) => x.trim()));
  if (values.length === 0) return undefined;
  const first = values[0]!;
  if (!/^\d{1,15}$/.test(first) || values.some((v) => v !== first)) return NaN;
  return Number(first);
}

function badRequest(message: string): CrawlboxError {
  return new CrawlboxError("BAD_REQUEST", 400, `Egress proxy: ${message}`);
}

/**
 * Framing of a request body. Throws a 400 {@link CrawlboxError} for framing the proxy will not forward: both
 * Transfer-Encoding and Content-Length (the classic smuggling pair), a coding other than exactly `chunked`, or an
 * invalid or conflicting Content-Length.
 */
export function requestFraming(headers: Array<[string, string]>): BodyFraming {
  const codings = transferCodings(headers);
  const length = contentLength(headers);
  if (codings.length > 0) {
    if (length !== undefined) throw badRequest("a request may not carry both Transfer-Encoding and Content-Length.");
    if (codings.length !== 1 || codings[0] !== "chunked") throw badRequest("only Transfer-Encoding: chunked is accepted.");
    return { kind: "chunked" };
  }
  if (length === undefined || length === 0) return { kind: "none" };
  if (Number.isNaN(length)) throw badRequest("invalid Content-Length.");
  return { kind: "length", length };
}

/**
 * Framing of a response body (RFC 9112 §6.3). `mustClose` is set when the response is delimited but its framing
 * was dubious (Transfer-Encoding together with Content-Length), so the connection must not be reused after it.
 * Throws an Error for an invalid or conflicting Content-Length without Transfer-Encoding (unrecoverable, §6.3 rule 5).
 */
export function responseFraming(
  requestMethod: string,
  status: number,
  headers: Array<[string, string]>,
): { framing: BodyFraming; mustClose: boolean } {
  if (requestMethod === "HEAD" || (status >= 100 && status < 200) || status === 204 || status === 304) {
    return { framing: { kind: "none" }, mustClose: false };
  }
  const codings = transferCodings(headers);
  const length = contentLength(headers);
  if (codings.length > 0) {
    const chunked = codings[codings.length - 1] === "chunked";
    return { framing: chunked ? { kind: "chunked" } : { kind: "close" }, mustClose: length !== undefined || !chunked };
  }
  if (length === undefined) return { framing: { kind: "close" }, mustClose: true };
  if (Number.isNaN(length)) throw new Error("invalid Content-Length in the response");
  return { framing: length === 0 ? { kind: "none" } : { kind: "length", length }, mustClose: false };
}

/** Longest chunk-size line accepted (size plus extensions). */
const MAX_CHUNK_LINE = 4096;
/** More hex digits than this cannot be a real chunk size (2^52 bytes). */
const MAX_SIZE_DIGITS = 13;

const enum Chunk {
  Size,
  Ext,
  SizeLf,
  Data,
  DataCr,
  DataLf,
  TrailerStart,
  TrailerLine,
  TrailerLf,
  FinalLf,
  Done,
}

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return -1;
}

/**
 * Follows one body through its framing. {@link consume} returns how many bytes at the start of a chunk belong to the
 * body; once {@link done}, the rest of that chunk (and everything after) belongs to whatever comes next.
 * Malformed chunked framing throws.
 */
export class BodyTracker {
  private remaining: number;
  private state: Chunk = Chunk.Size;
  private digits = 0;
  private lineBytes = 0;
  private trailerBytes = 0;

  constructor(private readonly framing: BodyFraming) {
    this.remaining = framing.kind === "length" ? framing.length : 0;
    if (framing.kind === "none") this.state = Chunk.Done;
    if (framing.kind === "length" && framing.length === 0) this.state = Chunk.Done;
  }

  /** True once the whole body has been seen (never for close-delimited bodies). */
  get done(): boolean {
    return this.state === Chunk.Done;
  }

  /** Number of leading bytes of `chunk` that belong to the body. */
  consume(chunk: Uint8Array): number {
    if (this.state === Chunk.Done) return 0;
    if (this.framing.kind === "close") return chunk.byteLength;
    if (this.framing.kind === "length") {
      const n = Math.min(this.remaining, chunk.byteLength);
      this.remaining -= n;
      if (this.remaining === 0) this.state = Chunk.Done;
      return n;
    }
    return this.consumeChunked(chunk);
  }

  private consumeChunked(chunk: Uint8Array): number {
    let i = 0;
    const n = chunk.byteLength;
    while (i < n && this.state !== Chunk.Done) {
      if (this.state === Chunk.Data) {
        const take = Math.min(this.remaining, n - i);
        i += take;
        this.remaining -= take;
        if (this.remaining === 0) this.state = Chunk.DataCr;
        continue;
      }
      const b = chunk[i++]!;
      switch (this.state) {
        case Chunk.Size: {
          const v = hexValue(b);
          if (v >= 0) {
            if (++this.digits > MAX_SIZE_DIGITS) throw new Error("chunk size too large");
            this.remaining = this.remaining * 16 + v;
          } else if (this.digits === 0) {
            throw new Error("missing chunk size");
          } else if (b === 0x0d) {
            this.state = Chunk.SizeLf;
          } else if (b === 0x3b || b === 0x20 || b === 0x09) {
            this.state = Chunk.Ext;
            this.lineBytes = this.digits + 1;
          } else {
            throw new Error("invalid chunk size");
          }
          break;
        }
        case Chunk.Ext:
          if (b === 0x0d) this.state = Chunk.SizeLf;
          else if (b === 0x0a || ++this.lineBytes > MAX_CHUNK_LINE) throw new Error("invalid chunk extension");
          break;
        case Chunk.SizeLf:
          if (b !== 0x0a) throw new Error("chunk size line not ended by CRLF");
          this.digits = 0;
          this.state = this.remaining === 0 ? Chunk.TrailerStart : Chunk.Data;
          break;
        case Chunk.DataCr:
          if (b !== 0x0d) throw new Error("chunk data not followed by CRLF");
          this.state = Chunk.DataLf;
          break;
        case Chunk.DataLf:
          if (b !== 0x0a) throw new Error("chunk data not followed by CRLF");
          this.state = Chunk.Size;
          break;
        case Chunk.TrailerStart:
          if (b === 0x0d) this.state = Chunk.FinalLf;
          else if (b === 0x0a) throw new Error("bare LF in trailers");
          else this.state = Chunk.TrailerLine;
          this.countTrailer();
          break;
        case Chunk.TrailerLine:
          if (b === 0x0d) this.state = Chunk.TrailerLf;
          else if (b === 0x0a) throw new Error("bare LF in trailers");
          this.countTrailer();
          break;
        case Chunk.TrailerLf:
          if (b !== 0x0a) throw new Error("trailer line not ended by CRLF");
          this.state = Chunk.TrailerStart;
          this.countTrailer();
          break;
        case Chunk.FinalLf:
          if (b !== 0x0a) throw new Error("chunked body not ended by CRLF");
          this.state = Chunk.Done;
          break;
      }
    }
    return i;
  }

  private countTrailer(): void {
    if (++this.trailerBytes > MAX_HEAD_BYTES) throw new Error("trailer section too large");
  }
}
