/**
 * A document whose conversion outlasts the scrape's `timeout` (scrape/document-continuations.ts): the answer is
 * upstream's 408 `SCRAPE_TIMEOUT` with `details.state: "processing_continues"` and `Retry-After`, the conversion
 * goes on, and the same request sent again collects it, charged once; the official SDK's `scrape` (autoResume, on
 * by default) does that by itself and returns the document. Before, every attempt started over and timed out again.
 * The slow document is a real one: forty scanned pages, each read by OCR.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { buildPdf, type TextRun } from "../fixtures/documents/pdf-builder.ts";
import { DocumentContinuations, ProcessingContinuesError } from "../../src/scrape/document-continuations.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
let site: ReturnType<typeof Bun.serve>;
let fetches = 0;

const scanned = (n: number): TextRun[] => [
  { text: `Invoice ${4400 + n}`, x: 72, y: 90, size: 26 },
  { text: "Goods delivered to Copenhagen", x: 72, y: 140, size: 18 },
];

beforeAll(async () => {
  const pdf = await buildPdf(Array.from({ length: 40 }, (_, i) => ({ width: 420, height: 260, scanned: scanned(i) })));
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => {
      fetches++;
      return new Response(Buffer.from(pdf), { headers: { "content-type": "application/pdf" } });
    },
  });
  h = await createHarness({ ocrWorkers: 1 });
}, 30_000);
afterAll(async () => {
  await h.close();
  site.stop(true);
});

describe("processing_continues", () => {
  test("the 408 says the document goes on; the same request again collects it, charged once", async () => {
    const body = { url: `http://127.0.0.1:${site.port}/scan.pdf`, timeout: 1000, parsers: [{ type: "pdf", mode: "ocr" }] };
    const before = h.services.ledger.usage(h.services.keys.verify(h.key)!).creditsUsed;
    const first = await h.request("/v2/scrape", { method: "POST", json: body });
    const failed = (await first.json()) as any;
    expect(first.status).toBe(408);
    expect(failed).toMatchObject({ success: false, code: "SCRAPE_TIMEOUT", details: { state: "processing_continues", retryAfterSeconds: 5 } });
    expect(first.headers.get("retry-after")).toBe("5");
    let doc: any;
    for (let i = 0; i < 60 && !doc; i++) {
      const again = await h.request("/v2/scrape", { method: "POST", json: { ...body, timeout: 5000 } });
      if (again.status === 200) doc = ((await again.json()) as any).data;
      else expect(((await again.json()) as any).details?.state).toBe("processing_continues");
    }
    expect(doc.markdown).toContain("Invoice 4439");
    expect(doc.metadata.numPages).toBe(40);
    expect(h.services.ledger.usage(h.services.keys.verify(h.key)!).creditsUsed - before).toBe(40);
  }, 120_000);

  test("the official SDK's scrape resumes by itself and returns the document", async () => {
    const app = new Firecrawl({ apiKey: h.key, apiUrl: h.listen() });
    const url = `http://127.0.0.1:${site.port}/scan-again.pdf`;
    // Another conversion than the test above's: different parser options make another key.
    const fetchesBefore = fetches;
    const doc = await app.scrape(url, { timeout: 1000, maxAge: 0, parsers: [{ type: "pdf", mode: "ocr", maxPages: 39 }] });
    expect(doc.markdown).toContain("Invoice 4438");
    expect(doc.metadata?.numPages).toBe(39);
    expect(fetches - fetchesBefore).toBeGreaterThanOrEqual(2); // it was sent again after a processing_continues 408
  }, 120_000);
});

describe("DocumentContinuations", () => {
  test("past its room, a timeout stops the conversion (its signal aborts) instead of going on", async () => {
    const c = new DocumentContinuations<string>(1);
    const never = (signal: AbortSignal) => new Promise<string>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    await expect(c.run("a", "key-1", 20, 20, undefined, never)).rejects.toBeInstanceOf(ProcessingContinuesError);
    let stopped = false;
    const watched = (signal: AbortSignal) => {
      signal.addEventListener("abort", () => (stopped = true));
      return never(signal);
    };
    await expect(c.run("b", "key-2", 20, 20, undefined, watched)).rejects.toMatchObject({ code: "SCRAPE_TIMEOUT", details: { timeoutMs: 20 } });
    expect(stopped).toBe(true);
    expect(c.size).toBe(1);
    c.close();
    expect(c.size).toBe(0);
  });

  test("a conversion still inside its own request is not a continuation: another times out into one", async () => {
    const c = new DocumentContinuations<string>(1);
    let finishA!: (v: string) => void;
    const a = c.run("a", "key-1", 1000, 1000, undefined, () => new Promise<string>((resolve) => (finishA = resolve)));
    const never = (signal: AbortSignal) => new Promise<string>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    await expect(c.run("b", "key-2", 10, 10, undefined, never)).rejects.toBeInstanceOf(ProcessingContinuesError);
    finishA("A");
    expect(await a).toBe("A");
    c.close();
  });

  test("a conversion another request still waits on is not stopped when the first request's time runs out", async () => {
    const c = new DocumentContinuations<string>(0); // no room for continuations at all
    let calls = 0;
    const slow = () => {
      calls++;
      return Bun.sleep(150).then(() => "done");
    };
    const first = c.run("k", "key-1", 20, 20, undefined, slow);
    const second = c.run("k", "key-1", 2000, 2000, undefined, slow);
    await expect(first).rejects.toBeInstanceOf(ProcessingContinuesError);
    expect(await second).toBe("done");
    expect(calls).toBe(1);
    expect(c.size).toBe(0);
  });

  test("one continuation per API key: a second document of the same key is stopped at its timeout", async () => {
    const c = new DocumentContinuations<string>(4);
    const never = (signal: AbortSignal) => new Promise<string>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    await expect(c.run("one", "key-1", 10, 10, undefined, never)).rejects.toBeInstanceOf(ProcessingContinuesError);
    const second = await c.run("two", "key-1", 10, 10, undefined, never).catch((e) => e);
    expect(second).not.toBeInstanceOf(ProcessingContinuesError);
    expect(second).toMatchObject({ code: "SCRAPE_TIMEOUT" });
    await expect(c.run("three", "key-2", 10, 10, undefined, never)).rejects.toBeInstanceOf(ProcessingContinuesError);
    expect(c.size).toBe(2);
    c.close();
  });

  test("a finished conversion is handed to the request that collects it, then forgotten; so is a failed one", async () => {
    const c = new DocumentContinuations<string>(2);
    let finish!: (v: string) => void;
    let calls = 0;
    const slow = () => {
      calls++;
      return new Promise<string>((resolve) => (finish = resolve));
    };
    await expect(c.run("k", "key-1", 10, 10, undefined, slow)).rejects.toBeInstanceOf(ProcessingContinuesError);
    finish("done");
    expect(await c.run("k", "key-1", 1000, 1000, undefined, slow)).toBe("done");
    expect(calls).toBe(1);
    expect(c.size).toBe(0);
    const failing = () => Promise.reject(new Error("corrupt"));
    await expect(c.run("f", "key-1", 1000, 1000, undefined, failing)).rejects.toThrow("corrupt");
    expect(c.size).toBe(0);
  });
});
