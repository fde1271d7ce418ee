/**
 * Binary bodies served as text (documents/detect.ts): a gzip body without `Content-Encoding`, random bytes, a
 * brotli stream or an executable labelled `text/html` gave a 200 of junk markdown. They are the 422
 * SCRAPE_UNSUPPORTED_FILE_ERROR naming what the bytes are, as any known binary kind served as text is. Text in
 * UTF-16 (with a BOM, or declared by the header), ISO-2022-JP (which uses ESC), Shift_JIS and windows-1252 is
 * still read.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { brotliCompressSync } from "node:zlib";
import { detectKind, mostlyBinary, sniffBytes } from "../../src/documents/detect.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

/** Deterministic noise (xorshift32): what compressed or encrypted data looks like, the same on every run. */
function noise(length: number, seed = 0x9e3779b9): Uint8Array {
  const out = new Uint8Array(length);
  let x = seed >>> 0;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

const enc = (s: string) => new TextEncoder().encode(s);
const HTML = `<html><head><title>Words</title></head><body><main><p>${"compressed words about kettles ".repeat(40)}</p></main></body></html>`;
const utf16le = (s: string, bom: boolean) => {
  const body = Buffer.from(s, "utf16le");
  return new Uint8Array(bom ? Buffer.concat([Buffer.from([0xff, 0xfe]), body]) : body);
};
/** "日本語のページ" in ISO-2022-JP: ESC $ B … ESC ( B around the JIS X 0208 bytes. */
const ISO_2022_JP = new Uint8Array([
  ...enc("<html><body><main><p>"),
  ...[0x1b, 0x24, 0x42, 0x46, 0x7c, 0x4b, 0x5c, 0x38, 0x6c, 0x24, 0x4e, 0x25, 0x5a, 0x21, 0x3c, 0x25, 0x38, 0x1b, 0x28, 0x42],
  ...enc(` ${"Nihongo text. ".repeat(30)}</p></main></body></html>`),
]);
/** A minimal PE header: "MZ", e_lfanew = 0x80 at 0x3C, "PE\0\0" there. */
const PE = (() => {
  const b = new Uint8Array(0x200);
  b.set(enc("MZ"), 0);
  new DataView(b.buffer).setUint32(0x3c, 0x80, true);
  b.set(enc("PE\0\0"), 0x80);
  return b;
})();

describe("sniffBytes: compressed streams, archives and executables", () => {
  test.each([
    ["gzip", Bun.gzipSync(enc(HTML))],
    ["zstd", Bun.zstdCompressSync(enc(HTML))],
    ["xz", new Uint8Array([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04])],
    ["bzip2", new Uint8Array([...enc("BZh9"), 0x31, 0x41, 0x59, 0x26, 0x53, 0x59, 1, 2])],
    ["7z", new Uint8Array([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0, 4])],
    ["rar", new Uint8Array([...enc("Rar!"), 0x1a, 0x07, 0x01, 0x00])],
    ["lz4", new Uint8Array([0x04, 0x22, 0x4d, 0x18, 0x64, 0x40])],
    ["elf", new Uint8Array([0x7f, ...enc("ELF"), 2, 1, 1, 0])],
    ["exe", PE],
    ["mach-o", new Uint8Array([0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1])],
    ["wasm", new Uint8Array([0, ...enc("asm"), 1, 0, 0, 0])],
    ["sqlite", enc("SQLite format 3\0 rest of the header")],
  ])("%s", (kind, bytes) => {
    expect(sniffBytes(bytes)).toBe(kind as never);
  });

  test("texts that begin like one of them stay unknown", () => {
    for (const text of ["BZh9 is a bzip2 header", "MZ-80 home computers", "MZ" + "x".repeat(100), "Rar! said the dog"]) expect(sniffBytes(enc(text))).toBe("unknown");
  });
});

describe("detectKind: a body labelled as text that is not", () => {
  const kind = (body: Uint8Array, contentType = "text/html", charset?: string) => detectKind({ body, contentType, ...(charset ? { charset } : {}) });

  test("noise and brotli are binary; whatever their first bytes", () => {
    expect(kind(noise(50_000))).toBe("binary");
    expect(kind(new Uint8Array(brotliCompressSync(enc(HTML))))).toBe("binary");
    expect(kind(noise(4096), "text/plain")).toBe("binary");
    expect(kind(noise(4096), "")).toBe("binary");
  });

  test("text in UTF-16 (BOM or declared), ISO-2022-JP, Shift_JIS, windows-1252 is not", () => {
    expect(kind(utf16le(HTML, true))).toBe("unknown");
    expect(kind(utf16le(HTML, false), "text/html", "utf-16le")).toBe("unknown");
    expect(kind(ISO_2022_JP)).toBe("unknown");
    expect(kind(new Uint8Array([...enc("<p>"), 0x93, 0xfa, 0x96, 0x7b, ...enc("</p>")]))).toBe("unknown");
    expect(kind(new Uint8Array(Buffer.from("<p>café crème brûlée\f page two\x1b</p>", "latin1")))).toBe("unknown");
    // A stray NUL or two in a broken page is still a page.
    expect(kind(enc(`<p>${"text ".repeat(100)}\0</p>\0`))).toBe("unknown");
  });

  test("a type that is not text keeps its meaning (media without a known magic number)", () => {
    expect(kind(noise(4096), "audio/aac")).toBe("audio");
    expect(kind(noise(4096), "application/octet-stream")).toBe("unknown");
  });

  test("mostlyBinary counts WHATWG binary data bytes in the first KiB", () => {
    expect(mostlyBinary(new Uint8Array(2000).fill(0x41))).toBe(false);
    expect(mostlyBinary(new Uint8Array([...new Uint8Array(1024).fill(0x41), ...new Uint8Array(500)]))).toBe(false);
    expect(mostlyBinary(new Uint8Array([0x41, 0x01, 0x41, 0x02]))).toBe(true);
  });
});

describe("through the API", () => {
  let h: Harness;
  let site: ReturnType<typeof Bun.serve>;
  const bodies: Record<string, [Uint8Array, string]> = {
    "/gz": [Bun.gzipSync(enc(HTML)), "text/html"],
    "/noise": [noise(50_000), "text/html"],
    "/br": [new Uint8Array(brotliCompressSync(enc(HTML))), "text/html; charset=utf-8"],
    "/elf": [new Uint8Array([0x7f, ...enc("ELF"), 2, 1, 1, 0, ...noise(2000)]), "text/plain"],
    "/utf16-bom": [utf16le(HTML, true), "text/html"],
    "/utf16-header": [utf16le(HTML, false), "text/html; charset=utf-16le"],
    "/iso-2022-jp": [ISO_2022_JP, "text/html; charset=iso-2022-jp"],
  };
  beforeAll(async () => {
    site = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(req) {
        const [body, type] = bodies[new URL(req.url).pathname]!;
        return new Response(body as Uint8Array<ArrayBuffer>, { headers: { "content-type": type } });
      },
    });
    h = await createHarness();
  });
  afterAll(async () => {
    await h.close();
    site.stop(true);
  });
  const scrape = async (path: string) => {
    const res = await h.request("/v2/scrape", { method: "POST", json: { url: `http://127.0.0.1:${site.port}${path}`, formats: ["markdown"], maxAge: 0 } });
    return { status: res.status, body: (await res.json()) as any };
  };

  test.each([
    ["/gz", "text/html (the bytes are gzip)"],
    ["/noise", "text/html (the bytes are binary)"],
    ["/br", "text/html (the bytes are binary)"],
    ["/elf", "text/plain (the bytes are elf)"],
  ])("%s → 422 SCRAPE_UNSUPPORTED_FILE_ERROR naming what the bytes are", async (path, named) => {
    const r = await scrape(path);
    expect([r.status, r.body.success, r.body.code]).toEqual([422, false, "SCRAPE_UNSUPPORTED_FILE_ERROR"]);
    expect(r.body.error).toBe(`Unsupported file type: ${named}`);
  });

  test.each(["/utf16-bom", "/utf16-header"])("%s: UTF-16 HTML is read", async (path) => {
    const r = await scrape(path);
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain("compressed words about kettles");
  });

  test("ISO-2022-JP HTML is read", async () => {
    const r = await scrape("/iso-2022-jp");
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain("日本語のページ");
  });
});
