/**
 * OCR: scanned and mixed PDFs in each mode, PNG and BMP images, the pixel limit, poster-sized pages, and images
 * without the image parser.
 * Through the real /v2/scrape API of an in-process crawlbox (document-api.ts) on the document fixture site.
 */
import { describe, expect, test } from "bun:test";
import { SCANNED_WORDS } from "../fixtures/documents/fixtures.ts";
import { useDocumentApi } from "./document-api.ts";

const api = useDocumentApi();
const { scrape } = api;

describe("OCR", () => {
  const hasScannedWords = (md: string) => SCANNED_WORDS.every((w) => md.includes(w));

  test("a scanned PDF is OCR'd in auto and ocr modes, and skipped in fast mode", async () => {
    const auto = await scrape({ url: "/scan.pdf" });
    expect(auto.status).toBe(200);
    expect(hasScannedWords(auto.body.data.markdown)).toBe(true);
    expect(auto.body.data.markdown).toContain("# Invoice 4471");
    const ocr = await scrape({ url: "/scan.pdf", parsers: [{ type: "pdf", mode: "ocr" }] });
    expect(hasScannedWords(ocr.body.data.markdown)).toBe(true);
    const fast = await scrape({ url: "/scan.pdf", parsers: [{ type: "pdf", mode: "fast" }] });
    expect(fast.status).toBe(200);
    expect(fast.body.data.markdown).not.toContain("Copenhagen");
    expect(fast.body.data.metadata.numPages).toBe(1);
  }, 60_000);

  test("a mixed PDF: text page read directly, scanned page OCR'd in auto; only the text page in fast", async () => {
    const auto = await scrape({ url: "/mixed.pdf" });
    expect(auto.body.data.markdown).toContain("Mixed document first page");
    expect(hasScannedWords(auto.body.data.markdown)).toBe(true);
    expect(auto.body.data.metadata.creditsUsed).toBe(2);
    const fast = await scrape({ url: "/mixed.pdf", parsers: [{ type: "pdf", mode: "fast" }] });
    expect(fast.body.data.markdown).toContain("Mixed document first page");
    expect(fast.body.data.markdown).not.toContain("Copenhagen");
  }, 60_000);

  test("a PNG of text is OCR'd to markdown", async () => {
    const r = await scrape({ url: "/bulletin.png" });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain("# Weekly Bulletin");
    expect(r.body.data.markdown).toContain("The library opens at nine tomorrow.");
    expect(r.body.data.metadata.creditsUsed).toBe(1);
  }, 30_000);

  test("a BMP of text is re-encoded as PNG on a document worker and OCR'd", async () => {
    const r = await scrape({ url: "/bulletin.bmp" });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain("Weekly Bulletin");
    expect(r.body.data.markdown).toContain("The library opens at nine tomorrow.");
  }, 30_000);

  // mupdf and tesseract decode in WebAssembly, whose memory never shrinks: one decoded bomb would keep the process
  // gigabytes larger for good (documents/pixel-limit.ts).
  const rssMb = () => process.memoryUsage().rss / 1e6;

  test("an image declaring more than 50 megapixels → 422 SCRAPE_OCR_IMAGE_TOO_LARGE, nothing decoded", async () => {
    const before = rssMb();
    for (const [url, side] of [["/bomb.png", 30_000], ["/bomb.webp", 16_000]] as const) {
      const started = performance.now();
      const r = await scrape({ url });
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ success: false, code: "SCRAPE_OCR_IMAGE_TOO_LARGE", details: { width: side, height: side, maxPixels: 50_000_000 } });
      expect(r.body.error).toContain(`${side}×${side} pixels`);
      expect(performance.now() - started).toBeLessThan(2_000);
    }
    expect(rssMb() - before).toBeLessThan(200); // decoding the PNG alone took 900 MB
  });

  test("a poster-sized PDF page is OCR'd at a lower resolution, within the pixel limit", async () => {
    const before = rssMb();
    const r = await scrape({ url: "/poster.pdf", parsers: [{ type: "pdf", mode: "ocr" }] });
    expect(r.body).toMatchObject({ success: true });
    expect(r.body.data.metadata.numPages).toBe(1);
    expect(r.body.data.markdown).toContain("Poster"); // read from a 7071-pixel-square render (46 dpi)
    expect(rssMb() - before).toBeLessThan(400); // 11000 pt at 200 dpi was a 930 MB pixmap
  }, 60_000);

  test("without the image parser an image is an unsupported file", async () => {
    const r = await scrape({ url: "/bulletin.png", parsers: ["pdf"] });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("SCRAPE_UNSUPPORTED_FILE_ERROR");
  });
});
