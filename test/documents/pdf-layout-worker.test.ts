/**
 * A PDF's layout runs on its document worker (documents/pdf/conversion.ts), not on the main thread: 200 pages
 * sharing one content stream of 2,000 lines (a 40 KB file, 400,000 lines) took 2.1 s of layout after mupdf had read
 * them, during which the server answered nothing and past which the request's `timeout` was not kept (a 200 came
 * seconds late). A document's text is cut at its limits (documents/pdf/text-budget.ts), and an error no reader typed
 * reaches the client as the 422 of the document it was reading (documents/isolate/protocol.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDocumentWorkers } from "../../src/documents/isolate/pool.ts";
import { createOfficeParser } from "../../src/documents/office/parser.ts";
import { loadMupdf } from "../../src/documents/pdf/mupdf.ts";
import { PdfConversion } from "../../src/documents/pdf/conversion.ts";
import { cutToLimits, PDF_TEXT_LIMITS } from "../../src/documents/pdf/text-budget.ts";
import type { PageText } from "../../src/documents/layout/model.ts";
import { silentLogger } from "../../src/log.ts";
import { mapError } from "../../src/server/error-handler.ts";
import { buildDocx } from "../fixtures/documents/fixtures.ts";
import { sharedContentPdf } from "../fixtures/documents/many-page-pdf.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { withLagProbe } from "../helpers/lag-probe.ts";

/** 400,000 short lines in three columns, `pages: true` (the layout runs twice): well under the text limits. */
const LAYOUT_HEAVY = sharedContentPdf({ pages: 200, linesPerPage: 2_000, text: (k) => `w${k}` });
/** Lines of 60 characters: about 120,000 characters a page, so the 10 million of the limit are reached near page 85. */
const TEXT_HEAVY = sharedContentPdf({ pages: 120, linesPerPage: 2_000, text: (k) => `${k}`.padEnd(60, " lorem ipsum") });

let h: Harness;
let site: ReturnType<typeof Bun.serve>;
/** How long the layout-heavy PDF took to convert in full (measured by the first test). */
let fullMs: number | undefined;

beforeAll(async () => {
  const files: Record<string, Uint8Array> = { "/layout.pdf": LAYOUT_HEAVY, "/text.pdf": TEXT_HEAVY };
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req) => {
      const body = files[new URL(req.url).pathname];
      return body ? new Response(body.slice().buffer, { headers: { "content-type": "application/pdf" } }) : new Response("no", { status: 404 });
    },
  });
  // No continuations (scrape/document-continuations.ts): the timeout test is about the deadline itself.
  h = await createHarness({ documentContinuations: 0 });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
});

/** Scrapes `path` while a 10 ms timer measures how long the server's event loop (this thread) is held at most. */
async function scrapeWithLagProbe(path: string, json: Record<string, unknown>) {
  const started = performance.now();
  const { value: res, maxLagMs } = await withLagProbe(
    () => h.request("/v2/scrape", { method: "POST", json: { url: `http://127.0.0.1:${site.port}${path}`, maxAge: 0, ...json } }),
    10,
  );
  const tookMs = performance.now() - started;
  // Read after the probe: the body is this test's own work, not the server's.
  const body = (await res.json()) as any;
  return { res, body, tookMs, maxLagMs };
}

const layoutParsers = [{ type: "pdf", mode: "fast", pages: true }];

describe("a many-page PDF is laid out on its document worker", () => {
  test("the main thread stays responsive while 200 pages of 2,000 lines are converted", async () => {
    const r = await scrapeWithLagProbe("/layout.pdf", { timeout: 120_000, parsers: layoutParsers });
    expect([r.res.status, r.body.data?.metadata?.numPages, r.body.data?.pages?.length, r.body.data?.warning]).toEqual([200, 200, 200, undefined]);
    expect(r.body.data.markdown.includes("w997 w1000 w1003")).toBe(true);
    fullMs = r.tookMs;
    // Before: one synchronous layout of 1.8-4.5 s on this thread. After: under 150 ms on an idle machine; the bound
    // leaves room for a machine busy with other work.
    expect(r.maxLagMs).toBeLessThan(750);
  }, 180_000);

  test("its request's timeout is kept while it is laid out: 408 on time, not a 200 seconds late", async () => {
    // Calibrated on this machine, warm: the whole conversion, then a timeout at 70 % of it, when the pages are read
    // (about 55 % of the whole) and the document is being laid out.
    const warm = (await scrapeWithLagProbe("/layout.pdf", { timeout: 120_000, parsers: layoutParsers })).tookMs;
    const timeoutMs = Math.max(1_000, Math.round(Math.min(warm, fullMs ?? warm) * 0.7));
    const r = await scrapeWithLagProbe("/layout.pdf", { timeout: timeoutMs, parsers: layoutParsers });
    // Before: 200 after the whole layout, 1.5 s and more past the timeout. A run faster than the calibration may
    // still finish in time; either way the answer comes within the timeout.
    expect(r.tookMs).toBeLessThan(timeoutMs + 500);
    if (r.res.status !== 200) expect([r.res.status, r.body.code]).toEqual([408, "SCRAPE_TIMEOUT"]);
    expect(r.maxLagMs).toBeLessThan(750);
    // A worker stopped at the deadline is replaced: the next document converts.
    const next = await scrapeWithLagProbe("/layout.pdf", { timeout: 60_000, parsers: [{ type: "pdf", mode: "fast", maxPages: 2 }] });
    expect([next.res.status, next.body.data?.metadata?.numPages]).toEqual([200, 2]);
    expect(h.services.documentWorkers.stats()).toMatchObject({ crashed: 0, leased: 0 });
  }, 180_000);
});

describe("a PDF's text is cut at its limits", () => {
  test("past 10 million characters the rest is neither read, shown nor charged, and a line and a warning say so", async () => {
    const r = await scrapeWithLagProbe("/text.pdf", { timeout: 120_000, parsers: [{ type: "pdf", mode: "fast" }] });
    expect(r.res.status).toBe(200);
    const { markdown, warning, metadata } = r.body.data;
    const cutAt = metadata.numPages;
    expect(cutAt).toBeGreaterThan(60);
    expect(cutAt).toBeLessThan(110);
    expect([metadata.totalPages, metadata.creditsUsed]).toEqual([120, cutAt]);
    expect(warning).toBe(
      `The PDF's text was cut on page ${cutAt} of 120: a document gives at most 10,000,000 characters or 500,000 lines of text; later pages are neither shown nor charged.`,
    );
    expect(markdown.trimEnd().endsWith(`(The rest of this PDF is not shown: its text reached 10,000,000 characters or 500,000 lines on page ${cutAt} of 120.)`)).toBe(true);
    expect(markdown.length).toBeLessThan(PDF_TEXT_LIMITS.chars * 1.1);
    expect(r.maxLagMs).toBeLessThan(750);
  }, 180_000);

  test("the cut keeps page order, cuts inside the page that reaches a limit, and reads no page after it", async () => {
    const line = (text: string) => ({ x0: 10, y0: 10, x1: 100, y1: 16, text, size: 6, bold: false, italic: false, mono: false });
    const page = (number: number, texts: string[]): PageText => ({ number, width: 612, height: 792, lines: texts.map(line), source: "text" });
    const pages = [page(1, ["aaaa", "bbbb"]), page(2, ["cccc", "dddd", "eeee"]), page(3, ["ffff"])];
    expect(cutToLimits(pages, { chars: 100, lines: 100 })).toEqual({ pages });
    const byChars = cutToLimits(pages, { chars: 14, lines: 100 });
    expect([byChars.cutAt, byChars.pages.map((p) => p.lines.map((l) => l.text))]).toEqual([2, [["aaaa", "bbbb"], ["cccc"]]]);
    const byLines = cutToLimits(pages, { chars: 100, lines: 2 });
    expect([byLines.cutAt, byLines.pages.length, byLines.pages[1]!.lines]).toEqual([2, 2, []]);

    // In the worker's conversion: pages after the one that passes a limit are skipped, not read.
    const pdf = sharedContentPdf({ pages: 6, linesPerPage: 30, columns: 1, text: (k) => `line ${k} of the page`, leading: 14, top: 100 });
    const conversion = PdfConversion.open(await loadMupdf(), pdf, { chars: 1_000, lines: 45 });
    try {
      const reads = conversion.pages(0, 6, "fast", 200).map((r) => r.kind);
      expect(reads).toEqual(["text", "text", "skipped", "skipped", "skipped", "skipped"]);
      const doc = conversion.convert(6, [], {});
      expect([doc.metadata.numPages, doc.metadata.totalPages, doc.credits]).toEqual([2, 6, 2]);
      expect(doc.fields?.warning).toContain("cut on page 2 of 6");
      // Page 1 whole, page 2 up to its 15th line (45 lines in all).
      const count = (text: string) => doc.markdown.split(text).length - 1;
      expect([count("line 14 of the page"), count("line 15 of the page"), count("line 29 of the page")]).toEqual([2, 1, 1]);
      expect(doc.html).toEndWith("<p>(The rest of this PDF is not shown: its text reached 1,000 characters or 45 lines on page 2 of 6.)</p></body></html>");
    } finally {
      conversion.close();
    }
  });
});

describe("an error no document reader typed", () => {
  /** A document worker whose every operation throws what a reader left untyped (a stack overflow, say). */
  const THROWING_WORKER = `import { toWireError } from ${JSON.stringify(join(import.meta.dir, "../../src/documents/isolate/protocol.ts"))};
    self.addEventListener("message", (event) => {
      const err = new RangeError("Maximum call stack size exceeded.");
      self.postMessage({ id: event.data.id, ok: false, error: toWireError(err) });
    });
    self.postMessage({ id: -1, ok: true, result: null });`;

  test("reaches the client as the 422 of the document it was reading, not an unexpected 500", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-untyped-"));
    writeFileSync(join(dir, "throwing.ts"), THROWING_WORKER);
    const pool = createDocumentWorkers({ size: 1, workerPath: join(dir, "throwing.ts") });
    try {
      const lease = await pool.lease(AbortSignal.timeout(10_000));
      const office = (await lease.call({ op: "office", kind: "docx", body: buildDocx() }).catch((e) => e)) as any;
      const pdf = (await lease.call({ op: "pdfConvert", count: 1, ocrPages: [], options: {} }).catch((e) => e)) as any;
      const image = (await lease.call({ op: "imagePng", body: new Uint8Array(8) }).catch((e) => e)) as any;
      lease.release();
      expect([office.code, office.status, office.details]).toEqual(["SCRAPE_DOCUMENT_CORRUPT", 422, { kind: "DOCX", reason: "RangeError: Maximum call stack size exceeded." }]);
      expect([pdf.code, pdf.status]).toEqual(["SCRAPE_PDF_CORRUPT", 422]);
      expect([image.code, image.status]).toEqual(["SCRAPE_OCR_FAILED", 422]);
      expect(pool.stats()).toMatchObject({ live: 1, crashed: 0 });

      // Through a parser and the one error handler, as the client gets it.
      const parser = createOfficeParser({ workers: pool });
      const page = { body: buildDocx(), contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", elapsedMs: 0 } as any;
      const thrown = await parser.parse(page, { timeoutMs: 10_000 } as any).catch((e) => e);
      const sent = mapError("UNKNOWN", thrown, silentLogger);
      expect([sent.status, sent.code, sent.message]).toEqual([
        422,
        "SCRAPE_DOCUMENT_CORRUPT",
        "The DOCX document is damaged and could not be read: RangeError: Maximum call stack size exceeded.",
      ]);
    } finally {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  test("a request out of order stays the worker's own error, not the document's", async () => {
    const pool = createDocumentWorkers({ size: 1 });
    try {
      const lease = await pool.lease(AbortSignal.timeout(10_000));
      const err = (await lease.call({ op: "pdfConvert", count: 1, ocrPages: [], options: {} }).catch((e) => e)) as any;
      lease.release();
      expect([err.code, err.message]).toEqual([undefined, "no PDF is open in this document worker"]);
    } finally {
      await pool.close();
    }
  }, 30_000);
});
