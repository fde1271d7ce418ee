/**
 * Unit tests of the document pieces: magic-byte detection, line joining, furniture removal, OCR size
 * estimation, language mapping, and the OCR pool surviving a crashing worker.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { sniffBytes } from "../../src/documents/detect.ts";
import { joinLines } from "../../src/documents/layout/blocks.ts";
import { removeFurniture } from "../../src/documents/layout/furniture.ts";
import type { PageText, TextLine } from "../../src/documents/layout/model.ts";
import { ocrLanguages } from "../../src/documents/ocr/languages.ts";
import { createOcrPool } from "../../src/documents/ocr/pool.ts";
import { tsvToLines, wordEm } from "../../src/documents/ocr/tsv.ts";
import { unzipParts } from "../../src/documents/office/unzip.ts";
import { docxToBlocks } from "../../src/documents/office/docx.ts";
import { deflateSync, zipSync } from "fflate";
import { parseDuration } from "../../src/documents/media/extract-audio.ts";
import { assertOcrPixels, MAX_OCR_PIXELS, renderScale, webpSize } from "../../src/documents/pixel-limit.ts";
import { declaredWebp } from "../fixtures/documents/fixtures.ts";

const enc = (s: string) => new TextEncoder().encode(s);

describe("detection by magic bytes", () => {
  test("kinds", () => {
    expect(sniffBytes(enc("%PDF-1.7\n"))).toBe("pdf");
    expect(sniffBytes(enc("junk\r\n%PDF-1.4\n"))).toBe("pdf");
    expect(sniffBytes(enc("<br />\n<b>Notice</b>: Undefined index in report.php<br />\n%PDF-1.4\n"))).toBe("pdf");
    // Ordinary text that merely looks like a magic number is not a document.
    expect(sniffBytes(enc("<!doctype html><p>A PDF file starts with %PDF-1.7 and ends with %%EOF.</p>"))).toBe("unknown");
    expect(sniffBytes(enc("BMI,height,weight\n22.5,180,73\n24.1,175,74\n"))).toBe("unknown");
    const bmp = new Uint8Array(60);
    bmp.set(enc("BM"), 0);
    new DataView(bmp.buffer).setUint32(14, 40, true);
    expect(sniffBytes(bmp)).toBe("bmp");
    expect(sniffBytes(enc("\n\n%PDF-1.4"))).toBe("pdf");
    expect(sniffBytes(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 13, 10]))).toBe("png");
    expect(sniffBytes(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]))).toBe("jpeg");
    expect(sniffBytes(enc("RIFF\0\0\0\0WEBPVP8 "))).toBe("webp");
    expect(sniffBytes(enc("RIFF\0\0\0\0WAVEfmt "))).toBe("audio");
    expect(sniffBytes(enc("{\\rtf1\\ansi hello}"))).toBe("rtf");
    expect(sniffBytes(enc("ID3\x04\0\0"))).toBe("audio");
    expect(sniffBytes(enc("\0\0\0\x20ftypisom"))).toBe("video");
    expect(sniffBytes(enc("\0\0\0\x20ftypM4A "))).toBe("audio");
    expect(sniffBytes(enc("<html><body>hi</body></html>"))).toBe("unknown");
    // A text's byte order mark is text (FF FE also looks like an MPEG audio frame's sync).
    expect(sniffBytes(new Uint8Array([0xff, 0xfe, 0x3c, 0x00, 0x68, 0x00]))).toBe("unknown");
    expect(sniffBytes(new Uint8Array([0xfe, 0xff, 0x00, 0x3c, 0x00, 0x68]))).toBe("unknown");
    expect(sniffBytes(new Uint8Array([0xef, 0xbb, 0xbf, 0x25, 0x50, 0x44, 0x46, 0x2d]))).toBe("unknown");
  });
});

describe("layout helpers", () => {
  test("hyphenation repair only before a lower-case letter", () => {
    expect(joinLines("infra-", "structure grew")).toBe("infrastructure grew");
    expect(joinLines("north-", "East")).toBe("north- East");
    expect(joinLines("soft\u00ad", "ware")).toBe("software");
    expect(joinLines("one", "two")).toBe("one two");
  });

  const line = (text: string, y: number): TextLine => ({ x0: 72, x1: 300, y0: y, y1: y + 12, text, size: 10, bold: false, italic: false, mono: false });
  const page = (n: number, lines: TextLine[]): PageText => ({ number: n, width: 612, height: 792, lines, source: "text" });

  test("running headers repeated on most pages and page numbers are dropped; body text stays", () => {
    const pages = [1, 2, 3].map((n) => page(n, [line("Company Confidential", 30), line(`Body of page ${n}`, 300), line(`${n}`, 760)]));
    const out = removeFurniture(pages);
    expect(out.map((p) => p.lines.map((l) => l.text))).toEqual([["Body of page 1"], ["Body of page 2"], ["Body of page 3"]]);
  });

  test("a header that appears once is kept", () => {
    const out = removeFurniture([page(1, [line("Title at the top", 30)]), page(2, [line("Other text", 300)])]);
    expect(out[0]!.lines).toHaveLength(1);
  });
});

describe("pixel limit", () => {
  /** A RIFF/WEBP file whose first chunk is `chunk` with `payload`. */
  const webp = (chunk: string, payload: number[]) => new Uint8Array([...enc("RIFF"), 0, 0, 0, 0, ...enc("WEBP"), ...enc(chunk), payload.length, 0, 0, 0, ...payload]);

  test("WebP sizes from the header of each kind (lossy, lossless, extended); anything else is unreadable", () => {
    // VP8: frame tag (3 bytes), start code 9d 01 2a, 14-bit width and height, little-endian.
    expect(webpSize(webp("VP8 ", [0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0xe0, 0x01]))).toEqual({ width: 640, height: 480 });
    // VP8X: flags (4 bytes), then canvas width − 1 and height − 1 as 24-bit little-endian.
    expect(webpSize(webp("VP8X", [0, 0, 0, 0, 0x7f, 0x1f, 0x00, 0x9f, 0x0f, 0x00]))).toEqual({ width: 8064, height: 4000 });
    expect(webpSize(declaredWebp(16_000, 9_000))).toEqual({ width: 16_000, height: 9_000 });
    expect(webpSize(declaredWebp(1, 1))).toEqual({ width: 1, height: 1 });
    expect(webpSize(webp("VP8 ", [0x10, 0x02, 0x00, 0x00, 0x00, 0x00, 0x80, 0x02, 0xe0, 0x01]))).toBeUndefined(); // no start code
    expect(webpSize(webp("ALPH", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]))).toBeUndefined();
    expect(webpSize(enc("RIFF....WEBP"))).toBeUndefined();
    expect(webpSize(new Uint8Array(64))).toBeUndefined();
  });

  test("pages render at their dpi up to the limit, and larger pages at the scale that fits it", () => {
    expect(renderScale(595, 842, 600)).toBe(600 / 72); // A4 at 600 dpi: 34.8 MP
    expect(renderScale(612, 792, 200)).toBe(200 / 72);
    const s = renderScale(11_000, 11_000, 200);
    expect(s).toBeLessThan(200 / 72);
    expect(Math.ceil(11_000 * s) ** 2).toBeLessThanOrEqual(MAX_OCR_PIXELS);
    expect(Math.ceil(11_000 * s) ** 2).toBeGreaterThan(MAX_OCR_PIXELS * 0.99);
    const wide = renderScale(14_400, 200, 600);
    expect(Math.ceil(14_400 * wide) * Math.ceil(200 * wide)).toBeLessThanOrEqual(MAX_OCR_PIXELS);
    expect(renderScale(0, 0, 300)).toBe(300 / 72);
  });

  test("images over the limit are refused with their size", () => {
    expect(() => assertOcrPixels({ width: 8000, height: 6000 })).not.toThrow(); // a 48 MP phone photo
    expect(() => assertOcrPixels({ width: 8000, height: 6251 })).toThrow(expect.objectContaining({ code: "SCRAPE_OCR_IMAGE_TOO_LARGE", status: 422 }));
  });
});

describe("OCR helpers", () => {
  test("em size from word height and letters", () => {
    expect(wordEm("Invoice", 72)).toBeCloseTo(100, 0);
    expect(wordEm("ocean", 52)).toBeCloseTo(100, 0);
    expect(wordEm("quantity", 94)).toBeCloseTo(100, 0);
  });

  test("low-confidence words: kept with a letter or digit in a well-read line, dropped otherwise", () => {
    // level page block par line word left top width height conf text (tesseract's TSV columns)
    const row = (line: number, word: number, conf: number, text: string) => `5\t1\t1\t1\t${line}\t${word}\t${word * 60}\t${line * 40}\t50\t20\t${conf}\t${text}`;
    const tsv = [
      "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext",
      row(1, 1, 96, "char"), row(1, 2, 12, "description[ASN1_MAX_ERROR_SIZE]"), row(1, 3, 4, "|"), row(1, 4, 91, "buffer;"),
      row(2, 1, 15, "ZER2R"), row(2, 2, 9, "733822"), row(2, 3, 31, "Ad"),
    ].join("\n");
    const lines = tsvToLines(tsv, 1);
    expect(lines.map((l) => l.text)).toEqual(["char description[ASN1_MAX_ERROR_SIZE] buffer;", "Ad"]);
  });

  test("location.languages → tesseract codes with data, English fallback", () => {
    expect(ocrLanguages(["de-DE", "en"], ["eng", "deu"])).toBe("deu+eng");
    expect(ocrLanguages(["fr"], ["eng"])).toBe("eng");
    expect(ocrLanguages(undefined, ["eng"])).toBe("eng");
  });

  test("ffmpeg duration parsing", () => {
    expect(parseDuration("  Duration: 00:01:02.50, start: 0")).toBeCloseTo(62.5);
    expect(parseDuration("no duration")).toBeUndefined();
  });
});

describe("office unzip bounds (zip bombs)", () => {
  const bomb = (bytes: number) => zipSync({ "word/document.xml": new Uint8Array(bytes).fill(0x20), "other/big.bin": new Uint8Array(bytes).fill(1) }, { level: 9 });

  test("the decompressed size of the kept parts is capped", () => {
    const zip = bomb(2_000_000); // ~4 KB compressed
    expect(zip.byteLength).toBeLessThan(20_000);
    expect(() => unzipParts(zip, "DOCX", (n) => n.startsWith("word/"), 1_000_000)).toThrow(/decompressed document/);
    // Parts not kept do not count.
    expect(Object.keys(unzipParts(zip, "DOCX", (n) => n.startsWith("word/"), 3_000_000))).toEqual(["word/document.xml"]);
  });

  test("a header that declares less than its part inflates to stops the read at once, not after inflating it all", () => {
    const zip = zipSync({ "word/document.xml": new Uint8Array(64 * 1024 * 1024) }, { level: 9 }); // ~64 KB of zeros
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    view.setUint32(22, 1000, true); // local header: uncompressed size
    const central = zip.findLastIndex((_, i) => i + 4 <= zip.byteLength && view.getUint32(i, true) === 0x02014b50);
    view.setUint32(central + 24, 1000, true); // central directory: uncompressed size
    const started = performance.now();
    expect(() => unzipParts(zip, "DOCX", () => true)).toThrow(/inflates past the 1000 bytes its header declares/);
    expect(performance.now() - started).toBeLessThan(500); // inflating all of it takes 1-2 s
  });

  test("the DOCX parser goes through the bound (a part over 32 MiB is refused)", () => {
    const big = zipSync({ "word/document.xml": new Uint8Array(33 * 1024 * 1024).fill(0x20) }, { level: 1 });
    expect(() => docxToBlocks(big)).toThrow(/decompressed document/);
  });
});

/**
 * A zip as streaming writers (Java's ZipOutputStream, LibreOffice, Python on a pipe) make it: every entry with
 * general-purpose flag bit 3, sizes 0 in its local header and a data descriptor after its data; the sizes are in
 * the central directory only. `stored` entries are written as they are (method 0), the others deflated.
 */
function zipWithDataDescriptors(entries: [string, Uint8Array, "stored" | "deflated"][]): Uint8Array {
  const out: number[] = [];
  const central: number[] = [];
  const u16 = (a: number[], v: number) => a.push(v & 0xff, (v >>> 8) & 0xff);
  const u32 = (a: number[], v: number) => a.push(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff);
  for (const [name, content, how] of entries) {
    const data = how === "stored" ? content : deflateSync(content);
    const method = how === "stored" ? 0 : 8;
    const nameBytes = enc(name);
    const offset = out.length;
    u32(out, 0x04034b50); u16(out, 20); u16(out, 8); u16(out, method); u32(out, 0); u32(out, 0); u32(out, 0); u32(out, 0);
    u16(out, nameBytes.length); u16(out, 0); out.push(...nameBytes);
    for (const b of data) out.push(b);
    u32(out, 0x08074b50); u32(out, 0); u32(out, data.length); u32(out, content.length);
    u32(central, 0x02014b50); u16(central, 20); u16(central, 20); u16(central, 8); u16(central, method); u32(central, 0); u32(central, 0);
    u32(central, data.length); u32(central, content.length); u16(central, nameBytes.length); u16(central, 0); u16(central, 0); u16(central, 0); u16(central, 0);
    u32(central, 0); u32(central, offset); central.push(...nameBytes);
  }
  const cdOffset = out.length;
  out.push(...central);
  u32(out, 0x06054b50); u16(out, 0); u16(out, 0); u16(out, entries.length); u16(out, entries.length); u32(out, central.length); u32(out, cdOffset); u16(out, 0);
  return new Uint8Array(out);
}

describe("office unzip reads the central directory", () => {
  test("entries with data descriptors, and a media entry whose bytes hold zip signatures, are read as written", () => {
    // Incompressible bytes (as a picture's are): deflate stores them as they are, signatures included.
    const media = crypto.getRandomValues(new Uint8Array(4096));
    media.set(enc("PK\x03\x04"), 100);
    media.set(enc("PK\x07\x08"), 900);
    media.set(enc("PK\x01\x02"), 2000);
    const document = enc('<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Hello descriptors</w:t></w:r></w:p></w:body></w:document>');
    const zip = zipWithDataDescriptors([
      ["[Content_Types].xml", enc("<Types/>"), "deflated"],
      ["word/media/image1.png", media, "deflated"],
      ["word/media/image2.png", media, "stored"],
      ["word/document.xml", document, "deflated"],
    ]);
    const parts = unzipParts(zip, "DOCX", (n) => n === "word/document.xml");
    expect(new TextDecoder().decode(parts["word/document.xml"])).toContain("Hello descriptors");
    expect(JSON.stringify(docxToBlocks(zip).blocks)).toContain("Hello descriptors");
  });
});

describe("OCR pool", () => {
  test("a crashing worker fails its job, is replaced, and never takes the process down", async () => {
    const errors: string[] = [];
    const pool = createOcrPool({ size: 1, tessdataDir: "", workerPath: join(import.meta.dir, "../fixtures/documents/crashing-worker.ts"), onWorkerError: (m) => errors.push(m) });
    await expect(pool.recognize(new Uint8Array(8), "eng")).rejects.toMatchObject({ code: "SCRAPE_OCR_FAILED" });
    expect(pool.liveWorkers).toBe(0);
    await expect(pool.recognize(new Uint8Array(8), "eng")).rejects.toMatchObject({ code: "SCRAPE_OCR_FAILED" });
    expect(errors.length).toBe(2);
    await pool.close();
  });

  test("a job aborted while it runs stops its worker (recognition would hold the slot for nobody)", async () => {
    const errors: string[] = [];
    const pool = createOcrPool({ size: 1, tessdataDir: "", workerPath: join(import.meta.dir, "../fixtures/documents/spinning-worker.ts"), onWorkerError: (m) => errors.push(m) });
    const controller = new AbortController();
    const running = pool.recognize(new Uint8Array(8), "eng", controller.signal).catch((e: unknown) => e);
    await Bun.sleep(200);
    expect(pool.liveWorkers).toBe(1);
    controller.abort(new Error("timed out"));
    expect(String(await running)).toContain("timed out");
    expect(pool.liveWorkers).toBe(0);
    expect(errors).toEqual([]); // an abort is not a worker failure
    await pool.close();
  });

  test("workers are created lazily, capped at the pool size, and reused", async () => {
    const { renderRunsToPng } = await import("../fixtures/documents/pdf-builder.ts");
    const png = await renderRunsToPng([{ text: "Hello pool", x: 20, y: 40, size: 20 }], 150, 200, 60);
    const pool = createOcrPool({ size: 1, tessdataDir: "" });
    expect(pool.liveWorkers).toBe(0);
    const results = await Promise.all([pool.recognize(png, "eng"), pool.recognize(png, "eng")]);
    expect(results.every((r) => r.includes("Hello"))).toBe(true);
    expect(pool.liveWorkers).toBe(1);
    const aborted = new AbortController();
    aborted.abort(new Error("gone"));
    await expect(pool.recognize(png, "eng", aborted.signal)).rejects.toThrow("gone");
    await pool.close();
  }, 30_000);
});
