/**
 * `POST /v2/parse`: an uploaded file through the document and HTML pipelines, as the official SDK's `parse`
 * sends it (multipart/form-data: `options` JSON and `file`). PDF, DOCX, HTML with an extension-only type, PDF
 * credits, options the SDK itself refuses, bad uploads, and the size limit.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { buildDocumentFixtures } from "../fixtures/documents/fixtures.ts";
import { ARTICLE_HTML } from "../fixtures/site.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
let apiUrl: string;
let fx: Awaited<ReturnType<typeof buildDocumentFixtures>>;

beforeAll(async () => {
  fx = await buildDocumentFixtures();
  h = await createHarness({ maxUploadBytes: 2 * 1024 * 1024 });
  apiUrl = h.listen();
}, 30_000);

afterAll(async () => {
  await h.close();
});

/** Posts a multipart upload as the SDK does. */
async function upload(file: Blob | undefined, filename: string, options?: unknown, raw?: string) {
  const form = new FormData();
  if (options !== undefined || raw !== undefined) form.append("options", raw ?? JSON.stringify(options));
  if (file) form.append("file", file, filename);
  const res = await fetch(`${apiUrl}/v2/parse`, { method: "POST", headers: { authorization: `Bearer ${h.key}` }, body: form });
  return { status: res.status, body: (await res.json()) as any };
}

describe("POST /v2/parse", () => {
  test("the official SDK's parse: a PDF becomes markdown, charged per page like a scraped PDF", async () => {
    const app = new Firecrawl({ apiKey: h.key, apiUrl });
    const doc: any = await app.parse({ filename: "report.pdf", data: Buffer.from(fx.textPdf), contentType: "application/pdf" }, { formats: ["markdown", "links"] });
    expect(doc.markdown).toContain("# Annual Report 2026\n");
    expect(doc.markdown).toContain("| Region | Revenue | Growth |");
    expect(doc.links).toContain("https://example.org/methodology");
    expect(doc.metadata.sourceURL).toBe("file:///report.pdf");
    expect(doc.metadata.creditsUsed).toBe(2);
    expect(doc.metadata.scrapeId).toBeString();
  });

  test("the official SDK's parse of a string: sent as text/plain, typed by its file name (page.html is HTML)", async () => {
    const app = new Firecrawl({ apiKey: h.key, apiUrl });
    const doc: any = await app.parse({ filename: "page.html", data: "<html><body><main><h1>Hi there</h1><p>From a string, not a file on disk.</p></main></body></html>" }, { formats: ["markdown"] });
    expect(doc.markdown).toContain("# Hi there");
    expect(doc.markdown).not.toContain("<h1>");
    // A text file stays text.
    const txt: any = await app.parse({ filename: "notes.txt", data: "<b>not markup</b> in a text file" }, { formats: ["markdown"] });
    expect(txt.markdown).toContain("<b>not markup</b>");
  });

  test("a DOCX, and HTML sent as octet-stream (typed by its extension) with main content", async () => {
    const docx = await upload(new Blob([Buffer.from(fx.docx)], { type: "application/vnd.openxmlformats-officedocument.wordprocessingml.document" }), "handbook.docx", { formats: ["markdown"] });
    expect(docx.status).toBe(200);
    expect(docx.body.data.markdown).toContain("# Project Handbook");
    const html = await upload(new Blob([ARTICLE_HTML], { type: "application/octet-stream" }), "article.html", { formats: ["markdown"], onlyMainContent: true });
    expect(html.status).toBe(200);
    expect(html.body.data.markdown).toContain("# Growing Tomatoes Indoors");
    expect(html.body.data.markdown).not.toContain("SCRIPT_SHOULD_NOT_APPEAR");
    expect(html.body.data.metadata.title).toBe("Growing Tomatoes Indoors");
    // metadata.contentType is what it was read as, not the octet-stream it was sent as (a DOCX without a type too).
    expect(html.body.data.metadata.contentType).toBe("text/html");
    const untyped = await upload(new Blob([Buffer.from(fx.docx)], { type: "application/octet-stream" }), "handbook.docx", { formats: ["markdown"] });
    expect(untyped.body.data.metadata.contentType).toBe("application/vnd.openxmlformats-officedocument.wordprocessingml.document");
    // An XLSX sent as octet-stream (as the SDKs send a file they cannot type): its sheets as headings and tables.
    const xlsx = await upload(new Blob([Buffer.from(fx.xlsx)], { type: "application/octet-stream" }), "budget.xlsx", { formats: ["markdown"] });
    expect(xlsx.status).toBe(200);
    expect(xlsx.body.data.markdown).toContain("## Budget\n\n| Item | Cost | Due | Share | Paid |");
    expect(xlsx.body.data.metadata.contentType).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    const xls = await upload(new Blob([Buffer.from(fx.xls)], { type: "application/octet-stream" }), "budget.xls", { formats: ["markdown"] });
    expect([xls.status, xls.body.data.metadata.contentType]).toEqual([200, "application/vnd.ms-excel"]);
    expect(xls.body.data.markdown).toContain("| Laptops | $12,500.00 | 2024-01-01 | 62.5% | TRUE | 4 |");
  });

  test("the part's own Content-Type and charset decide, not the file name", async () => {
    // HTML named .txt but sent as text/html is markup; windows-1252 bytes with their charset decode right.
    const html = await upload(new Blob(["<html><head><title>T</title></head><body><main><h1>Heading</h1><p>Some paragraph text here.</p></main></body></html>"], { type: "text/html" }), "page.txt", { formats: ["markdown"] });
    expect(html.body.data.markdown).toContain("# Heading");
    const cafe = new Uint8Array([...new TextEncoder().encode("<html><body><main><h1>Caf"), 0xe9, ...new TextEncoder().encode("</h1><p>Un caf\u00e9 au lait, s'il vous pla\u00eet.</p></main></body></html>")].map((b) => (b > 255 ? 63 : b)));
    const latin = await upload(new Blob([cafe], { type: "text/html; charset=windows-1252" }), "menu", { formats: ["markdown"] });
    expect(latin.body.data.markdown).toContain("# Caf\u00e9");
    // No type and no extension: read as markup when it is text.
    const bare = await upload(new Blob(["<h1>Plain upload</h1><p>Body text of the upload.</p>"]), "notes", { formats: ["markdown"] });
    expect(bare.status).toBe(200);
    expect(bare.body.data.markdown).toContain("Plain upload");
  });

  test("an upload without a key is refused before its body is read; a chunked upload is read with the same limit", async () => {
    const form = new FormData();
    form.append("file", new Blob(["<p>x</p>"], { type: "text/html" }), "x.html");
    const res = await fetch(`${apiUrl}/v2/parse`, { method: "POST", body: form });
    expect(res.status).toBe(401);
    // A streamed (chunked) multipart body: no Content-Length.
    const boundary = "----crawlbox-test";
    const encoder = new TextEncoder();
    const head = encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="s.html"\r\nContent-Type: text/html\r\n\r\n`);
    const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
    const stream = (bodyBytes: number) =>
      new ReadableStream({
        start(c) {
          c.enqueue(head);
          c.enqueue(encoder.encode("<h1>Streamed</h1><p>" + "x".repeat(bodyBytes) + "</p>"));
          c.enqueue(tail);
          c.close();
        },
      });
    const send = (bodyBytes: number) =>
      fetch(`${apiUrl}/v2/parse`, { method: "POST", headers: { authorization: `Bearer ${h.key}`, "content-type": `multipart/form-data; boundary=${boundary}` }, body: stream(bodyBytes), duplex: "half" } as RequestInit);
    const ok = await send(100);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).data.markdown).toContain("# Streamed");
    expect((await send(3 * 1024 * 1024)).status).toBe(413);
  });

  test("a client that sends too slowly gets 408 without holding a scrape slot; too many parts are a 400", async () => {
    const slow = await createHarness({ defaultTimeoutMs: 1000, maxConcurrency: 1 });
    const url = slow.listen();
    try {
      const boundary = "----slow";
      const stalled = new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="s.html"\r\n\r\n<p>`));
          // …and nothing more for a while.
        },
      });
      const started = performance.now();
      const pending = fetch(`${url}/v2/parse`, { method: "POST", headers: { authorization: `Bearer ${slow.key}`, "content-type": `multipart/form-data; boundary=${boundary}` }, body: stalled, duplex: "half" } as RequestInit);
      // While the upload stalls, the one scrape slot is free.
      await Bun.sleep(200);
      expect(slow.services.limiter.running).toBe(0);
      const res = await pending;
      expect(res.status).toBe(408);
      expect(((await res.json()) as any).code).toBe("REQUEST_BODY_TIMEOUT");
      expect(performance.now() - started).toBeLessThan(3000);
    } finally {
      await slow.close();
    }
    const many = new FormData();
    for (let i = 0; i < 20; i++) many.append(`p${i}`, "x");
    many.append("file", new Blob(["<p>x</p>"], { type: "text/html" }), "x.html");
    const res = await fetch(`${apiUrl}/v2/parse`, { method: "POST", headers: { authorization: `Bearer ${h.key}` }, body: many });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toContain("more than 16 parts");
  });

  test("what a file cannot do is refused, as the SDK refuses it", async () => {
    const pdf = new Blob([Buffer.from(fx.textPdf)], { type: "application/pdf" });
    for (const [options, message] of [
      [{ waitFor: 1000 }, "waitFor"],
      [{ maxAge: 0 }, "cache/index"],
      [{ formats: ["screenshot"] }, "screenshot"],
      [{ formats: [{ type: "changeTracking" }] }, "changeTracking"],
      [{ proxy: "enhanced" }, "proxy"],
      [{ bogus: true }, "Unrecognized key"],
    ] as const) {
      const r = await upload(pdf, "r.pdf", options);
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body)).toContain(message);
      if (message !== "Unrecognized key") expect(r.body.code).toBe("PARSE_UNSUPPORTED_OPTIONS");
    }
    // What the SDK allows is accepted (headers have nothing to apply to), also as a file part.
    const form = new FormData();
    form.append("options", new Blob([JSON.stringify({ formats: ["markdown"], headers: { "x-a": "1" } })], { type: "application/json" }), "options.json");
    form.append("file", pdf, "r.pdf");
    const res = await fetch(`${apiUrl}/v2/parse`, { method: "POST", headers: { authorization: `Bearer ${h.key}` }, body: form });
    expect(res.status).toBe(200);
  });

  test("bad uploads are clear 4xx: no file, empty file, bad options JSON, JSON instead of multipart, too large", async () => {
    expect((await upload(undefined, "x", { formats: ["markdown"] })).status).toBe(400);
    expect((await upload(new Blob([]), "empty.pdf")).status).toBe(400);
    const bad = await upload(new Blob(["<p>x</p>"], { type: "text/html" }), "x.html", undefined, "{not json");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("options");
    const json = await h.request("/v2/parse", { method: "POST", json: { formats: ["markdown"] } });
    expect(json.status).toBe(400);
    expect(((await json.json()) as any).error).toContain("multipart/form-data");
    // An uploadRef that was never reserved (the upload flow: test/parse/upload-ref.test.ts).
    expect((await h.request("/v2/parse", { method: "POST", json: { uploadRef: "abc" } })).status).toBe(404);
    const big = await upload(new Blob([new Uint8Array(3 * 1024 * 1024)], { type: "application/pdf" }), "big.pdf");
    expect(big.status).toBe(413);
    expect(big.body.code).toBe("PAYLOAD_TOO_LARGE");
    const unsupported = await upload(new Blob([new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0])], { type: "application/octet-stream" }), "tool.bin");
    expect(unsupported.status).toBe(422);
    expect(unsupported.body.code).toBe("SCRAPE_UNSUPPORTED_FILE_ERROR");
  });
});
