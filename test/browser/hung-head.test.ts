/**
 * A page whose `<head>` waits for a script or stylesheet that never answers: the document is all there, but
 * `DOMContentLoaded` never comes, and Chromium never renders the page. A screenshot or branding scrape of it was a
 * 408 SCRAPE_TIMEOUT with nothing, and so was a JavaScript-shell page whose browser fallback met it although the HTTP
 * engine already had the page. Now: the page as far as it was parsed, with warnings, within the timeout; the
 * fallback answers with the HTML as served (engines/browser/document-wait.ts, engines/router.ts). Real Chromium, a
 * local fixture server.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, htmlPage, timedScrape } from "./helpers.ts";

const TEXT = `<p>${"Page whose head never finishes loading. ".repeat(10)}</p>`;
const TIMEOUT_MS = 8_000;

let server: ReturnType<typeof Bun.serve>;
let base: string;
let h: Harness;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      switch (new URL(req.url).pathname) {
        case "/hang-script":
          return htmlPage(`<h1>Hung script</h1>${TEXT}`, `<script src="/never.js"></script>`);
        case "/hang-css":
          // The trailing script waits for the stylesheet, so DOMContentLoaded does too.
          return htmlPage(`<h1>Hung stylesheet</h1>${TEXT}<script>document.title = "ran";</script>`, `<link rel="stylesheet" href="/never.css">`);
        case "/hang-css-only":
          // No script after the stylesheet: DOMContentLoaded comes, `load` does not, and nothing is rendered.
          return htmlPage(`<h1>Hung stylesheet only</h1>${TEXT}`, `<link rel="stylesheet" href="/never.css">`);
        case "/shell":
          return htmlPage(`<div id="root"></div><noscript>Please enable JavaScript to view this site.</noscript><p>Welcome to the shop</p>`, `<script src="/never.js"></script>`);
        case "/busy-shell":
          // A shell whose script never ends: the browser cannot even read the page before the deadline.
          return htmlPage(`<div id="root"></div><p>Welcome to the busy shop</p><script>for (;;) {}</script>`);
        case "/never.js":
        case "/never.css":
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

/** A fresh scrape within {@link TIMEOUT_MS}, and how long it took. */
const timed = (body: Record<string, unknown>) => timedScrape(h, { maxAge: 0, timeout: TIMEOUT_MS, ...body });

test("a screenshot of a page whose head script never answers: 200 within the timeout, the page as parsed, warnings", async () => {
  const { status, body, ms } = await timed({ url: `${base}/hang-script`, formats: ["markdown", "screenshot"] });
  expect({ status, code: body.code }).toEqual({ status: 200, code: undefined });
  expect(ms).toBeLessThan(TIMEOUT_MS);
  expect(body.data.metadata.engine).toBe("browser");
  expect(body.data.warning).toContain("was not fully parsed");
  // Chromium renders nothing while the head waits: no picture, said so.
  expect(body.data.screenshot).toBeUndefined();
  expect(body.data.warning).toContain("No screenshot was taken: the browser had not rendered the page");
}, 60_000);

test("a stylesheet that never answers, with a script after it: 200 with the parsed text and a warning", async () => {
  const { status, body, ms } = await timed({ url: `${base}/hang-css`, formats: ["markdown", "screenshot"] });
  expect(status).toBe(200);
  expect(ms).toBeLessThan(TIMEOUT_MS);
  expect(body.data.markdown).toContain("Hung stylesheet");
  expect(body.data.warning).toContain("was not fully parsed");
}, 60_000);

test("a stylesheet that never answers, without a script after it: parsed, never rendered, so no screenshot, not a 408", async () => {
  const { status, body, ms } = await timed({ url: `${base}/hang-css-only`, formats: ["markdown", "screenshot"] });
  expect({ status, code: body.code }).toEqual({ status: 200, code: undefined });
  expect(ms).toBeLessThan(TIMEOUT_MS);
  expect(body.data.markdown).toContain("Hung stylesheet only");
  expect(body.data.warning).toContain("did not finish loading");
  expect(body.data.warning).toContain("No screenshot was taken");
}, 60_000);

test("branding of a page whose head script never answers: 200 with a warning", async () => {
  const { status, body, ms } = await timed({ url: `${base}/hang-script`, formats: ["branding"] });
  expect(status).toBe(200);
  expect(ms).toBeLessThan(TIMEOUT_MS);
  expect(typeof body.data.branding).toBe("object");
  expect(body.data.warning).toContain("was not fully parsed");
}, 60_000);

test("a JavaScript shell whose browser fallback meets a hung head script: the HTML as served, with a warning", async () => {
  const { status, body, ms } = await timed({ url: `${base}/shell`, formats: ["markdown"] });
  expect({ status, code: body.code }).toEqual({ status: 200, code: undefined });
  expect(ms).toBeLessThan(TIMEOUT_MS);
  expect(body.data.metadata.engine).toBe("http");
  expect(body.data.markdown).toContain("Welcome to the shop");
  expect(body.data.warning).toContain("this is its HTML as served");
}, 60_000);

test("a JavaScript shell whose browser fallback times out: the HTML as served within the timeout, not a 408", async () => {
  const { status, body, ms } = await timed({ url: `${base}/busy-shell`, formats: ["markdown"] });
  expect({ status, code: body.code }).toEqual({ status: 200, code: undefined });
  expect(ms).toBeLessThan(TIMEOUT_MS);
  expect(body.data.metadata.engine).toBe("http");
  expect(body.data.markdown).toContain("Welcome to the busy shop");
  expect(body.data.warning).toContain("the browser did not finish within the timeout: this is its HTML as served");
}, 60_000);
