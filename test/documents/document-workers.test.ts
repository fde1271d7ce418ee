/**
 * Document workers (documents/isolate/pool.ts): office conversion and mupdf run on a worker thread that is stopped
 * at the request's deadline. Small files whose parsing costs seconds (a 100 KB DOCX inflating to 30 MiB of XML, a
 * 500 KB PDF page drawing four million glyphs) must end with SCRAPE_TIMEOUT on time while the server keeps
 * answering, and the next document must get a fresh worker.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { strToU8, zipSync } from "fflate";
import { createDocumentWorkers } from "../../src/documents/isolate/pool.ts";
import { buildDocx } from "../fixtures/documents/fixtures.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';

/** A DOCX of ~100 KB whose document.xml inflates to ~30 MiB of paragraphs (under the 32 MiB part limit). */
function inflatingDocx(): Uint8Array {
  const para = "<w:p><w:r><w:t>Lorem ipsum dolor sit amet consectetur</w:t></w:r></w:p>";
  const body = para.repeat(Math.floor((30 * 1024 * 1024) / para.length));
  return zipSync({ "word/document.xml": strToU8(`<w:document ${W}><w:body>${body}</w:body></w:document>`) });
}

/** A one-page PDF whose compressed content stream shows `glyphs` glyphs (~125 bytes of file per thousand). */
function glyphStormPdf(glyphs: number): Uint8Array {
  const content = deflateSync(Buffer.from(`BT /F1 1 Tf ${"1 0 0 1 10 10 Tm (x) Tj ".repeat(glyphs)}ET`));
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
  ];
  const parts: Buffer[] = [Buffer.from("%PDF-1.4\n")];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  const push = (b: Buffer) => {
    parts.push(b);
    length += b.length;
  };
  objects.forEach((o, i) => {
    offsets[i + 1] = length;
    push(Buffer.from(`${i + 1} 0 obj\n${o}\nendobj\n`));
  });
  offsets[5] = length;
  push(Buffer.from(`5 0 obj\n<< /Length ${content.length} /Filter /FlateDecode >>\nstream\n`));
  push(content);
  push(Buffer.from("\nendstream\nendobj\n"));
  const xref = length;
  let table = "xref\n0 6\n0000000000 65535 f \n";
  for (let n = 1; n <= 5; n++) table += `${String(offsets[n]).padStart(10, "0")} 00000 n \n`;
  push(Buffer.from(`${table}trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`));
  return new Uint8Array(Buffer.concat(parts));
}

const DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const files: Record<string, { body: Uint8Array; type: string }> = {
  "/bomb.docx": { body: inflatingDocx(), type: DOCX_TYPE },
  "/storm.pdf": { body: glyphStormPdf(4_000_000), type: "application/pdf" },
  "/handbook.docx": { body: buildDocx(), type: DOCX_TYPE },
};

let h: Harness;
let site: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const f = files[new URL(req.url).pathname];
      return f ? new Response(f.body.slice().buffer, { headers: { "content-type": f.type } }) : new Response("no", { status: 404 });
    },
  });
  // No continuations (scrape/document-continuations.ts): these tests are about the worker stopped at the deadline.
  h = await createHarness({ documentContinuations: 0 });
});
afterAll(async () => {
  await h.close();
  site.stop(true);
});

/** Scrapes `path` with `timeoutMs`, asking /health 400 ms in; returns the scrape's answer and how long /health took. */
async function scrapeWhileAskingHealth(path: string, timeoutMs: number) {
  const started = performance.now();
  const scrape = h.request("/v2/scrape", { method: "POST", json: { url: `http://127.0.0.1:${site.port}${path}`, timeout: timeoutMs, maxAge: 0 } });
  await Bun.sleep(400);
  const healthStarted = performance.now();
  const health = await h.request("/health", { auth: null });
  const healthMs = performance.now() - healthStarted;
  const res = await scrape;
  return { res, body: (await res.json()) as any, tookMs: performance.now() - started, healthStatus: health.status, healthMs };
}

describe("documents parse on a worker stopped at the deadline", () => {
  test("a 100 KB DOCX inflating to 30 MiB of XML ends at its timeout, and the server answers meanwhile", async () => {
    expect(files["/bomb.docx"]!.body.length).toBeLessThan(200_000);
    const r = await scrapeWhileAskingHealth("/bomb.docx", 1_000);
    expect([r.res.status, r.body.code]).toEqual([408, "SCRAPE_TIMEOUT"]);
    expect(r.tookMs).toBeLessThan(2_000);
    expect(r.healthStatus).toBe(200);
    expect(r.healthMs).toBeLessThan(250);
  }, 30_000);

  test("a PDF page of four million glyphs ends at its timeout, and the server answers meanwhile", async () => {
    const r = await scrapeWhileAskingHealth("/storm.pdf", 1_000);
    expect([r.res.status, r.body.code]).toEqual([408, "SCRAPE_TIMEOUT"]);
    expect(r.tookMs).toBeLessThan(2_000);
    expect(r.healthStatus).toBe(200);
    expect(r.healthMs).toBeLessThan(250);
  }, 30_000);

  test("after a worker was stopped, the next document is converted by a fresh one", async () => {
    const res = await h.request("/v2/scrape", { method: "POST", json: { url: `http://127.0.0.1:${site.port}/handbook.docx`, maxAge: 0 } });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body.data.markdown).toContain("[onboarding guide](https://example.org/onboarding)");
    const health = (await (await h.request("/health", { auth: null })).json()) as any;
    expect(health.documentWorkers).toMatchObject({ stopped: 2, crashed: 0, leased: 0, waiting: 0 });
  }, 30_000);
});

describe("the document worker pool", () => {
  test("a call still running at the lease's deadline stops the worker; the pool counts it and starts afresh", async () => {
    const pool = createDocumentWorkers({ size: 1 });
    try {
      const lease = await pool.lease(AbortSignal.timeout(300));
      const started = performance.now();
      const err = await lease.call({ op: "office", kind: "docx", body: files["/bomb.docx"]!.body }).catch((e: Error) => e);
      lease.release();
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).name).toBe("TimeoutError");
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(pool.stats()).toMatchObject({ live: 0, leased: 0, stopped: 1 });
      const next = await pool.lease(AbortSignal.timeout(10_000));
      const doc = await next.call({ op: "office", kind: "docx", body: buildDocx() });
      next.release();
      expect(doc.markdown).toContain("# Project Handbook");
    } finally {
      await pool.close();
    }
  }, 30_000);

  test("typed errors cross the thread with their code, status and details", async () => {
    const pool = createDocumentWorkers({ size: 1 });
    try {
      const lease = await pool.lease(AbortSignal.timeout(10_000));
      const corrupt = zipSync({ "word/document.xml": strToU8("not xml") });
      const err = (await lease.call({ op: "office", kind: "docx", body: corrupt }).catch((e) => e)) as any;
      const pdf = (await lease.call({ op: "pdfOpen", body: strToU8("%PDF-1.4 nothing else") }).catch((e) => e)) as any;
      lease.release();
      expect([err.code, err.status, err.details?.kind]).toEqual(["SCRAPE_DOCUMENT_CORRUPT", 422, "DOCX"]);
      expect([pdf.code, pdf.status]).toEqual(["SCRAPE_PDF_CORRUPT", 422]);
      expect(pool.stats()).toMatchObject({ live: 1, crashed: 0 });
    } finally {
      await pool.close();
    }
  }, 30_000);

  test("leases beyond maxLeases wait for a worker, and one whose signal aborts while waiting is refused", async () => {
    const pool = createDocumentWorkers({ size: 1, maxLeases: 1 });
    try {
      const first = await pool.lease(AbortSignal.timeout(10_000));
      const controller = new AbortController();
      const refused = pool.lease(controller.signal).catch((e: Error) => e.message);
      const waiting = pool.lease(AbortSignal.timeout(10_000));
      expect(pool.stats().waiting).toBe(2);
      controller.abort(new Error("client left"));
      expect(await refused).toBe("client left");
      let served = false;
      void waiting.then(() => (served = true));
      await Bun.sleep(50);
      expect(served).toBe(false);
      first.release();
      const second = await waiting;
      expect((await second.call({ op: "office", kind: "docx", body: buildDocx() })).credits).toBe(1);
      second.release();
      expect(pool.stats()).toMatchObject({ live: 1, waiting: 0 });
    } finally {
      await pool.close();
    }
  }, 30_000);

  test("a document holding its worker while it waits (for OCR) keeps no other from computing; calls compute `size` at a time", async () => {
    const pool = createDocumentWorkers({ size: 1, maxLeases: 2 });
    try {
      const holder = await pool.lease(AbortSignal.timeout(10_000));
      await holder.call({ op: "office", kind: "docx", body: buildDocx() });
      const other = await pool.lease(AbortSignal.timeout(10_000));
      expect(pool.stats()).toMatchObject({ live: 2, leased: 2, computing: 0 });
      const slow = holder.call({ op: "office", kind: "docx", body: files["/bomb.docx"]!.body }).catch((e: Error) => e);
      const quick = other.call({ op: "office", kind: "docx", body: buildDocx() });
      await Bun.sleep(50);
      expect(pool.stats()).toMatchObject({ computing: 1, waiting: 1 }); // the slow conversion runs, the quick one waits
      holder.release(); // gives up on the slow call: its worker is ended, its permit given back
      expect((await quick).credits).toBe(1);
      expect(await slow).toBeInstanceOf(Error);
      other.release();
      expect(pool.stats()).toMatchObject({ live: 1, leased: 0, computing: 0, waiting: 0 });
    } finally {
      await pool.close();
    }
  }, 30_000);

  test("a released worker keeps nothing of its last document", async () => {
    const pool = createDocumentWorkers({ size: 1, maxLeases: 1 });
    try {
      const first = await pool.lease(AbortSignal.timeout(10_000));
      expect(await first.call({ op: "pdfOpen", body: glyphStormPdf(10) })).toEqual({ total: 1 });
      first.release();
      const second = await pool.lease(AbortSignal.timeout(10_000));
      const err = (await second.call({ op: "pdfPages", from: 0, count: 1, mode: "fast", dpi: 200 }).catch((e) => e)) as Error;
      second.release();
      expect(err.message).toBe("no PDF is open in this document worker");
      expect(pool.stats()).toMatchObject({ live: 1, crashed: 0 });
    } finally {
      await pool.close();
    }
  }, 30_000);

  test("an idle worker does not keep a process alive", async () => {
    const script = `import { createDocumentWorkers } from ${JSON.stringify(join(import.meta.dir, "../../src/documents/isolate/pool.ts"))};
      const pool = createDocumentWorkers({ size: 1, idleMs: 20_000 });
      const lease = await pool.lease(AbortSignal.timeout(10_000));
      await lease.call({ op: "reset" }).catch(() => {});
      lease.release();
      console.log("released");`;
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-docworker-"));
    try {
      writeFileSync(join(dir, "idle.ts"), script);
      const started = performance.now();
      const proc = Bun.spawn([process.execPath, join(dir, "idle.ts")], { stdout: "pipe", stderr: "pipe" });
      const exited = await Promise.race([proc.exited, Bun.sleep(10_000).then(() => "hung")]);
      if (exited === "hung") proc.kill();
      expect([exited, (await new Response(proc.stdout).text()).trim()]).toEqual([0, "released"]);
      expect(performance.now() - started).toBeLessThan(8_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  test("a worker that cannot start is the server's fault: 503 DOCUMENT_WORKERS_UNAVAILABLE, not the document's", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-docworker-"));
    const broken = join(dir, "broken.ts");
    writeFileSync(broken, "import './does-not-exist.ts';\n");
    const messages: string[] = [];
    const pool = createDocumentWorkers({ size: 1, workerPath: broken, onWorkerError: (m) => messages.push(m) });
    try {
      const lease = await pool.lease(AbortSignal.timeout(10_000));
      const err = (await lease.call({ op: "office", kind: "docx", body: buildDocx() }).catch((e) => e)) as any;
      lease.release();
      expect([err.code, err.status, err.retryable]).toEqual(["DOCUMENT_WORKERS_UNAVAILABLE", 503, true]);
      expect(messages[0]).toContain("document worker failed to start");
    } finally {
      await pool.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);

  test("a crashing worker rejects with SCRAPE_DOCUMENT_PARSER_CRASHED; idle workers end", async () => {
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-docworker-"));
    const crashing = join(dir, "crash.ts");
    writeFileSync(crashing, "self.addEventListener('message', () => process.exit(3));\nself.postMessage({ id: -1, ok: true, result: null });\n");
    const messages: string[] = [];
    const pool = createDocumentWorkers({ size: 1, workerPath: crashing, onWorkerError: (m) => messages.push(m) });
    const real = createDocumentWorkers({ size: 1, idleMs: 50 });
    try {
      const lease = await pool.lease(AbortSignal.timeout(10_000));
      const err = (await lease.call({ op: "office", kind: "docx", body: buildDocx() }).catch((e) => e)) as any;
      lease.release();
      expect([err.code, err.status]).toEqual(["SCRAPE_DOCUMENT_PARSER_CRASHED", 422]);
      expect(pool.stats()).toMatchObject({ live: 0, crashed: 1 });
      expect(messages[0]).toContain("document worker crashed");

      const used = await real.lease(AbortSignal.timeout(10_000));
      await used.call({ op: "office", kind: "docx", body: buildDocx() });
      used.release();
      expect(real.stats().live).toBe(1);
      await Bun.sleep(200);
      expect(real.stats().live).toBe(0);
    } finally {
      await pool.close();
      await real.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
