/**
 * crawlbox's own reads of a page run in its isolated world and are bounded there (page-reads.ts), so a page that
 * redefines what they read (`document.readyState`, `outerHTML`, `querySelector`, `scrollHeight`, `Storage`'s methods,
 * `fetch` and `btoa`) in its own world gets neither a different answer nor a huge one across the DevTools connection.
 * Real Chromium and local fixture pages; the answers' sizes are measured where puppeteer receives Chromium's
 * messages (a wrapper of `Connection.onMessage`, installed before any Chromium of this file starts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { Connection, type Browser } from "puppeteer-core";
import { MAX_PAGE_EVENT_CHARS } from "../../src/engines/browser/cdp-guard.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { closeChromium, findChromium, launchChromium } from "../../src/engines/browser/chromium.ts";
import { base64Length, readDocumentBody } from "../../src/engines/browser/document-body.ts";
import { readBodyText, readDocumentHtml, waitForParsedDocument } from "../../src/engines/browser/page-reads.ts";
import { waitForLoadEvent } from "../../src/engines/browser/wait.ts";
import { startCountingServer, type FixtureServer } from "../fixtures/servers.ts";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, fetchFile, imageSize, scrape } from "./helpers.ts";

/** The hostile pages' strings: 5 MiB, five times what any answer below may be. */
const HUGE_CHARS = 5 * 1024 * 1024;
/** Largest message from Chromium a read of these pages may cause (its page events are cut at the same size). */
const MAX_ANSWER_CHARS = MAX_PAGE_EVENT_CHARS;

// The largest message Chromium sent since the last reset. Wrapped over the CDP guard's own wrapper (imported above),
// before any connection of this file exists (a connection binds `onMessage` when it is created); undone at the end.
const proto = Connection.prototype as unknown as { onMessage: (this: Connection, message: string) => Promise<void> };
const guarded = proto.onMessage;
let largest = 0;
proto.onMessage = function measured(this: Connection, message: string) {
  largest = Math.max(largest, message.length);
  return guarded.call(this, message);
};

const big = `const big = "x".repeat(${HUGE_CHARS});`;
const html = (body: string) => new Response(`<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`, { headers: { "content-type": "text/html" } });

/** A small PDF (the document an isolated `fetch` gets). */
const SMALL_PDF = "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n";

let site: FixtureServer;
let gate: EgressGate;
let browser: Browser;
let h: Harness;

beforeAll(async () => {
  site = startCountingServer((req) => {
    const url = new URL(req.url);
    switch (url.pathname) {
      case "/ready":
        // `document.readyState` is a 5 MiB string in the page's world: never "complete" there.
        return html(`<p>hello readyState</p><script>${big} Object.defineProperty(document, "readyState", { get() { return big; }, configurable: true });</script>`);
      case "/markup":
        // What puppeteer's content() and an innerText read would use, each a 5 MiB string in the page's world.
        return html(
          `<h1>Real heading</h1><p>Real text of the page.</p><script>${big}
          Object.defineProperty(Element.prototype, "outerHTML", { get() { return big; }, configurable: true });
          XMLSerializer.prototype.serializeToString = () => big;
          Object.defineProperty(HTMLElement.prototype, "innerText", { get() { return big; }, configurable: true });
          String.prototype.slice = function () { return big; };</script>`,
        );
      case "/actions":
        // Every function the action runner calls, redefined: no match, a huge error, frames that never come.
        return html(
          `<div id="box" style="height:200px;overflow:auto"><div style="height:3000px">tall box</div></div>
          <button id="btn" onclick="document.getElementById('out').textContent = 'clicked'">Go</button><p id="out">not yet</p>
          <div style="height:3000px">below</div><script>${big}
          Document.prototype.querySelector = () => null;
          Document.prototype.querySelectorAll = () => [];
          Element.prototype.scrollBy = () => { throw new Error(big); };
          window.scrollBy = () => { throw new Error(big); };
          window.requestAnimationFrame = () => 0;
          Object.defineProperty(Element.prototype, "outerHTML", { get() { return big; }, configurable: true });</script>`,
        );
      case "/tall-liar":
        // 300,000 px tall, and says it is 0 px tall in its own world.
        return html(
          `<div style="height:300000px;background:linear-gradient(red,blue)">tall</div>
          <script>Object.defineProperty(Element.prototype, "scrollHeight", { get() { return 0; }, configurable: true });</script>`,
        );
      case "/branding":
        // What the branding snapshot reads (computed styles, attributes, slice), answering 5 MiB strings in its world.
        return html(
          `<header><a href="/"><svg width="40" height="40"><circle cx="20" cy="20" r="18" fill="#123456"/></svg></a></header>
          <h1 style="color:#ff0000">Brand</h1><button style="background:#00ff00">Buy</button><script>${big}
          window.getComputedStyle = () => new Proxy({}, { get: () => (() => big) });
          Element.prototype.getAttribute = () => big;
          String.prototype.slice = function () { return big; };</script>`,
        );
      case "/wide":
        // Short but 300,000 px wide: Chromium refuses to capture it whole ("Page is too large").
        return html(`<div style="width:300000px;height:400px;background:red">wide</div>`);
      case "/storage":
        // Its real storage holds `real=kept`; its world's Storage answers 5 MiB strings.
        return html(
          `<p>storage page</p><script>${big} localStorage.setItem("real", "kept"); sessionStorage.setItem("tab", "one");
          Storage.prototype.getItem = () => big;
          Storage.prototype.key = () => big;</script>`,
        );
      case "/doc":
        // The page a document is fetched again from: its world's fetch and btoa answer a 2.7 MB "PDF" of nothing.
        if (req.headers.get("sec-fetch-dest") === "document") {
          return html(
            `<p>doc</p><script>document.cookie = "k=v; path=/";
            window.fetch = async () => ({ ok: true, body: { getReader: () => ({ read: async () => ({ done: true }), cancel: async () => {} }) } });
            window.btoa = () => "JVBERi0" + "A".repeat(${Math.ceil((2 * 1024 * 1024) / 3) * 4});</script>`,
          );
        }
        // The isolated fetch: the real (small) PDF, with the page's cookie.
        return new Response(req.headers.get("cookie")?.includes("k=v") ? SMALL_PDF : "no cookie", { headers: { "content-type": "application/pdf" } });
      default:
        return new Response("not found", { status: 404 });
    }
  });
  gate = await createEgressGate({ allowPrivateNetwork: true });
  browser = await launchChromium({ executablePath: findChromium("")!, proxyUrl: gate.proxyUrl });
  h = await browserHarness();
});

afterAll(async () => {
  await closeChromium(browser);
  await gate.close();
  await closeAndAssertNoChromium(h);
  await site.stop();
  proto.onMessage = guarded;
});

beforeEach(() => {
  largest = 0;
});

describe("reads of a hostile page (direct)", () => {
  test("the measure sees Chromium's answers (a 2,000,000-character string read in the page's world)", async () => {
    const page = await browser.newPage();
    try {
      expect((await page.evaluate(() => "y".repeat(2_000_000))).length).toBe(2_000_000);
      expect(largest).toBeGreaterThan(2_000_000);
    } finally {
      await page.close();
    }
  });

  test("readyState redefined to a 5 MiB string: load and parsing are seen at once, and only short answers cross", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${site.url}/ready`, { waitUntil: "domcontentloaded" });
      largest = 0;
      let t0 = performance.now();
      expect(await waitForLoadEvent(page, 8_000)).toBe(true);
      expect(performance.now() - t0).toBeLessThan(4_000);
      t0 = performance.now();
      await waitForParsedDocument(page, performance.now() + 8_000);
      expect(performance.now() - t0).toBeLessThan(4_000);
      expect(largest).toBeLessThan(MAX_ANSWER_CHARS);
    } finally {
      await page.close();
    }
  });

  test("outerHTML, XMLSerializer, innerText and slice redefined: the real markup and text are read, bounded", async () => {
    const page = await browser.newPage();
    try {
      await page.goto(`${site.url}/markup`);
      largest = 0;
      const read = await readDocumentHtml(page, 1_000_000);
      expect(read.html).toContain("<h1>Real heading</h1>");
      expect(read.html).not.toContain("xxxxxxxx");
      expect(read.html!.startsWith("<!DOCTYPE html><html>")).toBe(true);
      // Over the limit, only the length crosses.
      expect(await readDocumentHtml(page, 100)).toEqual({ html: undefined, chars: read.chars });
      const text = await readBodyText(page, 1_000_000);
      expect(text).toContain("Real text of the page.");
      expect(await readBodyText(page, 5)).toBe("Real h");
      expect(largest).toBeLessThan(MAX_ANSWER_CHARS);
    } finally {
      await page.close();
    }
  });

  test("a document fetched again from the page: Chromium's fetch and btoa with its cookies, never the page's, within maxBytes", async () => {
    const page = await browser.newPage();
    try {
      const response = (await page.goto(`${site.url}/doc`))!;
      largest = 0;
      const bytes = await readDocumentBody(page, response, "application/pdf", 1_000_000);
      expect(new TextDecoder().decode(bytes)).toBe(SMALL_PDF);
      expect(largest).toBeLessThan(MAX_ANSWER_CHARS);
    } finally {
      await page.close();
    }
  });

  test("base64Length: the characters the base64 of n bytes takes", () => {
    expect([0, 1, 2, 3, 4, 1_000_000].map(base64Length)).toEqual([0, 4, 4, 4, 8, Buffer.from(new Uint8Array(1_000_000)).toString("base64").length]);
  });
});

describe("scrapes of a hostile page", () => {
  test("readyState redefined: the scrape loads at once, without a load warning, within its timeout", async () => {
    const t0 = performance.now();
    const { status, body } = await scrape(h, { url: `${site.url}/ready`, waitFor: 100, timeout: 20_000, formats: ["markdown"] });
    expect(status).toBe(200);
    expect(body.data.markdown).toContain("hello readyState");
    expect(body.data.warning ?? "").not.toContain("did not finish loading");
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(largest).toBeLessThan(MAX_ANSWER_CHARS);
  });

  test("outerHTML redefined: the scrape returns the page's real markup", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/markup`, formats: ["html", "markdown"], onlyMainContent: false });
    expect(status).toBe(200);
    expect(body.data.markdown).toContain("Real heading");
    expect(body.data.html).not.toContain("xxxxxxxx");
    expect(largest).toBeLessThan(MAX_ANSWER_CHARS);
  });

  test("querySelector, scrollBy and requestAnimationFrame redefined: scroll, click, wait and scrape actions work", async () => {
    const { status, body } = await scrape(h, {
      url: `${site.url}/actions`,
      formats: ["markdown"],
      actions: [
        { type: "scroll", selector: "#box" },
        { type: "scroll", direction: "down" },
        { type: "click", selector: "#btn" },
        { type: "wait", selector: "#out" },
        { type: "scrape" },
      ],
    });
    expect(status).toBe(200);
    expect(body.data.actions.scrapes[0].html).toContain(">clicked</p>");
    expect(body.data.actions.scrapes[0].html).not.toContain("xxxxxxxx");
    expect(largest).toBeLessThan(MAX_ANSWER_CHARS);
  });

  test("a page that says it is 0 px tall gets a full-page screenshot cut to the allowed height, not a browser failure", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/tall-liar`, formats: [{ type: "screenshot", fullPage: true }] });
    expect(status).toBe(200);
    expect(body.data.screenshot).toBeString();
    expect(body.data.warning).toContain("was cut at");
  });

  test("a page too wide for Chromium to capture whole gets a full-page screenshot at the viewport's width, not a 500", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/wide`, formats: [{ type: "screenshot", fullPage: true }] });
    expect(status).toBe(200);
    const size = imageSize(new Uint8Array(await (await fetchFile(h, body.data.screenshot)).arrayBuffer()));
    expect(size.width).toBeLessThanOrEqual(1920);
    expect(size.height).toBeGreaterThanOrEqual(400);
  });

  test("the branding snapshot's DOM methods redefined: the real colours are read, and nothing large crosses", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/branding`, formats: ["branding"] });
    expect(status).toBe(200);
    expect(JSON.stringify(body.data.branding)).not.toContain("xxxxxxxx");
    expect(JSON.stringify(body.data.branding).toLowerCase()).toContain("#ff0000");
    expect(largest).toBeLessThan(MAX_ANSWER_CHARS);
  });

  test("Storage's methods redefined: the profile saves the real storage, and nothing large crosses", async () => {
    const { status } = await scrape(h, { url: `${site.url}/storage`, formats: ["markdown"], profile: { name: "hostile-storage", saveChanges: true } });
    expect(status).toBe(200);
    const row = h.services.db.query("SELECT state FROM browser_profiles WHERE name = 'hostile-storage'").get() as { state: string };
    const saved = JSON.parse(row.state) as { localStorage: Record<string, Record<string, string>>; sessionStorage: Record<string, Record<string, string>> };
    expect(saved.localStorage[site.url]).toEqual({ real: "kept" });
    expect(saved.sessionStorage[site.url]).toEqual({ tab: "one" });
    expect(row.state.length).toBeLessThan(10_000);
    expect(largest).toBeLessThan(MAX_ANSWER_CHARS);
  });
});
