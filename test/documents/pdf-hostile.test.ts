/**
 * PDFs built to hold the main thread (documents/pdf/parser.ts, documents/deadline.ts, layout/reading-order.ts):
 * thousands of pages must end at the request's timeout while other requests are still answered, and a page a
 * hundred million points wide or a page of a million lines must not stall the layout.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { findGutter, readingOrder } from "../../src/documents/layout/reading-order.ts";
import type { TextLine } from "../../src/documents/layout/model.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

/**
 * A valid PDF of `pages` pages sharing one content stream (a few KB per thousand pages); with `links`, the first
 * page carries that many link annotations, each as high as the page (every one covers every line).
 */
function manyPagePdf(pages: number, links = 0): Uint8Array {
  const objects: string[] = [];
  const line = "(A line of text that is read again and again on every one of the pages.) Tj 0 -12 Td ";
  const content = `BT /F1 10 Tf 36 760 Td ${line.repeat(60)}ET`;
  objects[1] = "<< /Type /Catalog /Pages 2 0 R >>";
  const kids = Array.from({ length: pages }, (_, i) => `${5 + i} 0 R`).join(" ");
  objects[2] = `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`;
  objects[3] = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>";
  objects[4] = `<< /Length ${content.length} >>\nstream\n${content}\nendstream`;
  const annots = Array.from({ length: links }, (_, i) => `${5 + pages + i} 0 R`).join(" ");
  for (let i = 0; i < pages; i++) {
    objects[5 + i] = `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R${i === 0 && links ? ` /Annots [${annots}]` : ""} >>`;
  }
  for (let i = 0; i < links; i++) objects[5 + pages + i] = `<< /Type /Annot /Subtype /Link /Rect [30 20 580 780] /A << /S /URI /URI (https://example.com/${i}) >> >>`;
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  for (let n = 1; n < objects.length; n++) {
    offsets[n] = out.length;
    out += `${n} 0 obj\n${objects[n]}\nendobj\n`;
  }
  const xref = out.length;
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let n = 1; n < objects.length; n++) out += `${String(offsets[n]).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

let h: Harness;
let site: ReturnType<typeof Bun.serve>;
const pdf = manyPagePdf(8_000);

beforeAll(async () => {
  site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(pdf.slice().buffer, { headers: { "content-type": "application/pdf" } }) });
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
  site.stop(true);
});

test("a PDF of thousands of pages ends at the request's timeout, and other requests are answered meanwhile", async () => {
  const started = performance.now();
  const scrape = h.request("/v2/scrape", { method: "POST", json: { url: `http://127.0.0.1:${site.port}/many.pdf`, timeout: 2_000, maxAge: 0 } });
  await Bun.sleep(500);
  const healthStarted = performance.now();
  const health = await h.request("/health", { auth: null });
  const healthMs = performance.now() - healthStarted;
  const res = await scrape;
  const body = (await res.json()) as any;
  expect([res.status, body.code, body.error]).toEqual([408, "SCRAPE_TIMEOUT", expect.any(String)]);
  expect(performance.now() - started).toBeLessThan(3_500);
  expect(health.status).toBe(200);
  expect(healthMs).toBeLessThan(500);
}, 30_000);

test("a key whose quota cannot pay a PDF's pages is refused once the page count is known, before they are parsed", async () => {
  const { key } = h.services.keys.create("small quota", 10);
  const started = performance.now();
  const res = await h.request("/v2/scrape", { method: "POST", auth: key, json: { url: `http://127.0.0.1:${site.port}/many.pdf`, timeout: 10_000, maxAge: 0 } });
  const body = (await res.json()) as any;
  expect([res.status, body.code]).toEqual([402, "INSUFFICIENT_CREDITS"]);
  expect(performance.now() - started).toBeLessThan(2_000);
  // Nothing was charged, and a PDF the key can pay for still parses.
  const usage = (await (await h.request("/v2/team/credit-usage", { auth: key })).json()) as any;
  expect(usage.data.remainingCredits).toBe(10);
  const few = await h.request("/v2/scrape", {
    method: "POST",
    auth: key,
    json: { url: `http://127.0.0.1:${site.port}/many.pdf`, maxAge: 0, parsers: [{ type: "pdf", maxPages: 3 }] },
  });
  expect([few.status, ((await few.json()) as any).data?.metadata?.creditsUsed]).toEqual([200, 3]);
}, 30_000);

test("a page with thousands of page-high link rectangles is read in bounded time", async () => {
  const linked = manyPagePdf(1, 5_000);
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(linked.slice().buffer, { headers: { "content-type": "application/pdf" } }) });
  try {
    const started = performance.now();
    const res = await h.request("/v2/scrape", { method: "POST", json: { url: `http://127.0.0.1:${server.port}/links.pdf`, timeout: 60_000, maxAge: 0 } });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body.data.markdown).toContain("https://example.com/0");
    expect(performance.now() - started).toBeLessThan(3_000);
  } finally {
    server.stop(true);
  }
}, 90_000);

test("column search is bounded: a page 1e8 points wide, a page of a million lines", () => {
  const column = (x0: number, x1: number, n: number): TextLine[] =>
    Array.from({ length: n }, (_, i) => ({ x0, x1, y0: i * 12, y1: i * 12 + 10, spans: [] }) as unknown as TextLine);
  let started = performance.now();
  const wide = [...column(0, 4e7, 10), ...column(6e7, 1e8, 10)];
  const gutter = findGutter(wide, 1e8)!;
  expect(gutter >= 4e7 && gutter <= 6e7).toBe(true);
  expect(performance.now() - started).toBeLessThan(500);
  started = performance.now();
  const lines = column(10, 500, 1_200_000);
  expect(readingOrder(lines, 612).flat().length).toBe(1_200_000);
  expect(performance.now() - started).toBeLessThan(5_000);
});
