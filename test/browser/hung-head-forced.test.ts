/**
 * A page whose `<head>` waits for a script that never answers, scraped where the browser is the only engine (`waitFor`,
 * `mobile`, actions: no HTTP page to fall back on), and pictures of it. Chromium stops parsing at that script, so the
 * DOM has no body: such a scrape came back with empty markdown. Now the formats are built from the main document as
 * the browser received it (its bytes from the browser, decoded with the page's charset as the HTTP engine decodes),
 * with a warning, and only when the parse did not finish (`document.readyState` still "loading"): a page whose
 * scripts replaced its body keeps its DOM. A `screenshot` action of a page Chromium never rendered waited until the
 * timeout; now its slot in `actions.screenshots` is an empty string, with a warning (a page rendered but not loaded
 * still gets its picture), and an interact script's `page.screenshot()` fails at once with a message instead of
 * holding the script until its time runs out.
 * Real Chromium, local fixture servers (engines/browser/received-html.ts, screenshot.ts, actions.ts).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, fetchFile, htmlPage, imageSize, scrape, timedScrape } from "./helpers.ts";

const TEXT = `<p>${"The body of a page whose head never finishes loading. ".repeat(10)}</p>`;
const TIMEOUT_MS = 8_000;
const HUNG_SCRIPT = `<script src="/never.js"></script>`;

/** A windows-1252 page (é = 0xE9) whose head waits for a script that never answers. */
function latin1Page(noStore: boolean): Response {
  const html = `<!doctype html><html><head><title>Carte</title>${HUNG_SCRIPT}</head><body><h1>Café crème brûlée</h1>${TEXT}</body></html>`;
  return new Response(Buffer.from(html, "latin1"), {
    headers: { "content-type": "text/html; charset=windows-1252", ...(noStore ? { "cache-control": "no-store" } : {}) },
  });
}

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
          return htmlPage(`<h1>Hung script</h1>${TEXT}`, HUNG_SCRIPT);
        case "/docwrite":
          // Parsed whole; after `load` its script rewrites the document with document.open/write and no close(),
          // which leaves `readyState` at "loading" for good.
          return htmlPage(`<h1>Original heading</h1>${TEXT}<script>addEventListener("load", () => setTimeout(() => { document.open(); document.write("<p>Written by the page</p>"); }, 0));</script>`);
        case "/js-redirect":
          return htmlPage(`<h1>First page</h1>${TEXT}<script>setTimeout(() => { location.href = "/slow-body"; }, 300);</script>`);
        case "/slow-body": {
          // Its body arrives over 20 s: still "loading" when the scrape reads it.
          const enc = new TextEncoder();
          let i = 0;
          const body = new ReadableStream<Uint8Array>({
            async pull(c) {
              if (i === 0) c.enqueue(enc.encode(`<!doctype html><html><head><title>Second</title></head><body><h1>Second page</h1><p>${"second ".repeat(100)}</p>`));
              else if (i < 40) {
                await Bun.sleep(500);
                c.enqueue(enc.encode(`<p>chunk ${i}</p>\n`));
              } else {
                c.enqueue(enc.encode("</body></html>"));
                c.close();
              }
              i++;
            },
          });
          return new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
        }
        case "/to-hang":
          return htmlPage(`<h1>Start</h1><p><a href="/hang-script">to the hung page</a></p>`);
        case "/hang-1252":
          return latin1Page(false);
        case "/hang-1252-no-store":
          return latin1Page(true);
        case "/replaced":
          // Parsed whole; its script puts a short text in place of the body's text; an iframe that never arrives
          // (kept) holds `load`.
          return htmlPage(
            `<h1>Original heading</h1>${TEXT}<iframe src="/never.html"></iframe><script>for (const el of document.querySelectorAll("h1, p")) el.remove(); document.body.insertAdjacentHTML("afterbegin", "<p>Replaced by the page's script</p>");</script>`,
          );
        case "/hang-img":
          // Rendered, but `load` never comes: its screenshot action is taken (the render probe answers at once).
          return htmlPage(`<h1>Hanging image</h1>${TEXT}<img src="/never.png">`);
        case "/never.js":
        case "/never.html":
        case "/never.png":
          await new Promise(() => {});
          return new Response("");
        default:
          return new Response("not found", { status: 404 });
      }
    },
  });
  base = server.url.href.replace(/\/$/, "");
  // Four pages: a scrape's, and an interact session's page and its sandbox's.
  h = await browserHarness({ browserConcurrency: 4 });
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  server.stop(true);
});

/** A fresh scrape within {@link TIMEOUT_MS}, and how long it took. */
const timed = (body: Record<string, unknown>) => timedScrape(h, { maxAge: 0, timeout: TIMEOUT_MS, ...body });

test("waitFor on a page whose head script never answers: the markdown of the HTML as received, with a warning", async () => {
  const { status, body, ms } = await timed({ url: `${base}/hang-script`, formats: ["markdown", "html"], waitFor: 200 });
  expect({ status, code: body.code }).toEqual({ status: 200, code: undefined });
  expect(ms).toBeLessThan(TIMEOUT_MS);
  expect(body.data.metadata.engine).toBe("browser");
  expect(body.data.markdown).toContain("Hung script");
  expect(body.data.markdown).toContain("The body of a page whose head never finishes loading.");
  expect(body.data.html).toContain("<h1>Hung script</h1>");
  expect(body.data.warning).toContain("was not fully parsed");
  expect(body.data.warning).toContain("built from its HTML as the browser received it");
}, 60_000);

test("a windows-1252 page, cached or not by the browser: decoded with its charset, not as UTF-8", async () => {
  for (const path of ["/hang-1252", "/hang-1252-no-store"]) {
    const { status, body } = await timed({ url: `${base}${path}`, formats: ["markdown"], mobile: true });
    expect({ path, status }).toEqual({ path, status: 200 });
    expect({ path, markdown: body.data.markdown.split("\n")[0] }).toEqual({ path, markdown: "# Café crème brûlée" });
    expect(body.data.metadata.title).toBe("Carte");
    expect(body.data.warning).toContain("built from its HTML as the browser received it");
  }
}, 60_000);

test("a page whose own script replaced its body (parsed whole, load never came): the DOM stays, whatever it lost", async () => {
  const { status, body } = await timed({ url: `${base}/replaced`, formats: ["markdown"], waitFor: 200 });
  expect(status).toBe(200);
  // Cut short (the iframe), so the page is degraded as a hung head's is: only the parse state tells them apart.
  expect(body.data.warning).toContain("did not finish loading");
  expect(body.data.markdown).toContain("Replaced by the page's script");
  expect(body.data.markdown).not.toContain("Original heading");
  expect(body.data.warning).not.toContain("as the browser received it");
}, 60_000);

test("a screenshot action on a page never rendered: its slot kept as an empty string, a warning, within the timeout", async () => {
  const { status, body, ms } = await timed({
    url: `${base}/hang-script`,
    formats: ["markdown"],
    actions: [{ type: "screenshot" }, { type: "scrape" }, { type: "screenshot", fullPage: true }],
  });
  expect({ status, code: body.code, error: body.error }).toEqual({ status: 200, code: undefined, error: undefined });
  expect(ms).toBeLessThan(TIMEOUT_MS);
  // One slot per screenshot action, so that actions.screenshots[i] stays the i-th screenshot action's.
  expect(body.data.actions.screenshots).toEqual(["", ""]);
  expect(body.data.actions.scrapes).toHaveLength(1);
  expect(body.data.warning).toContain("No screenshot was taken for action 0");
  expect(body.data.warning).toContain("No screenshot was taken for action 2");
  expect(body.data.markdown).toContain("Hung script");
}, 60_000);

test("a screenshot action on a page rendered but never loaded (an image that never arrives): the picture is taken", async () => {
  const { status, body } = await timed({ url: `${base}/hang-img`, formats: ["markdown"], actions: [{ type: "screenshot" }] });
  expect(status).toBe(200);
  expect(body.data.warning).toContain("did not finish loading");
  expect(body.data.actions.screenshots).toHaveLength(1);
  const shot = imageSize(new Uint8Array(await (await fetchFile(h, body.data.actions.screenshots[0])).arrayBuffer()));
  expect(shot.type).toBe("png");
  expect(body.data.warning).not.toContain("No screenshot was taken");
}, 60_000);

test("an interact script's page.screenshot() of a page never rendered fails at once with a message", async () => {
  const app = new Firecrawl({ apiKey: h.key, apiUrl: h.listen() });
  const { id } = (await app.browser()) as any;
  try {
    const t0 = performance.now();
    const r = (await app.browserExecute(id, {
      language: "node",
      timeout: 20,
      code: `
        try { await page.goto("${base}/hang-script", { timeout: 1500 }); } catch {}
        try { await page.screenshot(); return "taken"; } catch (e) { return "failed: " + e.message; }`,
    })) as any;
    const ms = performance.now() - t0;
    expect({ killed: r.killed, result: r.result }).toEqual({
      killed: false,
      result: expect.stringContaining("failed: no screenshot was taken: the browser has not rendered the page") as unknown as string,
    });
    expect(ms).toBeLessThan(10_000);
  } finally {
    // A script stopped by its time ends the session (docs/interact.md): nothing left to delete then.
    await app.deleteBrowser(id).catch(() => {});
  }
}, 60_000);

test("the screenshot format after an action led to a page that never renders: 200 without the picture, not a 408", async () => {
  const { status, body, ms } = await timed({ url: `${base}/to-hang`, formats: ["markdown", "screenshot"], actions: [{ type: "click", selector: "a" }] });
  expect({ status, code: body.code }).toEqual({ status: 200, code: undefined });
  expect(ms).toBeLessThan(TIMEOUT_MS);
  expect(body.data.screenshot).toBeUndefined();
  expect(body.data.warning).toContain("No screenshot was taken");
}, 60_000);

test("a page that rewrote itself with document.write after load (still 'loading') keeps what it wrote", async () => {
  const { status, body } = await timed({ url: `${base}/docwrite`, formats: ["markdown"], waitFor: 1500 });
  expect(status).toBe(200);
  expect(body.data.markdown).toContain("Written by the page");
  expect(body.data.markdown).not.toContain("Original heading");
  expect(body.data.warning ?? "").not.toContain("as the browser received it");
}, 60_000);

test("a script redirect to a page still arriving: its DOM at once, no wait for its bytes, within the timeout", async () => {
  const t0 = performance.now();
  const { status, body } = await scrape(h, { url: `${base}/js-redirect`, formats: ["markdown"], waitFor: 1500, maxAge: 0, timeout: 4_000 });
  expect({ status, code: body.code }).toEqual({ status: 200, code: undefined });
  expect(performance.now() - t0).toBeLessThan(4_000);
  expect(body.data.markdown).toContain("second second");
}, 60_000);
