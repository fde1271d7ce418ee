/**
 * @module documents/office/biff-records
 * BIFF8 records (the `Workbook` stream of an XLS file): a 2-byte type, a 2-byte length, then the data. A record
 * longer than 8,224 bytes goes on in CONTINUE records, and a string cut there restarts its characters with a fresh
 * flags byte (compressed 8-bit or UTF-16) at the start of the CONTINUE record: {@link BiffReader} reads across
 * those boundaries as the format says.
 */
import { DocumentCorruptError } from "../errors.ts";

/** One record. */
export interface BiffRecord {
  type: number;
  data: Uint8Array;
  view: DataView;
}

/**
 * Every record of a BIFF stream, framed once from its start: each record's type and position kept in typed arrays
 * (6 bytes a record), its {@link BiffRecord} made only when asked for. A workbook's sheets are walked by index in
 * this one framing: reading each sheet's substream again from its offset would make a file whose sheets never end
 * (BOFs without their EOFs) re-read the rest of the stream once per sheet.
 */
export class BiffStream {
  /** How many records the stream holds (a record cut short by the stream's end is not one). */
  readonly count: number;
  private readonly types: Uint16Array;
  /** Where each record's 4-byte header starts. */
  private readonly starts: Uint32Array;

  constructor(private readonly stream: Uint8Array) {
    let count = 0;
    for (let at = 0; at + 4 <= stream.length; count++) {
      const next = at + 4 + (stream[at + 2]! | (stream[at + 3]! << 8));
      if (next > stream.length) break;
      at = next;
    }
    this.count = count;
    this.types = new Uint16Array(count);
    this.starts = new Uint32Array(count);
    for (let i = 0, at = 0; i < count; i++) {
      this.types[i] = stream[at]! | (stream[at + 1]! << 8);
      this.starts[i] = at;
      at += 4 + (stream[at + 2]! | (stream[at + 3]! << 8));
    }
  }

  /** The type of record `i` (undefined past the end), without making the record. */
  type(i: number): number | undefined {
    return i >= 0 && i < this.count ? this.types[i] : undefined;
  }

  /** Record `i`. */
  record(i: number): BiffRecord {
    const at = this.starts[i]!;
    const data = this.stream.subarray(at + 4, at + 4 + (this.stream[at + 2]! | (this.stream[at + 3]! << 8)));
    return { type: this.types[i]!, data, view: new DataView(data.buffer, data.byteOffset, data.byteLength) };
  }

  /** The index of the record whose header starts at byte `offset` (a BOUNDSHEET8's pointer), or -1. */
  indexAt(offset: number): number {
    let lo = 0;
    let hi = this.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.starts[mid]!;
      if (at === offset) return mid;
      if (at < offset) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

/** Reads fields across a record and its CONTINUE records, from byte `start` of the first. */
export class BiffReader {
  private readonly data: Uint8Array;
  /** Where each CONTINUE record's data starts within {@link data}. */
  private readonly boundaries: number[] = [];
  private at: number;

  constructor(parts: BiffRecord[], start: number) {
    let total = 0;
    for (const p of parts) {
      if (total > 0) this.boundaries.push(total);
      total += p.data.length;
    }
    this.data = parts.length === 1 ? parts[0]!.data : Buffer.concat(parts.map((p) => p.data), total);
    this.at = start;
  }

  atEnd(): boolean {
    return this.at >= this.data.length;
  }

  private need(n: number): void {
    if (this.at + n > this.data.length) throw new DocumentCorruptError("XLS", "a record ends inside a field");
  }

  u8(): number {
    this.need(1);
    return this.data[this.at++]!;
  }

  u16(): number {
    this.need(2);
    const v = this.data[this.at]! | (this.data[this.at + 1]! << 8);
    this.at += 2;
    return v;
  }

  u32(): number {
    return (this.u16() | (this.u16() << 16)) >>> 0;
  }

  /** Skips `n` bytes (formatting runs, phonetic data: no flags byte at a boundary). */
  skip(n: number): void {
    this.at = Math.min(this.data.length, this.at + n);
  }

  /** The next boundary after the current position, or Infinity. */
  private nextBoundary(): number {
    for (const b of this.boundaries) if (b > this.at) return b;
    return Infinity;
  }

  /** `count` characters, 8-bit or UTF-16 as `flags` says, restarting with a new flags byte at each boundary. */
  private chars(count: number, flags: number): string {
    let out = "";
    let wide = (flags & 0x01) !== 0;
    while (count > 0) {
      if (this.atEnd()) throw new DocumentCorruptError("XLS", "a string runs past its record");
      const boundary = this.nextBoundary();
      const room = Math.floor((boundary - this.at) / (wide ? 2 : 1));
      const take = Math.min(count, room);
      this.need(take * (wide ? 2 : 1));
      if (wide) out += new TextDecoder("utf-16le").decode(this.data.subarray(this.at, this.at + take * 2));
      // Compressed: UTF-16 with the high bytes left out, so each byte is its code point (not windows-1252).
      else for (let i = 0; i < take; i++) out += String.fromCharCode(this.data[this.at + i]!);
      this.at += take * (wide ? 2 : 1);
      count -= take;
      if (count > 0 && this.at === boundary) wide = (this.u8() & 0x01) !== 0;
      else if (count > 0 && take === 0) throw new DocumentCorruptError("XLS", "a string character straddles a record boundary");
    }
    return out;
  }

  /** An XLUnicodeString (`lengthBytes` 2) or ShortXLUnicodeString (1): a count, a flags byte, the characters. */
  unicodeString(lengthBytes: 1 | 2): string {
    const count = lengthBytes === 1 ? this.u8() : this.u16();
    return this.chars(count, this.u8());
  }

  /** An XLUnicodeRichExtendedString (the SST's strings): formatting runs and phonetic data skipped. */
  richString(): string {
    const count = this.u16();
    const flags = this.u8();
    const runs = flags & 0x08 ? this.u16() : 0;
    const extended = flags & 0x04 ? this.u32() : 0;
    const text = this.chars(count, flags);
    this.skip(runs * 4 + extended);
    return text;
  }
}
