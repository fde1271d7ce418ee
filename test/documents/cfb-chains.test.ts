/**
 * Allocation chains of a compound file (documents/office/cfb.ts), built sector by sector so each test says exactly
 * what the FAT declares. A chain reads distinct sectors: one that comes back to a sector is a loop, refused at its
 * first repeat. Before, a chain was called a loop only after more steps than the FAT has entries (file size / 4),
 * so a 49 MB DOC whose FAT points sector 0 at itself held the main thread (detectKind opens the compound file)
 * 1.2 s and grew the process by a gigabyte; and a loop shorter than the stream's declared size was read round and
 * round into the stream, as if it were its data.
 */
import { describe, expect, test } from "bun:test";
import { CompoundFile } from "../../src/documents/office/cfb.ts";
import { DocumentCorruptError } from "../../src/documents/errors.ts";

const END = 0xfffffffe;
const FREE = 0xffffffff;
const FAT_SECTOR = 0xfffffffd;

/** A header for `shift` (9: 512-byte sectors, 12: 4096) naming `fatSectors` in its DIFAT (at most 109). */
function header(shift: 9 | 12, fields: { fatSectors: number[]; dirStart: number; miniFatStart?: number; miniFatCount?: number; difatStart?: number; difatCount?: number }): Uint8Array {
  const out = new Uint8Array(1 << shift);
  const v = new DataView(out.buffer);
  out.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  v.setUint16(0x18, 0x3e, true);
  v.setUint16(0x1a, shift === 12 ? 4 : 3, true);
  v.setUint16(0x1c, 0xfffe, true);
  v.setUint16(0x1e, shift, true);
  v.setUint16(0x20, 6, true);
  v.setUint32(0x2c, fields.fatSectors.length, true);
  v.setUint32(0x30, fields.dirStart, true);
  v.setUint32(0x38, 4096, true);
  v.setUint32(0x3c, fields.miniFatStart ?? END, true);
  v.setUint32(0x40, fields.miniFatCount ?? 0, true);
  v.setUint32(0x44, fields.difatStart ?? END, true);
  v.setUint32(0x48, fields.difatCount ?? 0, true);
  for (let i = 0; i < 109; i++) v.setUint32(0x4c + i * 4, fields.fatSectors[i] ?? FREE, true);
  return out;
}

/** A 512-byte sector of little-endian 32-bit `entries` (a FAT or mini FAT), the rest FREE. */
function table(entries: number[]): Uint8Array {
  const t = new Uint32Array(128).fill(FREE);
  t.set(entries);
  return new Uint8Array(t.buffer);
}

/** A 512-byte directory sector: the root storage (its mini stream at `rootStart`, `rootSize` bytes) and one stream. */
function directory(stream: { name: string; start: number; size: number }, rootStart = END, rootSize = 0): Uint8Array {
  const out = new Uint8Array(512);
  const v = new DataView(out.buffer);
  const entry = (n: number, name: string, type: number, child: number, start: number, size: number) => {
    const at = n * 128;
    [...name].forEach((c, i) => v.setUint16(at + i * 2, c.charCodeAt(0), true));
    v.setUint16(at + 0x40, (name.length + 1) * 2, true);
    out[at + 0x42] = type;
    v.setUint32(at + 0x44, FREE, true);
    v.setUint32(at + 0x48, FREE, true);
    v.setUint32(at + 0x4c, child, true);
    v.setUint32(at + 0x74, start, true);
    v.setUint32(at + 0x78, size, true);
  };
  entry(0, "Root Entry", 5, 1, rootStart, rootSize);
  entry(1, stream.name, 2, FREE, stream.start, stream.size);
  return out;
}

const file = (parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

describe("compound file chains", () => {
  test("a stream's chain that comes back to a sector within its declared size is corrupt, not its sectors read again", () => {
    // Sector 0: the FAT; 1: the directory; 2 → 3 → 2 → …: the stream, declared 4096 bytes (8 sectors).
    const fat = table([FAT_SECTOR, END, 3, 2]);
    const bytes = file([header(9, { fatSectors: [0], dirStart: 1 }), fat, directory({ name: "Workbook", start: 2, size: 4096 }), new Uint8Array(512).fill(0x41), new Uint8Array(512).fill(0x42)]);
    const cfb = new CompoundFile(bytes, "XLS");
    expect(cfb.rootStreamNames()).toEqual(["Workbook"]);
    expect(() => cfb.stream("Workbook")).toThrow(DocumentCorruptError);
    expect(() => cfb.stream("Workbook")).toThrow(/a chain loops \(it comes back to sector 2\)/);
  });

  test("the same stream with an honest chain reads its sectors in order", () => {
    // 4096 bytes (the mini stream cutoff: a FAT stream) in sectors 2 → 3 → … → 9.
    const fat = table([FAT_SECTOR, END, 3, 4, 5, 6, 7, 8, 9, END]);
    const sectors = Array.from({ length: 8 }, (_, i) => new Uint8Array(512).fill(0x41 + i));
    const bytes = file([header(9, { fatSectors: [0], dirStart: 1 }), fat, directory({ name: "Workbook", start: 2, size: 4096 }), ...sectors]);
    const data = new CompoundFile(bytes, "XLS").stream("Workbook")!;
    expect(data.length).toBe(4096);
    expect([data[0], data[511], data[512], data[4095]]).toEqual([0x41, 0x41, 0x42, 0x48]);
  });

  test("a mini stream chain that comes back to a mini sector is corrupt", () => {
    // Sector 0: FAT; 1: directory; 2: mini FAT (0 → 1 → 0 …); 3: the mini stream (8 mini sectors of 64 bytes).
    const fat = table([FAT_SECTOR, END, END, END]);
    const miniFat = table([1, 0]);
    const mini = new Uint8Array(512).map((_, i) => 0x30 + (i >> 6));
    const bytes = file([header(9, { fatSectors: [0], dirStart: 1, miniFatStart: 2, miniFatCount: 1 }), fat, directory({ name: "WordDocument", start: 0, size: 300 }, 3, 512), miniFat, mini]);
    expect(() => new CompoundFile(bytes, "DOC").stream("WordDocument")).toThrow(/a chain loops \(it comes back to sector 0\)/);
    // An honest mini chain 0 → 1 → … → 4 reads.
    const honest = file([header(9, { fatSectors: [0], dirStart: 1, miniFatStart: 2, miniFatCount: 1 }), fat, directory({ name: "WordDocument", start: 0, size: 300 }, 3, 512), table([1, 2, 3, 4, END]), mini]);
    const data = new CompoundFile(honest, "DOC").stream("WordDocument")!;
    expect([data.length, data[0], data[64], data[299]]).toEqual([300, 0x30, 0x31, 0x34]);
  });

  test("a 49 MB file whose 12,000 FAT sectors point every sector at sector 0 is refused at the first repeat, in milliseconds", () => {
    // 4096-byte sectors, all zero: FAT[n] = 0 for every n, so the directory chain is 0 → 0 → 0 … The FAT declares 12
    // million entries; the old check followed the chain that many steps (1.2 s, +1.1 GB) before calling it a loop.
    const SECTOR = 4096;
    const per = SECTOR / 4;
    const total = 12_000;
    const difatSectors = Math.ceil((total - 109) / (per - 1)) + 1;
    const fatCount = total - difatSectors;
    const fatSectors = Array.from({ length: fatCount }, (_, i) => i);
    const body = new Uint8Array(SECTOR * (1 + total));
    body.set(header(12, { fatSectors: fatSectors.slice(0, 109), dirStart: 0, difatStart: fatCount, difatCount: difatSectors }));
    const v = new DataView(body.buffer);
    let next = 109;
    for (let d = 0; d < difatSectors; d++) {
      const at = SECTOR * (1 + fatCount + d);
      for (let i = 0; i < per - 1; i++) v.setUint32(at + i * 4, next < fatCount ? next++ : FREE, true);
      v.setUint32(at + (per - 1) * 4, d + 1 < difatSectors ? fatCount + d + 1 : END, true);
    }
    expect(body.length).toBeGreaterThan(49_000_000);
    const started = performance.now();
    expect(() => new CompoundFile(body, "DOC")).toThrow(/a chain loops \(it comes back to sector 0\)/);
    const elapsedMs = performance.now() - started;
    // A few ms here (only the 12 FAT sectors that map the file's sectors are read); the old check took 1.2 s.
    expect(elapsedMs).toBeLessThan(300);
  });
});
