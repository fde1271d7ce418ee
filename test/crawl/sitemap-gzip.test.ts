/**
 * A gzip sitemap's bytes inflated (crawl/sitemap-body.ts `gunzipPrefix`, `sitemapBody`): junk after the data, a
 * second member, a file cut short and a bomb. Bun's streaming `node:zlib` gunzip lost the last 64 KiB slice's
 * output when junk followed the data, and refused a small file with junk outright; every listed page must stay.
 */
import { describe, expect, test } from "bun:test";
import { gunzipPrefix, MAX_SITEMAP_BYTES, SitemapGzipError, sitemapBody } from "../../src/crawl/sitemap-body.ts";
import { parseSitemap } from "../../src/crawl/sitemap.ts";

const urlset = (n: number, tag: string) => `<urlset>${Array.from({ length: n }, (_, i) => `<url><loc>https://example.com/${tag}/${i}/${(i * 7919) % 10007}</loc></url>`).join("\n")}</urlset>`;
const text = urlset(20_000, "p");
const gz = Bun.gzipSync(new TextEncoder().encode(text));
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("gunzipPrefix", () => {
  test("junk after the gzip data: every byte of the data is kept", async () => {
    for (const junk of ["garbage appended by the server\n", "\0".repeat(100), "<html>x</html>"]) {
      const r = await gunzipPrefix(Buffer.concat([gz, Buffer.from(junk)]), MAX_SITEMAP_BYTES);
      expect(r.cut).toBe(false);
      expect(decode(r.bytes)).toBe(text);
    }
  });

  test("a small file with junk after it is read, not refused", async () => {
    const small = "<urlset><url><loc>https://example.com/a</loc></url></urlset>";
    const r = await gunzipPrefix(Buffer.concat([Bun.gzipSync(new TextEncoder().encode(small)), Buffer.from("junk")]), MAX_SITEMAP_BYTES);
    expect(decode(r.bytes)).toBe(small);
  });

  test("a file of two gzip members gives both", async () => {
    const second = urlset(10, "q");
    const r = await gunzipPrefix(Buffer.concat([gz, Bun.gzipSync(new TextEncoder().encode(second))]), MAX_SITEMAP_BYTES);
    expect(decode(r.bytes)).toBe(text + second);
  });

  test("a file cut short gives the part it holds", async () => {
    const r = await gunzipPrefix(gz.subarray(0, gz.byteLength >> 1), MAX_SITEMAP_BYTES);
    const held = decode(r.bytes);
    expect(held.length).toBeGreaterThan(text.length / 4);
    expect(text.startsWith(held)).toBe(true);
  });

  test("a bomb stops at the cap, reported as cut", async () => {
    const bomb = Bun.gzipSync(new Uint8Array(64 * 1024 * 1024));
    const r = await gunzipPrefix(bomb, 1024 * 1024);
    expect(r.bytes.byteLength).toBe(1024 * 1024);
    expect(r.cut).toBe(true);
  });

  test("bytes that only look like gzip are refused with the sitemap's own error", async () => {
    const err = await gunzipPrefix(Uint8Array.from([0x1f, 0x8b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), MAX_SITEMAP_BYTES).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SitemapGzipError);
    expect((err as SitemapGzipError).code).toBe("SITEMAP_GZIP_ERROR");
  });
});

test("sitemapBody: a .xml.gz with junk after it lists all its pages", async () => {
  const body = await sitemapBody(Buffer.concat([gz, Buffer.from("trailing junk")]), "application/gzip");
  expect(parseSitemap(body.text!).urls.length).toBe(20_000);
});
