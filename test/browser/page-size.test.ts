/**
 * The browser engine holds the main document to CRAWLBOX_MAX_PAGE_BYTES while it downloads (document-size.ts), as
 * the HTTP engine holds a body: decoded bytes are counted as they arrive and a Content-Length above the limit is
 * refused with the headers, both with the HTTP engine's SCRAPE_RESPONSE_TOO_LARGE, long before the scrape's timeout.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import zlib from "node:zlib";
import { startRawHttpServer } from "../fixtures/raw-servers.ts";
import { startCountingServer, type FixtureServer } from "../fixtures/servers.ts";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, scrape } from "./helpers.ts";

const MAX_PAGE_BYTES = 1_000_000;

/** What the endless page sent (decoded bytes) and whether its reader went away. */
const endless = { decoded: 0, cancelled: false };

/**
 * An HTML page that never ends: ~57 KB of text every 5 ms (11 MB/s decoded, so past the limit in about 0.1 s),
 * gzip-compressed (a few hundred bytes on the wire per piece) with `?gzip`. Without a byte limit while it downloads,
 * its `load` never comes and the scrape ends at its timeout.
 */
function endlessPage(gzip: boolean): Response {
  const z = zlib.createGzip();
  const piece = Buffer.from(`<p>${"Endless text that never stops. ".repeat(1800)}</p>\n`);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      z.on("data", (d: Buffer) => controller.enqueue(new Uint8Array(d)));
      if (!gzip) controller.enqueue(new TextEncoder().encode("<!doctype html><html><body>"));
      else z.write("<!doctype html><html><body>");
    },
    async pull(controller) {
      await Bun.sleep(5);
      if (endless.cancelled) return;
      endless.decoded += piece.byteLength;
      if (!gzip) return controller.enqueue(new Uint8Array(piece));
      z.write(piece);
      await new Promise<void>((done) => z.flush(zlib.constants.Z_SYNC_FLUSH, () => done()));
    },
    cancel() {
      endless.cancelled = true;
      z.destroy();
    },
  });
  return new Response(body, { headers: { "content-type": "text/html; charset=utf-8", ...(gzip ? { "content-encoding": "gzip" } : {}) } });
}

let site: FixtureServer;
let declared: Awaited<ReturnType<typeof startRawHttpServer>>;
let h: Harness;

beforeAll(async () => {
  site = startCountingServer((req) => {
    const url = new URL(req.url);
    if (url.pathname === "/endless") return endlessPage(url.searchParams.has("gzip"));
    return new Response(`<!doctype html><html><body><h1>Small page</h1><p>${"Some text. ".repeat(500)}</p></body></html>`, {
      headers: { "content-type": "text/html" },
    });
  });
  // Declares 2 MB, sends 1 KB and then nothing: only the declared length can end this scrape early.
  declared = await startRawHttpServer(
    ["HTTP/1.1 200 OK", "Content-Type: text/html", `Content-Length: ${2 * MAX_PAGE_BYTES}`],
    new TextEncoder().encode(`<!doctype html><html><body><p>${"x".repeat(1000)}</p>`),
  );
  h = await browserHarness({ maxPageBytes: MAX_PAGE_BYTES });
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  await site.stop();
  await declared.stop();
});

describe("the main document is held to CRAWLBOX_MAX_PAGE_BYTES while it downloads", () => {
  for (const gzip of [true, false]) {
    test(`an endless ${gzip ? "gzip" : "plain"} page is stopped past the limit of decoded bytes, with SCRAPE_RESPONSE_TOO_LARGE`, async () => {
      endless.decoded = 0;
      endless.cancelled = false;
      const url = `${site.url}/endless${gzip ? "?gzip" : ""}`;
      const started = performance.now();
      const { status, body } = await scrape(h, { url, waitFor: 100, timeout: 15_000, maxAge: 0 });
      const tookMs = performance.now() - started;
      expect({ status, code: body.code }).toEqual({ status: 500, code: "SCRAPE_RESPONSE_TOO_LARGE" });
      expect(body.error).toBe(`The response from ${url} exceeds the limit of ${MAX_PAGE_BYTES} bytes.`);
      expect(tookMs).toBeLessThan(5_000);
      // Chromium stopped reading: the page's stream is given up soon after, with a few MB sent at most.
      for (let i = 0; i < 50 && !endless.cancelled; i++) await Bun.sleep(100);
      expect(endless.cancelled).toBe(true);
      expect(endless.decoded).toBeLessThan(30 * MAX_PAGE_BYTES);
    }, 30_000);
  }

  test("a Content-Length above the limit is refused when the headers arrive", async () => {
    const started = performance.now();
    const { status, body } = await scrape(h, { url: declared.url, waitFor: 100, timeout: 15_000, maxAge: 0 });
    expect({ status, code: body.code }).toEqual({ status: 500, code: "SCRAPE_RESPONSE_TOO_LARGE" });
    expect(body.error).toContain(`(Content-Length: ${2 * MAX_PAGE_BYTES})`);
    expect(performance.now() - started).toBeLessThan(5_000);
  }, 30_000);

  test("a page within the limit is scraped as before, and the next scrape is unaffected", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/small`, waitFor: 100, maxAge: 0 });
    expect(status).toBe(200);
    expect(body.data.markdown).toContain("Small page");
    expect(body.data.metadata.engine).toBe("browser");
  });
});
