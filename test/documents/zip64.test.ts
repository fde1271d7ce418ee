/**
 * documents/office/unzip.ts reads ZIP64 archives: the ZIP64 end record (named by its locator) and entries whose sizes
 * and local header offsets are in the ZIP64 extra field, as some writers produce for every file however small. A
 * document in that form converts exactly as the same parts in a plain zip do.
 */
import { describe, expect, test } from "bun:test";
import { deflateSync, strToU8, unzipSync } from "fflate";
import { docxToBlocks } from "../../src/documents/office/docx.ts";
import { unzipParts } from "../../src/documents/office/unzip.ts";
import { buildDocx } from "../fixtures/documents/fixtures.ts";

/** A ZIP64 archive of `files`: every size and offset at 0xffffffff with its 8-byte value in the extra field. */
function zip64(files: Record<string, Uint8Array>, options: { deflate?: boolean; locator?: boolean } = {}): Uint8Array {
  const out: number[] = [];
  const u16 = (n: number) => out.push(n & 0xff, (n >>> 8) & 0xff);
  const u32 = (n: number) => {
    u16(n & 0xffff);
    u16(n >>> 16);
  };
  const u64 = (n: number) => {
    u32(n % 2 ** 32);
    u32(Math.floor(n / 2 ** 32));
  };
  const bytes = (b: Uint8Array) => out.push(...b);
  const central: { name: Uint8Array; method: number; crc: number; size: number; compressed: number; offset: number }[] = [];
  for (const [name, data] of Object.entries(files)) {
    const method = options.deflate === false ? 0 : 8;
    const body = method === 8 ? deflateSync(data) : data;
    const entry = { name: strToU8(name), method, crc: Bun.hash.crc32(data), size: data.length, compressed: body.length, offset: out.length };
    central.push(entry);
    u32(0x04034b50), u16(45), u16(0), u16(method), u16(0), u16(0), u32(entry.crc), u32(0xffffffff), u32(0xffffffff);
    u16(entry.name.length), u16(20), bytes(entry.name);
    u16(0x0001), u16(16), u64(entry.size), u64(entry.compressed);
    bytes(body);
  }
  const cdStart = out.length;
  for (const e of central) {
    u32(0x02014b50), u16(45), u16(45), u16(0), u16(e.method), u16(0), u16(0), u32(e.crc), u32(0xffffffff), u32(0xffffffff);
    u16(e.name.length), u16(4 + 24 + 8), u16(0), u16(0), u16(0), u32(0), u32(0xffffffff), bytes(e.name);
    // Another extra field first: the ZIP64 one is found by its id, wherever it stands.
    u16(0x5455), u16(4), u32(0);
    u16(0x0001), u16(24), u64(e.size), u64(e.compressed), u64(e.offset);
  }
  const cdSize = out.length - cdStart;
  const record = out.length;
  u32(0x06064b50), u64(44), u16(45), u16(45), u32(0), u32(0), u64(central.length), u64(central.length), u64(cdSize), u64(cdStart);
  if (options.locator !== false) u32(0x07064b50), u32(0), u64(record), u32(1);
  u32(0x06054b50), u16(0), u16(0), u16(0xffff), u16(0xffff), u32(0xffffffff), u32(0xffffffff), u16(0);
  return new Uint8Array(out);
}

describe("ZIP64 office documents", () => {
  test("a DOCX written as ZIP64 (deflated or stored) converts as the same parts in a plain zip", () => {
    const plain = buildDocx();
    const parts = unzipSync(plain);
    const expected = JSON.stringify(docxToBlocks(plain));
    expect(expected).toContain("Project Handbook");
    for (const deflate of [true, false]) {
      const wide = zip64(parts, { deflate });
      expect(JSON.stringify(docxToBlocks(wide))).toBe(expected);
      const read = unzipParts(wide, "DOCX", (n) => n === "word/document.xml");
      expect(read["word/document.xml"]).toEqual(parts["word/document.xml"]!);
    }
  });

  test("damaged ZIP64 structures are a corrupt document, not a crash", () => {
    const parts = { "word/document.xml": strToU8("<w:document/>") };
    // The end record says ZIP64 but the locator is missing: the 0xffff count is read as is and the directory is not there.
    expect(() => unzipParts(zip64(parts, { locator: false }), "DOCX", () => true)).toThrow(/DOCX/);
    // The locator names a record past the end.
    const cut = zip64(parts);
    const view = new DataView(cut.buffer);
    view.setBigUint64(cut.length - 22 - 20 + 8, 10n ** 9n, true);
    expect(() => unzipParts(cut, "DOCX", () => true)).toThrow(/damaged ZIP64 end of central directory/);
    // An entry at 0xffffffff whose extra field was removed.
    const bare = zip64(parts);
    const cd = new DataView(bare.buffer);
    for (let i = 0; i < bare.length - 4; i++) {
      if (cd.getUint32(i, true) === 0x02014b50) {
        cd.setUint16(i + 30, 0, true);
        break;
      }
    }
    expect(() => unzipParts(bare, "DOCX", () => true)).toThrow(/DOCX/);
    // The entry's extra field ends inside its ZIP64 field: the values are not read from what follows it.
    const short = zip64(parts);
    const sv = new DataView(short.buffer);
    for (let i = 0; i < short.length - 4; i++) {
      if (sv.getUint32(i, true) === 0x02014b50) {
        sv.setUint16(i + 30, 8 + 4, true);
        break;
      }
    }
    expect(() => unzipParts(short, "DOCX", () => true)).toThrow(/damaged ZIP64 extra field/);
  });
});
