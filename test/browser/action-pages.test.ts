/**
 * Pages that move under the browser engine's feet, and what actions do to the page: a document an action leads to
 * (its bytes, not text), pages that navigate while read, scripts that declare the wrapper's names or await at the
 * top level, screenshot actions (phone emulation kept, the page's size restored, cut height scaled to the width and
 * warned about), and a subresource that never loads. Real Chromium, a local fixture server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, fetchFile, htmlPage, imageSize, scrape } from "./helpers.ts";
import { readAcrossNavigation } from "../../src/engines/browser/page-reads.ts";

/** A PDF with the usual binary comment line: bytes ≥ 0x80 that a text round trip destroys. */
const BINARY_PDF = new Uint8Array([
  ...new TextEncoder().encode("%PDF-1.4\n%"),
  0xe2, 0xe3, 0xcf, 0xd3, 0x0a,
  ...new TextEncoder().encode(
    "1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n" +
      "3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n",
  ),
]);

const TEXT = `<p>${"Plenty of ordinary article text to read here. ".repeat(8)}</p>`;
const html = htmlPage;

let server: ReturnType<typeof Bun.serve>;
let base: string;
let h: Harness;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      switch (url.pathname) {
        case "/to-pdf":
          return html(`<h1>To PDF</h1>${TEXT}<a id="p" href="/file.pdf">pdf</a>`);
        case "/file.pdf":
          return new Response(BINARY_PDF, { headers: { "content-type": "application/pdf" } });
        case "/declares":
          return html(`<h1>Declares</h1><script>let data = 1; const config = 2;</script>`);
        case "/reloads": {
          // Reloads itself (after a busy moment, so reads meet the reload) until it was loaded `n` times.
          const n = Number(url.searchParams.get("n") ?? "12");
          return html(
            `<h1 id="h">Reloading</h1>${TEXT}`,
            `<script>const k = "loads"; const c = Number(sessionStorage.getItem(k) || 0) + 1; sessionStorage.setItem(k, c);
              if (c < ${n}) setTimeout(() => { const t = performance.now() + 40; while (performance.now() < t) {} location.reload(); }, 5);
              else document.addEventListener("DOMContentLoaded", () => { document.getElementById("h").textContent = "Settled after " + c; });</script>`,
          );
        }
        case "/later":
          return html(`<h1>Later</h1>`, `<script>setTimeout(() => { location.href = "/landed"; }, 150)</script>`);
        case "/landed":
          return html(`<h1>Landed</h1>`);
        case "/env":
          return html(`<h1>Env</h1>${TEXT}`);
        case "/tall":
          return html(`<div style="height:${Number(url.searchParams.get("px") ?? "20000")}px;background:linear-gradient(#fff,#000)"><h1>Tall</h1></div>`);
        case "/hang-img":
          return html(`<h1>Hanging image</h1>${TEXT}<img src="/never.png">`);
        case "/never.png":
          await new Promise(() => {});
          return new Response("");
        default:
          return new Response("not found", { status: 404 });
      }
    },
  });
  base = server.url.href.replace(/\/$/, "");
  h = await browserHarness();
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  server.stop(true);
});

describe("a document an action leads to", () => {
  test("a binary PDF reached by a click comes back byte for byte (parsers: [] returns it as base64)", async () => {
    const { status, body } = await scrape(h, {
      url: `${base}/to-pdf`,
      parsers: [],
      actions: [{ type: "click", selector: "#p" }, { type: "wait", milliseconds: 500 }],
    });
    expect(status).toBe(200);
    expect(body.data.metadata.contentType).toBe("application/pdf");
    expect(Buffer.from(body.data.markdown, "base64").equals(Buffer.from(BINARY_PDF))).toBe(true);
  }, 60_000);
});

describe("executeJavascript", () => {
  test("a script may declare var v / var out (the wrapper's names)", async () => {
    const { status, body } = await scrape(h, {
      url: `${base}/env`,
      actions: [
        { type: "executeJavascript", script: "var v = 2; var out = 3; v + out" },
        { type: "executeJavascript", script: "let out = 'x'; const v = out + 'y'; v" },
      ],
    });
    expect(status).toBe(200);
    expect(body.data.actions.javascriptReturns).toEqual([
      { type: "number", value: 5 },
      { type: "string", value: "xy" },
    ]);
  }, 60_000);

  test("top-level await keeps the script's value; let/const the page declared and return still work", async () => {
    const { status, body } = await scrape(h, {
      url: `${base}/declares`,
      actions: [
        { type: "executeJavascript", script: "await Promise.resolve(7)" },
        { type: "executeJavascript", script: "const x = await new Promise(r => setTimeout(() => r([1, 2]), 10)); x" },
        { type: "executeJavascript", script: "await null; return 9" },
        { type: "executeJavascript", script: "let data = 5; const config = 6; data + config" },
        { type: "executeJavascript", script: "await Promise.resolve('s'.repeat(3))" },
        { type: "executeJavascript", script: "await undefined" },
        // A let the page declared, with a top-level await: the script's own (REPL mode runs it as a block), its value
        // kept (it ran as a function body before, whose value is undefined), the page's own left as it was.
        { type: "executeJavascript", script: "await null; let data = 3; window.__d = data" },
        { type: "executeJavascript", script: "__d" },
        { type: "executeJavascript", script: "data" },
      ],
    });
    expect({ status, error: body.error }).toEqual({ status: 200, error: undefined });
    expect(body.data.actions.javascriptReturns).toEqual([
      { type: "number", value: 7 },
      { type: "array", value: [1, 2] },
      { type: "number", value: 9 },
      { type: "number", value: 11 },
      { type: "string", value: "sss" },
      { type: "undefined", value: null },
      { type: "number", value: 3 },
      { type: "number", value: 3 },
      { type: "number", value: 1 },
    ]);
  }, 60_000);

  test("a top-level-await script that throws is SCRAPE_ACTION_ERROR with its message", async () => {
    const { status, body } = await scrape(h, { url: `${base}/env`, actions: [{ type: "executeJavascript", script: "await 1; throw new Error('boom')" }] });
    expect(status).toBe(500);
    expect(body.code).toBe("SCRAPE_ACTION_ERROR");
    expect(body.error).toContain("boom");
  }, 60_000);
});

describe("a page that navigates while it is read", () => {
  test("a read the navigation interrupts is made again on the new document", async () => {
    const pool = h.services.engines.pool!;
    const lease = await pool.acquire({ deadline: performance.now() + 30_000 });
    try {
      await lease.page.goto(`${base}/later`, { waitUntil: "domcontentloaded" });
      // The read outlives the document (it waits 1 s; the page leaves after 150 ms): its context is destroyed.
      const title = await readAcrossNavigation(
        lease.page,
        () => lease.page.evaluate(() => new Promise<string>((r) => setTimeout(() => r(document.querySelector("h1")!.textContent!), 1_000))),
        performance.now() + 20_000,
      );
      expect(title).toBe("Landed");
    } finally {
      lease.release();
    }
  }, 60_000);

  test("reads during actions and of the final page survive a page that reloads itself; the browser is not suspected", async () => {
    const pool = h.services.engines.pool!;
    const generation = (await pool.acquire({ deadline: performance.now() + 30_000 }).then((l) => (l.release(), l.generation)));
    for (let round = 0; round < 3; round++) {
      const { status, body } = await scrape(h, {
        url: `${base}/reloads?n=12&round=${round}`,
        formats: ["markdown", { type: "screenshot", fullPage: true }],
        actions: [{ type: "scrape" }, { type: "screenshot", fullPage: true }, { type: "scrape" }, { type: "click", selector: "h1" }, { type: "scrape" }],
        timeout: 45_000,
      });
      expect({ round, status, error: body.error }).toEqual({ round, status: 200, error: undefined });
      expect(body.data.actions.scrapes).toHaveLength(3);
    }
    const after = await pool.acquire({ deadline: performance.now() + 30_000 });
    after.release();
    expect(after.generation).toBe(generation);
  }, 180_000);
});

describe("screenshot actions", () => {
  const ENV = "[innerWidth, devicePixelRatio, matchMedia('(pointer: coarse)').matches, navigator.maxTouchPoints > 0]";

  test("a viewport on a phone keeps the phone for later actions and the final page", async () => {
    const { status, body } = await scrape(h, {
      url: `${base}/env`,
      mobile: true,
      formats: ["markdown", "screenshot"],
      actions: [
        { type: "executeJavascript", script: ENV },
        { type: "screenshot", viewport: { width: 600, height: 400 } },
        { type: "executeJavascript", script: ENV },
      ],
    });
    expect(status).toBe(200);
    const [before, after] = body.data.actions.javascriptReturns.map((r: { value: unknown }) => r.value);
    // A phone: its pixel ratio and touch (the layout viewport of a page without <meta viewport> is 980-ish px wide).
    expect(before.slice(1)).toEqual([2.625, true, true]);
    expect(after).toEqual(before);
    const shot = imageSize(new Uint8Array(await (await fetchFile(h, body.data.actions.screenshots[0])).arrayBuffer()));
    const final = imageSize(new Uint8Array(await (await fetchFile(h, body.data.screenshot)).arrayBuffer()));
    // Both taken at the phone's pixel ratio, in the same units: the action's at its size, the format's at the phone's.
    expect(shot.width / final.width).toBeCloseTo(600 / 412, 2);
    expect(shot.height / final.height).toBeCloseTo(400 / 915, 2);
  }, 60_000);

  test("an action's viewport does not change the screenshot format's size", async () => {
    const { status, body } = await scrape(h, {
      url: `${base}/env`,
      formats: ["markdown", "screenshot"],
      actions: [{ type: "screenshot", viewport: { width: 640, height: 480 } }],
    });
    expect(status).toBe(200);
    const final = imageSize(new Uint8Array(await (await fetchFile(h, body.data.screenshot)).arrayBuffer()));
    expect([final.width, final.height]).toEqual([1920, 1080]);
  }, 60_000);

  test("a full-page screenshot action cut at the height cap says so, naming the action", async () => {
    const { status, body } = await scrape(h, {
      url: `${base}/tall?px=20000`,
      actions: [{ type: "wait", milliseconds: 1 }, { type: "screenshot", fullPage: true, quality: 40 }],
    });
    expect(status).toBe(200);
    const shot = imageSize(new Uint8Array(await (await fetchFile(h, body.data.actions.screenshots[0])).arrayBuffer()));
    expect(shot.height).toBe(16_384);
    expect(body.data.warning).toContain("The full-page screenshot of action 1 was cut at 16384 px");
  }, 60_000);

  test("the full-page cut scales with the width: a 7680-px-wide page is cut at 4096 px, not 16384", async () => {
    const { status, body } = await scrape(h, {
      url: `${base}/tall?px=6000`,
      actions: [{ type: "screenshot", fullPage: true, quality: 40, viewport: { width: 7680, height: 1000 } }],
    });
    expect(status).toBe(200);
    const shot = imageSize(new Uint8Array(await (await fetchFile(h, body.data.actions.screenshots[0])).arrayBuffer()));
    expect([shot.width, shot.height]).toEqual([7680, 4096]);
    expect(body.data.warning).toContain("The full-page screenshot of action 0 was cut at 4096 px");
  }, 60_000);
});

describe("a subresource that never loads", () => {
  test("the parsed page is served, with its screenshot and a warning, not a 408", async () => {
    const { status, body } = await scrape(h, { url: `${base}/hang-img`, formats: ["markdown", "screenshot"], timeout: 10_000 });
    expect({ status, code: body.code }).toEqual({ status: 200, code: undefined });
    expect(body.data.markdown).toContain("Hanging image");
    expect(typeof body.data.screenshot).toBe("string");
    expect(body.data.warning).toContain("did not finish loading");
  }, 60_000);
});
