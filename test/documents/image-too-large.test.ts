/**
 * Every image kind declaring more than the pixel limit answers 422 SCRAPE_OCR_IMAGE_TOO_LARGE with its size, as
 * docs/documents.md promises, read from its header before anything is decoded. GIF, TIFF and header-only JPEG used to
 * go to mupdf for their size, which refused them with errors of its own ("image dimensions might overflow", "image
 * too large", "missing SOS marker"): SCRAPE_OCR_FAILED, a retryable error for a file that will never be read.
 * Through the real /v2/scrape API of an in-process crawlbox, the images served from a local fixture server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { bmp, gif, jpeg, tiff } from "../fixtures/documents/image-headers.ts";

let h: Harness;
let server: ReturnType<typeof Bun.serve>;

const IMAGES: Record<string, [Uint8Array, string, number, number]> = {
  "/huge.gif": [gif(65_535, 65_535), "image/gif", 65_535, 65_535],
  "/huge-ii.tif": [tiff(30_000, 30_000, "II"), "image/tiff", 30_000, 30_000],
  "/huge-mm.tif": [tiff(40_000, 2_000, "MM", 3), "image/tiff", 40_000, 2_000],
  "/huge.jpg": [jpeg(65_000, 65_000), "image/jpeg", 65_000, 65_000],
  "/top-down.bmp": [bmp(20_000, -2_147_483_647), "image/bmp", 20_000, 2_147_483_647],
  // Served as octet-stream: the bytes say what it is.
  "/download?id=3": [gif(10_000, 10_000), "application/octet-stream", 10_000, 10_000],
};

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const u = new URL(req.url);
      const hit = IMAGES[u.pathname + u.search];
      return hit ? new Response(hit[0] as BodyInit, { headers: { "content-type": hit[1] } }) : new Response("not found", { status: 404 });
    },
  });
  h = await createHarness({ ocrWorkers: 1 });
}, 30_000);

afterAll(async () => {
  await h?.close();
  server?.stop(true);
});

describe("images over the pixel limit, by their header", () => {
  for (const [path, [body, type, width, height]] of Object.entries(IMAGES)) {
    test(`${path} (${type}, ${body.length} bytes) declaring ${width}×${height} → 422 SCRAPE_OCR_IMAGE_TOO_LARGE`, async () => {
      const started = performance.now();
      const res = await h.request("/v2/scrape", { method: "POST", json: { url: `http://127.0.0.1:${server.port}${path}`, parsers: ["image"], timeout: 30_000 } });
      const answer = (await res.json()) as any;
      expect(res.status).toBe(422);
      expect(answer).toMatchObject({ success: false, code: "SCRAPE_OCR_IMAGE_TOO_LARGE", details: { width, height, maxPixels: 50_000_000 } });
      expect(performance.now() - started).toBeLessThan(5_000);
    });
  }
});
