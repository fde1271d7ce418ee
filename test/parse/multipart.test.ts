/**
 * The multipart/form-data reader of `POST /v2/parse` (src/parse/multipart.ts): parts and their headers as sent,
 * and, for thousands of generated and mutated bodies, a result or a 4xx error, never anything else.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { CrawlboxError } from "../../src/errors.ts";
import { readMultipart } from "../../src/parse/multipart.ts";

const B = "xYz-boundary";
const req = (body: Uint8Array | string, type = `multipart/form-data; boundary=${B}`) =>
  new Request("http://x/v2/parse", { method: "POST", headers: { "content-type": type }, body: typeof body === "string" ? body : Buffer.from(body) });

const wellFormed = [
  `--${B}\r\nContent-Disposition: form-data; name="options"\r\n\r\n{"formats":["markdown"]}\r\n`,
  `--${B}\r\nContent-Disposition: form-data; name="file"; filename="a \\"b\\".html"\r\nContent-Type: text/html; charset=windows-1252\r\n\r\n<p>hi\r\n--not-the-end</p>\r\n`,
  `--${B}--\r\n`,
].join("");

describe("readMultipart", () => {
  test("keeps each part's name, file name, Content-Type and bytes as sent", async () => {
    const parts = await readMultipart(req(wellFormed), 1 << 20);
    expect(parts.map((p) => [p.name, p.filename, p.contentType, new TextDecoder().decode(p.data)])).toEqual([
      ["options", undefined, "", '{"formats":["markdown"]}'],
      ["file", 'a "b".html', "text/html; charset=windows-1252", "<p>hi\r\n--not-the-end</p>"],
    ]);
  });

  test("filename* (RFC 8187) wins over filename; undecodable or unknown charsets fall back to filename", async () => {
    const part = (disposition: string) => `--${B}\r\nContent-Disposition: form-data; name="file"; ${disposition}\r\n\r\nx\r\n--${B}--\r\n`;
    const nameOf = async (disposition: string) => (await readMultipart(req(part(disposition)), 1 << 20))[0]!.filename;
    expect(await nameOf(`filename="rates.pdf"; filename*=UTF-8''%E2%82%AC%20rates%20%C3%A9t%C3%A9.pdf`)).toBe("€ rates été.pdf");
    expect(await nameOf(`filename*=utf-8'en'Bericht%20%C3%BCber.docx`)).toBe("Bericht über.docx");
    expect(await nameOf(`filename*=iso-8859-1''caf%E9.xlsx`)).toBe("café.xlsx");
    expect(await nameOf(`filename="plain.txt"; filename*=UTF-8''%FF%FE.txt`)).toBe("plain.txt");
    expect(await nameOf(`filename="plain.txt"; filename*=koi8-r''%C1.txt`)).toBe("plain.txt");
    expect(await nameOf(`filename*=UTF-8''${"%41".repeat(200_000)}`)).toBe("A".repeat(200_000));
  });

  test("over the limit: 413, declared or not", async () => {
    await expect(readMultipart(req(wellFormed), 10)).rejects.toMatchObject({ status: 413 });
  });

  test("any body: parts or a 4xx, never another error", async () => {
    const valid = new TextEncoder().encode(wellFormed);
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 400 }),
      fc.tuple(fc.nat(valid.length), fc.nat(valid.length), fc.uint8Array({ maxLength: 20 })).map(([a, b, junk]) => {
        const [i, j] = a < b ? [a, b] : [b, a];
        return new Uint8Array([...valid.subarray(0, i), ...junk, ...valid.subarray(j)]);
      }),
    );
    const type = fc.oneof(fc.constant(`multipart/form-data; boundary=${B}`), fc.constant("multipart/form-data"), fc.string({ maxLength: 60 }).map((s) => `multipart/form-data; boundary=${s}`));
    await fc.assert(
      fc.asyncProperty(body, type, async (b, t) => {
        try {
          const parts = await readMultipart(req(b, t), 1 << 20);
          expect(Array.isArray(parts)).toBe(true);
        } catch (err) {
          expect(err).toBeInstanceOf(CrawlboxError);
          expect((err as CrawlboxError).status).toBeGreaterThanOrEqual(400);
          expect((err as CrawlboxError).status).toBeLessThan(500);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
