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

  test("a DOCX, and HTML sent as octet-stream (typed by its extension) with main content", async () => {
    const docx = await upload(new Blob([Buffer.from(fx.docx)], { type: "application/vnd.openxmlformats-officedocument.wordprocessingml.document" }), "handbook.docx", { formats: ["markdown"] });
    expect(docx.status).toBe(200);
    expect(docx.body.data.markdown).toMatch(/^# /m);
    const html = await upload(new Blob([ARTICLE_HTML], { type: "application/octet-stream" }), "article.html", { formats: ["markdown"], onlyMainContent: true });
    expect(html.status).toBe(200);
    expect(html.body.data.markdown).toContain("# Growing Tomatoes Indoors");
    expect(html.body.data.markdown).not.toContain("SCRIPT_SHOULD_NOT_APPEAR");
    expect(html.body.data.metadata.title).toBe("Growing Tomatoes Indoors");
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
    }
  });

  test("bad uploads are clear 4xx: no file, empty file, bad options JSON, JSON instead of multipart, too large", async () => {
    expect((await upload(undefined, "x", { formats: ["markdown"] })).status).toBe(400);
    expect((await upload(new Blob([]), "empty.pdf")).status).toBe(400);
    const bad = await upload(new Blob(["<p>x</p>"], { type: "text/html" }), "x.html", undefined, "{not json");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("options");
    const json = await h.request("/v2/parse", { method: "POST", json: { uploadRef: "abc" } });
    expect(json.status).toBe(400);
    expect(((await json.json()) as any).error).toContain("multipart/form-data");
    const big = await upload(new Blob([new Uint8Array(3 * 1024 * 1024)], { type: "application/pdf" }), "big.pdf");
    expect(big.status).toBe(413);
    expect(big.body.code).toBe("PAYLOAD_TOO_LARGE");
    const unsupported = await upload(new Blob([new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0])], { type: "application/octet-stream" }), "tool.bin");
    expect(unsupported.status).toBe(422);
    expect(unsupported.body.code).toBe("SCRAPE_UNSUPPORTED_FILE_ERROR");
  });
});
