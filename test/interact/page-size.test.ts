/**
 * CRAWLBOX_MAX_PAGE_BYTES holds a browser session's page as it holds a scrape's (src/interact/page-size.ts): a main
 * document past the limit fails the command that loads it with SCRAPE_RESPONSE_TOO_LARGE (bash `open` and a click,
 * JavaScript's `goto`), gzip or not, and the session goes on; a scrape's page past the limit by the time its session
 * opens fails the opening with the scrapes' error; a prompt's click leading to one fails that step, told to the model.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import zlib from "node:zlib";
import Firecrawl from "@mendable/firecrawl-js";
import { closeAndAssertNoChromium } from "../browser/helpers.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startFakeLlm, type FakeLlm } from "../llm/fake-llm.ts";

const MAX_PAGE_BYTES = 1_048_576;
/** 5 MiB of HTML, five times the limit. */
const BIG = `<!doctype html><html><head><title>Big</title></head><body>${"<p>Big page text that goes on and on.</p>\n".repeat(125_000)}</body></html>`;
const BIG_GZ = new Uint8Array(zlib.gzipSync(BIG));
const SMALL = (title: string, body = "") => `<!doctype html><html><head><title>${title}</title></head><body><p>${title}</p>${body}</body></html>`;

/** A body that starts with `head`, then sends a paragraph every 100 ms for `ms`. */
function streamFor(ms: number, head: string): ReadableStream<Uint8Array> {
  const started = performance.now();
  const encoder = new TextEncoder();
  return new ReadableStream({
    start: (controller) => controller.enqueue(encoder.encode(head)),
    pull: async (controller) => {
      await Bun.sleep(100);
      if (performance.now() - started > ms) return controller.close();
      controller.enqueue(encoder.encode("<p>more</p>\n"));
    },
  });
}

let site: ReturnType<typeof Bun.serve>;
let llm: FakeLlm;
let h: Harness;
let app: Firecrawl;
let base: string;
/** `/grows` is small for its scrape, then big. */
let grown = false;

beforeAll(async () => {
  expect(BIG.length).toBeGreaterThan(5 * 1024 * 1024);
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const html = (body: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) => new Response(body, { headers: { "content-type": "text/html; charset=utf-8", ...headers } });
      switch (new URL(req.url).pathname) {
        case "/big": return html(BIG);
        // Small on the wire (~20 KB), 5 MiB decoded: only the decoded bytes tell.
        case "/big-gz": return html(BIG_GZ, { "content-encoding": "gzip" });
        case "/links": return html(SMALL("Links", `<a id="big" href="/big">Big page</a> <a id="gz" href="/big-gz">Big gzip page</a>`));
        case "/grows": return html(grown ? BIG : SMALL("Grows"));
        // Streams for 8 s; the page stops its own load after 200 ms (Chromium then never ends the document's request).
        case "/stops": return html(streamFor(8_000, `<!doctype html><html><head><title>Stops</title><script>setTimeout(() => window.stop(), 200)</script></head><body>`));
        default: return html(SMALL("Small"));
      }
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  llm = startFakeLlm();
  h = await createHarness({ maxPageBytes: MAX_PAGE_BYTES, browserConcurrency: 4, ollamaBaseUrl: llm.url, modelName: "test-model" });
  app = new Firecrawl({ apiKey: h.key, apiUrl: h.listen() });
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  site.stop(true);
  llm.stop();
});

/** Runs JavaScript `code` in a new browser session (closed after), expecting exit code 0; its result, parsed. */
async function nodeResult(code: string): Promise<unknown> {
  const { id } = (await app.browser()) as any;
  try {
    const r: any = await app.browserExecute(id, { code, language: "node", timeout: 60 });
    expect(r.exitCode).toBe(0);
    return JSON.parse(r.result);
  } finally {
    await app.deleteBrowser(id);
  }
}

describe("CRAWLBOX_MAX_PAGE_BYTES in browser sessions", () => {
  test("bash: open, and a click, of a main document past the limit fail with SCRAPE_RESPONSE_TOO_LARGE (gzip too); the session goes on", async () => {
    const { id } = (await app.browser()) as any;
    const run = async (code: string) => (await app.browserExecute(id, { code, language: "bash", timeout: 60 })) as any;
    try {
      for (const path of ["/big", "/big-gz"]) {
        const r = await run(`agent-browser open ${base}${path}`);
        expect([path, r.exitCode, r.killed]).toEqual([path, 1, false]);
        expect(r.stderr).toStartWith("✗ ");
        expect(r.stderr).toContain("SCRAPE_RESPONSE_TOO_LARGE");
        expect(r.stderr).toContain(`exceeds the limit of ${MAX_PAGE_BYTES} bytes`);
      }
      // The next command is held on its own account: a small page opens.
      const small = await run(`agent-browser open ${base}/small && agent-browser get title`);
      expect([small.exitCode, small.stdout.trim().split("\n").pop()]).toEqual([0, "Small"]);
      for (const link of ["#big", "#gz"]) {
        const clicked = await run(`agent-browser open ${base}/links\nagent-browser click "${link}"`);
        expect([link, clicked.exitCode]).toEqual([link, 1]);
        expect(clicked.stderr).toContain("SCRAPE_RESPONSE_TOO_LARGE");
      }
    } finally {
      await app.deleteBrowser(id);
    }
  }, 120_000);

  test("JavaScript: goto a page past the limit throws an Error the code can catch; other pages load", async () => {
    const out = (await nodeResult(`const out = [];
      for (const p of ["/big", "/big-gz"]) { try { await page.goto("${base}" + p); out.push("loaded"); } catch (e) { out.push(e.message); } }
      await page.goto("${base}/small");
      out.push(await page.title());
      return out;`)) as string[];
    expect(out).toHaveLength(3);
    for (const m of out.slice(0, 2)) expect(m).toContain("SCRAPE_RESPONSE_TOO_LARGE");
    expect(out[2]).toBe("Small");
  }, 120_000);

  test("a page that stopped its own load while it streamed holds none of the next commands (each waited 1 s for it)", async () => {
    const took = (await nodeResult(`await page.goto("${base}/stops");
      const took = [];
      for (let i = 0; i < 3; i++) { const t0 = Date.now(); await page.evaluate("1"); took.push(Date.now() - t0); }
      return took;`)) as number[];
    expect(took).toHaveLength(3);
    for (const ms of took) expect(ms).toBeLessThan(500);
  }, 120_000);

  test("a scrape's page past the limit by the time its session opens fails the opening with SCRAPE_RESPONSE_TOO_LARGE", async () => {
    grown = false;
    const doc: any = await app.scrape(`${base}/grows`, { formats: ["markdown"], maxAge: 0 });
    grown = true;
    const res = await h.request(`/v2/scrape/${doc.metadata.scrapeId}/interact`, { method: "POST", json: { code: "agent-browser get title", language: "bash", timeout: 60 } });
    const body: any = await res.json();
    expect([res.status, body.code]).toEqual([500, "SCRAPE_RESPONSE_TOO_LARGE"]);
    // No session was left open on it.
    expect((await h.request(`/v2/scrape/${doc.metadata.scrapeId}/interact`, { method: "DELETE" })).status).toBe(404);
  }, 120_000);

  test("a prompt's click leading to a page past the limit fails that step, and the model is told in crawlbox's words", async () => {
    llm.reset();
    llm.respond = (req) => {
      const text = req.messages.map((m) => m.content).join("\n");
      if (/click failed: .*page size limit/.test(text)) return { content: JSON.stringify({ action: "done", answer: "too large" }) };
      const link = /^\[(\d+)\] <a> Big page$/m.exec(text);
      return { content: JSON.stringify(link ? { action: "click", element: Number(link[1]) } : { action: "done", answer: "no link" }) };
    };
    const doc: any = await app.scrape(`${base}/links`, { formats: ["markdown"], maxAge: 0 });
    const id = doc.metadata.scrapeId;
    try {
      const out: any = await app.interact(id, { prompt: "Open the big page." });
      expect(out.output).toBe("too large");
      expect(out.stdout.split("\n")[0]).toBe("click failed: the page it led to is larger than this server's page size limit, and its loading was stopped");
    } finally {
      await app.stopInteraction(id).catch(() => undefined);
    }
  }, 120_000);
});
