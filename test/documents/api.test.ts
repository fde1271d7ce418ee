/**
 * Documents through the real /v2/scrape API of an in-process crawlbox: PDFs (text layer, scan, mixed, modes,
 * maxPages, parsers: [], encrypted, truncated, mislabelled), an image, a DOCX, unsupported binaries, and the
 * `audio` format on direct media and on pages with <audio>/<video>.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { SCANNED_WORDS } from "../fixtures/documents/fixtures.ts";
import { startDocumentSite, type DocumentSite } from "../fixtures/documents/server.ts";

let h: Harness;
let site: DocumentSite;

beforeAll(async () => {
  site = await startDocumentSite();
  h = await createHarness({ ocrWorkers: 2 });
}, 30_000);

afterAll(async () => {
  await h?.close();
  site?.stop();
});

async function scrape(body: Record<string, unknown>) {
  const res = await h.request("/v2/scrape", { method: "POST", json: { timeout: 60_000, ...body, url: `${site.url}${body.url}` } });
  return { status: res.status, body: (await res.json()) as any };
}

describe("PDF text layer", () => {
  let md: string;
  let meta: any;
  beforeAll(async () => {
    const r = await scrape({ url: "/report.pdf", formats: ["markdown", "html", "links"] });
    expect(r.status).toBe(200);
    md = r.body.data.markdown;
    meta = r.body.data.metadata;
    expect(r.body.data.html).toContain("<h1>Annual Report 2026</h1>");
    expect(r.body.data.links).toContain("https://example.org/methodology");
  });

  test("headings from font size and weight", () => {
    expect(md).toContain("# Annual Report 2026\n");
    expect(md).toContain("## Key Points\n");
    expect(md).toContain("## Results by Region\n");
  });

  test("hyphenation at a line end is repaired and lines join into one paragraph", () => {
    expect(md).toContain("Our network infrastructure grew steadily this year");
    expect(md).not.toContain("infra-");
  });

  test("bulleted and numbered lists", () => {
    expect(md).toContain("- Revenue rose in every region\n- Costs fell for the third year\n- Staff turnover stayed low");
    expect(md).toContain("1. Open two new offices\n2. Hire forty engineers");
  });

  test("a simple table becomes a GFM table", () => {
    expect(md).toContain("| Region | Revenue | Growth |\n| --- | --- | --- |\n| North | 1,200 | 4% |\n| South | 950 | 7% |\n| West | 1,480 | 2% |");
  });

  test("links keep their text and target", () => {
    expect(md).toContain("[our website](https://example.org/methodology)");
  });

  test("two columns are read column by column", () => {
    const alpha = md.indexOf("ALPHA");
    expect(alpha).toBeGreaterThan(-1);
    expect(md.indexOf("ALPHAEND")).toBeLessThan(md.indexOf("OMEGA"));
    expect(md).toMatch(/ALPHA The northern offices .* ALPHAEND/);
  });

  test("running headers, footers and page numbers are dropped", () => {
    expect(md).not.toContain("ACME Quarterly Review");
    expect(md).not.toMatch(/Page \d of 2/);
  });

  test("metadata and credits: one credit per parsed page", () => {
    expect(meta.numPages).toBe(2);
    expect(meta.totalPages).toBe(2);
    expect(meta.creditsUsed).toBe(2);
    expect(meta.title).toBe("Annual Report 2026");
    expect(meta.contentType).toBe("application/pdf");
  });
});

describe("PDF options", () => {
  test("maxPages caps the parsed pages and the credits", async () => {
    const r = await scrape({ url: "/long.pdf", parsers: [{ type: "pdf", maxPages: 2 }] });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain("Chapter 2");
    expect(r.body.data.markdown).not.toContain("Chapter 3");
    expect(r.body.data.metadata).toMatchObject({ numPages: 2, totalPages: 5, creditsUsed: 2 });
  });

  test("pageMarkers joins pages with upstream's marker, between pages only", async () => {
    const r = await scrape({ url: "/long.pdf", parsers: [{ type: "pdf", pageMarkers: true, maxPages: 3 }] });
    const md: string = r.body.data.markdown;
    expect(md).not.toContain("<!-- page 1 -->");
    expect(md).toContain("\n\n---\n\n<!-- page 2 -->\n\n");
    expect(md).toContain("\n\n---\n\n<!-- page 3 -->\n\n");
    expect(md.indexOf("Chapter 2")).toBeGreaterThan(md.indexOf("<!-- page 2 -->"));
  });

  test("pages: true gives each page's markdown in document.pages (pageMarkdown is its old name)", async () => {
    const r = await scrape({ url: "/long.pdf", parsers: [{ type: "pdf", pages: true, maxPages: 3 }] });
    const pages = r.body.data.pages as { pageNumber: number; markdown: string }[];
    expect(pages.map((p) => p.pageNumber)).toEqual([1, 2, 3]);
    expect(pages[1]!.markdown).toContain("Chapter 2");
    expect(pages[1]!.markdown).not.toContain("Chapter 3");
    expect(r.body.data.markdown).toContain("Chapter 3");
    const old = await scrape({ url: "/long.pdf", parsers: [{ type: "pdf", pageMarkdown: true, maxPages: 1 }] });
    expect(old.body.data.pages).toHaveLength(1);
    const none = await scrape({ url: "/long.pdf", parsers: [{ type: "pdf", maxPages: 1 }] });
    expect(none.body.data.pages).toBeUndefined();
  });

  test("a PDF's per-page credits are held to the key's quota: 402 and nothing charged when they exceed it", async () => {
    const { key } = h.services.keys.create("small quota", 3);
    const post = async (parsers: unknown[]) => {
      const res = await h.request("/v2/scrape", { method: "POST", auth: key, json: { url: `${site.url}/long.pdf`, timeout: 60_000, parsers } });
      return { status: res.status, body: (await res.json()) as any };
    };
    const five = await post([{ type: "pdf" }]);
    expect(five.status).toBe(402);
    expect(five.body.code).toBe("INSUFFICIENT_CREDITS");
    const usage = async () => ((await (await h.request("/v2/team/credit-usage", { auth: key })).json()) as any).data;
    expect((await usage()).creditsUsed).toBe(0);
    const three = await post([{ type: "pdf", maxPages: 3 }]);
    expect(three.status).toBe(200);
    expect(three.body.data.metadata.creditsUsed).toBe(3);
    expect((await usage()).remainingCredits).toBe(0);
  });

  test("rawBase64 returns the PDF itself, unparsed, for one credit", async () => {
    const r = await scrape({ url: "/long.pdf", formats: ["rawBase64"] });
    expect(r.status).toBe(200);
    expect(Buffer.from(r.body.data.rawBase64, "base64").subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(r.body.data.metadata.creditsUsed).toBe(1);
    expect(r.body.data.metadata.numPages).toBeUndefined();
  });

  test("blocks: true is answered with a warning (not produced), the document still scraped", async () => {
    const r = await scrape({ url: "/long.pdf", parsers: [{ type: "pdf", blocks: true, maxPages: 1 }] });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain("Chapter 1");
    expect(r.body.data.warning).toContain("blocks");
  });

  test("parsers: [] returns the PDF itself, base64, for one credit", async () => {
    const r = await scrape({ url: "/long.pdf", parsers: [] });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown.startsWith("JVBER")).toBe(true);
    expect(Buffer.from(r.body.data.markdown, "base64").equals(Buffer.from(site.fixtures.longPdf))).toBe(true);
    expect(r.body.data.metadata.creditsUsed).toBe(1);
  });

  test("a PDF served as octet-stream or as text/html is still a PDF (magic bytes)", async () => {
    for (const url of ["/download?id=7", "/mislabeled.html"]) {
      const r = await scrape({ url });
      expect(r.status).toBe(200);
      expect(r.body.data.markdown).toContain("# Annual Report 2026");
    }
  });

  test("an encrypted PDF → 422 SCRAPE_PDF_ENCRYPTED", async () => {
    const r = await scrape({ url: "/encrypted.pdf" });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ success: false, code: "SCRAPE_PDF_ENCRYPTED" });
  });

  test("a truncated PDF → 422 SCRAPE_PDF_CORRUPT", async () => {
    const r = await scrape({ url: "/truncated.pdf" });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ success: false, code: "SCRAPE_PDF_CORRUPT" });
  });

  test("a file served as a PDF with no PDF inside, or nothing, → 422 SCRAPE_PDF_CORRUPT (it said PDF was unsupported)", async () => {
    const junk = await scrape({ url: "/not-a.pdf" });
    expect([junk.status, junk.body.code, junk.body.error]).toEqual([422, "SCRAPE_PDF_CORRUPT", "The PDF is damaged and could not be read: it does not start with %PDF-"]);
    const empty = await scrape({ url: "/empty.pdf" });
    expect([empty.status, empty.body.code, empty.body.error]).toEqual([422, "SCRAPE_PDF_CORRUPT", "The PDF is damaged and could not be read: the body is empty"]);
  });
});

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

describe("office documents and other binaries", () => {
  test("DOCX → headings, lists, table, link", async () => {
    const r = await scrape({ url: "/handbook.docx", formats: ["markdown", "links"] });
    expect(r.status).toBe(200);
    const md: string = r.body.data.markdown;
    expect(md).toContain("# Project Handbook");
    expect(md).toContain("# Getting Started");
    expect(md).toContain("## Team Contacts");
    expect(md).toContain("Read the [onboarding guide](https://example.org/onboarding) first.");
    expect(md).toContain("- Install the tools\n- Clone the repository\n  - Use the main branch");
    expect(md).toContain("1. Ask questions\n2. Share answers");
    expect(md).toContain("| Name | Role |\n| --- | --- |\n| Ada | Lead |\n| Linus | Reviewer |");
    expect(r.body.data.links).toContain("https://example.org/onboarding");
    expect(r.body.data.metadata).toMatchObject({ title: "Project Handbook", creditsUsed: 1 });
  });

  test("a binary served as text (a PNG as text/html, a video as text/plain) is an unsupported file, not junk markdown", async () => {
    for (const url of ["/png-as.html", "/mp4-as.txt"]) {
      const r = await scrape({ url, parsers: ["pdf"] });
      expect([url, r.status, r.body.code]).toEqual([url, 422, "SCRAPE_UNSUPPORTED_FILE_ERROR"]);
    }
  });

  test("a text that mentions a PDF header near its top is a page, not a corrupt PDF", async () => {
    for (const [url, words] of [["/pdf-notes.md", "Every PDF file starts with the header"], ["/pdf-fragment.html", "A PDF starts with"]] as const) {
      const r = await scrape({ url });
      expect([url, r.status]).toEqual([url, 200]);
      expect(r.body.data.markdown).toContain(words);
    }
  });

  test("bytes labelled RTF that are not RTF are not converted as RTF", async () => {
    const r = await scrape({ url: "/not-rtf.rtf" });
    expect(r.status).toBe(422);
  });

  test("an unknown binary → 422 SCRAPE_UNSUPPORTED_FILE_ERROR", async () => {
    const r = await scrape({ url: "/archive.bin" });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("SCRAPE_UNSUPPORTED_FILE_ERROR");
  });
});

describe("the audio format", () => {
  const ffmpeg = Bun.which("ffmpeg") !== null;

  async function fetchAudio(url: string): Promise<Uint8Array> {
    const path = new URL(url).pathname;
    const res = await h.request(path);
    expect(res.status).toBe(200);
    return new Uint8Array(await res.arrayBuffer());
  }

  const isMp3 = (b: Uint8Array) => (b[0] === 0x49 && b[1] === 0x44 && b[2] === 0x33) || (b[0] === 0xff && (b[1]! & 0xe0) === 0xe0);

  test("a page with an <audio> element: its source becomes data.audio", async () => {
    const r = await scrape({ url: "/podcast", formats: ["markdown", "audio"] });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain("Episode 1");
    expect(r.body.data.audio).toMatch(/\/v2\/files\//);
    const bytes = await fetchAudio(r.body.data.audio);
    if (ffmpeg) expect(isMp3(bytes)).toBe(true);
    else expect(Buffer.from(bytes).equals(Buffer.from(site.fixtures.wav))).toBe(true);
  }, 30_000);

  test("a direct audio URL, 5 credits (upstream's +4 for audio)", async () => {
    const r = await scrape({ url: "/tone.wav", formats: ["audio"] });
    expect(r.status).toBe(200);
    expect(r.body.data.audio).toMatch(/\/v2\/files\//);
    expect(r.body.data.metadata.creditsUsed).toBe(5);
  }, 30_000);

  test("a playlist served as audio that lists files of this server is not followed (ffmpeg reads the download only)", async () => {
    if (!ffmpeg) return; // without ffmpeg the bytes are returned as they came, nothing else is read
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-secret-"));
    const secret = join(dir, "recording.mp3");
    const made = Bun.spawnSync(["ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=1234:duration=2", "-y", secret]);
    expect(made.exitCode).toBe(0);
    const playlist = `#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXTINF:5,\nfile://${secret}\n#EXT-X-ENDLIST\n`;
    const evil = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(playlist, { headers: { "content-type": "audio/mpeg" } }) });
    try {
      const res = await h.request("/v2/scrape", { method: "POST", json: { url: `http://127.0.0.1:${evil.port}/media.mp3`, formats: ["audio"], timeout: 30_000 } });
      const body = (await res.json()) as any;
      expect(res.status).toBe(422);
      expect(body.code).toBe("SCRAPE_AUDIO_UNSUPPORTED_URL");
      expect(body.data?.audio).toBeUndefined();
    } finally {
      evil.stop(true);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  test("converting a long track ends at the scrape's timeout (ffmpeg is stopped), not when ffmpeg is done", async () => {
    if (!ffmpeg) return;
    // An hour of 48 kHz stereo silence: 0.6 MB of FLAC, ~10 s of MP3 encoding on this machine.
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-long-"));
    const flac = join(dir, "long.flac");
    const made = Bun.spawnSync(["ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-t", "3600", "-c:a", "flac", "-y", flac]);
    expect(made.exitCode).toBe(0);
    const track = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(Bun.file(flac), { headers: { "content-type": "audio/flac" } }) });
    try {
      const started = performance.now();
      const res = await h.request("/v2/scrape", { method: "POST", json: { url: `http://127.0.0.1:${track.port}/long.flac`, formats: ["audio"], timeout: 3_000 } });
      const body = (await res.json()) as any;
      expect([res.status, body.code]).toEqual([408, "SCRAPE_TIMEOUT"]);
      expect(performance.now() - started).toBeLessThan(4_500);
    } finally {
      track.stop(true);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  test("a page with a <video> element: the audio track is extracted (needs ffmpeg)", async () => {
    const r = await scrape({ url: "/video-page", formats: ["audio"] });
    if (ffmpeg) {
      expect(r.status).toBe(200);
      expect(isMp3(await fetchAudio(r.body.data.audio))).toBe(true);
    } else {
      expect(r.status).toBe(422);
      expect(r.body.code).toBe("SCRAPE_AUDIO_UNSUPPORTED_URL");
    }
  }, 30_000);

  test("zero data retention gives a data: URL", async () => {
    const r = await scrape({ url: "/tone.wav", formats: ["audio"], zeroDataRetention: true });
    if (r.status === 400) return; // keys without the ZDR flag may be refused; covered elsewhere
    expect(r.body.data.audio).toMatch(/^data:audio\//);
  }, 30_000);

  test("a page without playable media → 422 SCRAPE_AUDIO_UNSUPPORTED_URL", async () => {
    const r = await scrape({ url: "/no-media", formats: ["audio"] });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("SCRAPE_AUDIO_UNSUPPORTED_URL");
  });
});

describe("the video format", () => {
  test("a page's <video>, and a direct video URL: the file as served, 5 credits; no video is a 422", async () => {
    const page = await scrape({ url: "/video-page", formats: ["markdown", "video"] });
    expect(page.status).toBe(200);
    expect(page.body.data.markdown).toContain("A short clip");
    expect(page.body.data.video).toMatch(/\/v2\/files\/[0-9a-f]{32}\.mp4$/);
    expect(page.body.data.metadata.creditsUsed).toBe(5);
    const file = await h.request(new URL(page.body.data.video).pathname);
    expect(file.headers.get("content-type")).toBe("video/mp4");
    const served = new Uint8Array(await file.arrayBuffer());
    const original = new Uint8Array(await (await fetch(`${site.url}/clip.mp4`)).arrayBuffer());
    expect(served).toEqual(original);

    const direct = await scrape({ url: "/clip.mp4", formats: ["video"] });
    expect(direct.status).toBe(200);
    expect(direct.body.data.video).toMatch(/\.mp4$/);

    for (const url of ["/no-media", "/tone.wav"]) {
      const none = await scrape({ url, formats: ["video"] });
      expect(none.status).toBe(422);
      expect(none.body.code).toBe("SCRAPE_VIDEO_UNSUPPORTED_URL");
    }
  }, 30_000);
});
