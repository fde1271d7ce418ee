/**
 * @module documents/office/cfb
 * Reads the streams of a Compound File Binary (MS-CFB, "OLE2"): the container of legacy Office files (`.xls`
 * keeps its cells in a `Workbook` stream, `.doc` its text in `WordDocument` and a table stream). A small file
 * system: fixed-size sectors chained through a file allocation table (FAT), a directory of named entries, and
 * small streams packed into 64-byte mini sectors with a chain table of their own.
 *
 * Everything is read from the file's own declarations, so everything is checked: a chain that loops or points
 * outside the file, a stream longer than its chain, or a directory that names itself is a corrupt document. A chain
 * reads distinct sectors, so a sector met twice ends it at once as a loop, and the FAT is read only as far as it maps
 * sectors the file has: the time and memory the structure costs are bounded by the file's sectors, not by the FAT it
 * declares (a 49 MB DOC whose FAT points sector 0 at itself was followed 12 million steps, 1.2 s and over a gigabyte
 * of subarrays, before it was called a loop; it is refused in about a millisecond).
 */
import { DocumentCorruptError } from "../errors.ts";

const SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const END_OF_CHAIN = 0xfffffffe;
const FREE = 0xffffffff;
const NO_STREAM = 0xffffffff;
const HEADER_DIFAT_ENTRIES = 109;

/** Whether `b` starts with the compound file signature. */
export function isCompoundFile(b: Uint8Array): boolean {
  return b.length >= 512 && SIGNATURE.every((x, i) => b[i] === x);
}

interface DirectoryEntry {
  name: string;
  type: number;
  left: number;
  right: number;
  child: number;
  start: number;
  size: number;
}

/** A compound file's root-level streams, read on demand. */
export class CompoundFile {
  private readonly view: DataView;
  private readonly sectorSize: number;
  private readonly sectorCount: number;
  private readonly fat: Uint32Array;
  private readonly entries: DirectoryEntry[];
  private miniFat?: Uint32Array;
  private miniStream?: Uint8Array;

  /** Opens `bytes`; `kind` names the format in errors (`XLS`, `DOC`). */
  constructor(private readonly bytes: Uint8Array, private readonly kind: string) {
    if (!isCompoundFile(bytes)) throw this.corrupt("not a compound file");
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const shift = this.view.getUint16(0x1e, true);
    if (shift !== 9 && shift !== 12) throw this.corrupt(`sector size 2^${shift}`);
    this.sectorSize = 1 << shift;
    this.sectorCount = Math.max(0, Math.floor((bytes.length - this.sectorSize) / this.sectorSize));
    this.fat = this.readFat();
    const directory = this.chain(this.view.getUint32(0x30, true), this.fat, this.sectorCount, (n) => this.sector(n), Infinity);
    this.entries = [];
    for (let at = 0; at + 128 <= directory.length; at += 128) this.entries.push(this.entry(directory, at));
    if (this.entries.length === 0 || this.entries[0]!.type !== 5) throw this.corrupt("no root entry");
  }

  private corrupt(why: string): DocumentCorruptError {
    return new DocumentCorruptError(this.kind, `compound file: ${why}`);
  }

  /** Sector `n`'s bytes; a sector past the end of the file is corrupt. */
  private sector(n: number): Uint8Array {
    if (n >= this.sectorCount) throw this.corrupt(`sector ${n} is past the end of the file`);
    const at = (n + 1) * this.sectorSize;
    return this.bytes.subarray(at, at + this.sectorSize);
  }

  /** The FAT, from the header's DIFAT entries and the DIFAT sector chain. */
  private readFat(): Uint32Array {
    const fatSectors: number[] = [];
    for (let i = 0; i < HEADER_DIFAT_ENTRIES; i++) {
      const n = this.view.getUint32(0x4c + i * 4, true);
      if (n !== FREE && n !== END_OF_CHAIN) fatSectors.push(n);
    }
    const perSector = this.sectorSize / 4;
    const difat = new Uint8Array(this.sectorCount); // the DIFAT sectors read: one met again is a loop
    for (let next = this.view.getUint32(0x44, true); next !== END_OF_CHAIN && next !== FREE; ) {
      if (next >= this.sectorCount) throw this.corrupt(`sector ${next} is past the end of the file`);
      if (difat[next]) throw this.corrupt("the DIFAT chain loops");
      difat[next] = 1;
      const s = this.sector(next);
      const v = new DataView(s.buffer, s.byteOffset, s.byteLength);
      for (let i = 0; i < perSector - 1; i++) {
        const n = v.getUint32(i * 4, true);
        if (n !== FREE && n !== END_OF_CHAIN) fatSectors.push(n);
      }
      if (fatSectors.length > this.sectorCount) throw this.corrupt("more FAT sectors than sectors");
      next = v.getUint32((perSector - 1) * 4, true);
    }
    // A FAT sector named twice is not refused (the header's DIFAT entries are read without its FAT sector count, which
    // a sloppy writer may leave wrong): the table stays at most as large as the file, and a chain through it still
    // reads each sector once.
    if (fatSectors.length > this.sectorCount) throw this.corrupt("more FAT sectors than sectors");
    // Only the FAT sectors that map sectors of the file are read: an entry for a sector past its end could only lead a
    // chain out of the file (a 49 MB file naming 12,000 FAT sectors needs 12 of them). Each is copied byte for byte
    // into the table's own buffer (little-endian, as the file and the hosts crawlbox runs on).
    const used = fatSectors.slice(0, Math.ceil(this.sectorCount / perSector));
    const fat = new Uint32Array(used.length * perSector);
    const fatBytes = new Uint8Array(fat.buffer);
    used.forEach((n, i) => fatBytes.set(this.sector(n), i * this.sectorSize));
    return fat;
  }

  /**
   * The bytes of the chain starting at `start` in `table`, at most `limit` bytes. `units` is how many sectors (or
   * mini sectors) there are to read: a chain reads each at most once, so one met again is a loop, found at its first
   * repeat; and a chain can take no more steps than there are units, however long the table says it is.
   */
  private chain(start: number, table: Uint32Array, units: number, read: (n: number) => Uint8Array, limit: number): Uint8Array {
    const parts: Uint8Array[] = [];
    const seen = new Uint8Array(Math.min(units, table.length));
    let total = 0;
    for (let n = start; n !== END_OF_CHAIN && total < limit; n = table[n]!) {
      if (n >= table.length) throw this.corrupt(`chain points at sector ${n}, outside the table`);
      if (n < seen.length && seen[n]) throw this.corrupt(`a chain loops (it comes back to sector ${n})`);
      const part = read(n); // a unit past the end (n ≥ units) throws here
      seen[n] = 1;
      parts.push(part);
      total += part.length;
    }
    const out = Buffer.concat(parts, total);
    return limit < total ? out.subarray(0, limit) : out;
  }

  private entry(dir: Uint8Array, at: number): DirectoryEntry {
    const v = new DataView(dir.buffer, dir.byteOffset + at, 128);
    const nameBytes = Math.min(64, v.getUint16(64, true));
    let name = "";
    for (let i = 0; i + 1 < nameBytes; i += 2) {
      const c = v.getUint16(i, true);
      if (c === 0) break;
      name += String.fromCharCode(c);
    }
    // Version 3 files (512-byte sectors) may leave junk in the size's high half: only the low 32 bits count.
    const size = this.sectorSize === 512 ? v.getUint32(120, true) : v.getUint32(120, true) + v.getUint32(124, true) * 2 ** 32;
    return { name, type: v.getUint8(66), left: v.getUint32(68, true), right: v.getUint32(72, true), child: v.getUint32(76, true), start: v.getUint32(116, true), size };
  }

  /** The root storage's direct children (a red-black tree of siblings under the root's `child`). */
  private rootChildren(): DirectoryEntry[] {
    const out: DirectoryEntry[] = [];
    const seen = new Set<number>();
    const stack = [this.entries[0]!.child];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (id === NO_STREAM || id >= this.entries.length || seen.has(id)) continue;
      seen.add(id);
      const e = this.entries[id]!;
      out.push(e);
      stack.push(e.left, e.right);
    }
    return out;
  }

  /** The names of the root storage's streams (what kind of file this is: `WordDocument`, `Workbook`…). */
  rootStreamNames(): string[] {
    return this.rootChildren().filter((c) => c.type === 2).map((c) => c.name);
  }

  /** The root-level stream named `name` (case-insensitive, as the format compares names), or undefined. */
  stream(name: string): Uint8Array | undefined {
    const e = this.rootChildren().find((c) => c.type === 2 && c.name.toLowerCase() === name.toLowerCase());
    if (!e) return undefined;
    if (e.size > this.bytes.length * 2) throw this.corrupt(`stream ${name} declares ${e.size} bytes`);
    const cutoff = this.view.getUint32(0x38, true);
    if (e.size < cutoff) return this.mini(e);
    const data = this.chain(e.start, this.fat, this.sectorCount, (n) => this.sector(n), e.size);
    if (data.length < e.size) throw this.corrupt(`stream ${name} is shorter than it declares`);
    return data;
  }

  /** A small stream, from the mini stream (held by the root entry) and the mini FAT. */
  private mini(e: DirectoryEntry): Uint8Array {
    if (e.size === 0) return new Uint8Array(0);
    const root = this.entries[0]!;
    this.miniStream ??= this.chain(root.start, this.fat, this.sectorCount, (n) => this.sector(n), root.size);
    this.miniFat ??= (() => {
      const bytes = this.chain(this.view.getUint32(0x3c, true), this.fat, this.sectorCount, (n) => this.sector(n), this.view.getUint32(0x40, true) * this.sectorSize);
      return new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.byteLength & ~3)));
    })();
    const stream = this.miniStream;
    const data = this.chain(e.start, this.miniFat, Math.floor(stream.length / 64), (n) => {
      if ((n + 1) * 64 > stream.length) throw this.corrupt(`mini sector ${n} is past the mini stream`);
      return stream.subarray(n * 64, (n + 1) * 64);
    }, e.size);
    if (data.length < e.size) throw this.corrupt(`stream ${e.name} is shorter than it declares`);
    return data;
  }
}
