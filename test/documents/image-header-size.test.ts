/**
 * The sizes images declare in their headers (documents/image/header-size.ts), read in TypeScript for every kind the
 * image parser takes, with crafted headers in both byte orders and every header variant the readers accept.
 * image-too-large.test.ts sends the huge ones through the API.
 */
import { describe, expect, test } from "bun:test";
import { bmpSize, declaredImageSize, gifSize, jpegSize, pngSize, tiffSize, webpSize } from "../../src/documents/image/header-size.ts";
import { be16, be32, bmp, bytes, gif, jpeg, le16, le32, tiff } from "../fixtures/documents/image-headers.ts";

describe("image header sizes", () => {
  test("GIF: the logical screen", () => {
    expect(gifSize(gif(65_535, 65_535))).toEqual({ width: 65_535, height: 65_535 });
    expect(gifSize(bytes("GIF87a", [...le16(640), ...le16(480), 0, 0, 0]))).toEqual({ width: 640, height: 480 });
    expect(gifSize(bytes("GIF89"))).toBeUndefined();
  });

  test("TIFF: the first directory's ImageWidth and ImageLength, either byte order, SHORT or LONG", () => {
    expect(tiffSize(tiff(30_000, 30_000, "II"))).toEqual({ width: 30_000, height: 30_000 });
    expect(tiffSize(tiff(30_000, 20_000, "MM"))).toEqual({ width: 30_000, height: 20_000 });
    expect(tiffSize(tiff(1_200, 900, "II", 3))).toEqual({ width: 1_200, height: 900 });
    expect(tiffSize(tiff(1_200, 900, "MM", 3))).toEqual({ width: 1_200, height: 900 });
    // A directory offset past the end, or a directory cut short before the sizes.
    const lying = tiff(10, 10, "II");
    lying.set(le32(1_000_000), 4);
    expect(tiffSize(lying)).toBeUndefined();
    expect(tiffSize(tiff(10, 10, "II").subarray(0, 20))).toBeUndefined();
  });

  test("JPEG: the first start-of-frame, past other segments and fill bytes; none before the scan is no size", () => {
    expect(jpegSize(jpeg(65_000, 65_000))).toEqual({ width: 65_000, height: 65_000 });
    expect(jpegSize(jpeg(4_000, 3_000, 0xc2))).toEqual({ width: 4_000, height: 3_000 }); // progressive
    expect(jpegSize(bytes([0xff, 0xd8, 0xff, 0xc4, ...be16(2), 0xff, 0xda, ...be16(2)]))).toBeUndefined(); // DHT, then SOS
    expect(jpegSize(bytes([0xff, 0xd8, 0xff, 0xe0, ...be16(0)]))).toBeUndefined(); // an impossible length
  });

  test("BMP: core and info headers; a negative (top-down) height counts by its size", () => {
    expect(bmpSize(bmp(30_000, 30_000))).toEqual({ width: 30_000, height: 30_000 });
    expect(bmpSize(bmp(20_000, -2_147_483_647))).toEqual({ width: 20_000, height: 2_147_483_647 });
    expect(bmpSize(bmp(800, 600, 12))).toEqual({ width: 800, height: 600 });
    expect(bmpSize(bmp(800, 600, 124))).toEqual({ width: 800, height: 600 });
  });

  test("PNG and WebP", () => {
    const png = bytes([0x89], "PNG\r\n\x1a\n", be32(13), "IHDR", be32(50_000_000), be32(1), [8, 0, 0, 0, 0]);
    expect(pngSize(png)).toEqual({ width: 50_000_000, height: 1 });
    expect(pngSize(png.subarray(0, 20))).toBeUndefined();
    const vp8x = bytes("RIFF", le32(22), "WEBP", "VP8X", le32(10), [0, 0, 0, 0], [0x7f, 0x3e, 0], [0x7f, 0x3e, 0]);
    expect(webpSize(vp8x)).toEqual({ width: 16_000, height: 16_000 });
  });

  test("declaredImageSize picks the reader by kind; an unknown kind or header has no size", () => {
    expect(declaredImageSize("gif", gif(3, 4))).toEqual({ width: 3, height: 4 });
    expect(declaredImageSize("tiff", tiff(5, 6, "MM"))).toEqual({ width: 5, height: 6 });
    expect(declaredImageSize("png", bytes("not a png at all, only labelled one"))).toBeUndefined();
    expect(declaredImageSize("pdf", gif(3, 4))).toBeUndefined();
  });
});
