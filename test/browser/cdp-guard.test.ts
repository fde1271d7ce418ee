/**
 * The CDP guard (src/engines/browser/cdp-guard.ts) with real Chromium: a page's console call or uncaught error over
 * 1,000,000 characters is dropped before puppeteer parses it (the server never takes it in), a request body in
 * events is cut by Chromium, a dialog with a huge default is dismissed unread; smaller ones, the request itself, and
 * large answers to crawlbox's own commands pass. Chromium resolves no names itself.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "puppeteer-core";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { closeChromium, findChromium, launchChromium } from "../../src/engines/browser/chromium.ts";
import { droppedPageEvents, MAX_PAGE_EVENT_CHARS, MAX_POST_DATA_BYTES } from "../../src/engines/browser/cdp-guard.ts";

let gate: EgressGate;
let browser: Browser;
let site: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  gate = await createEgressGate({ allowPrivateNetwork: true });
  browser = await launchChromium({ executablePath: findChromium("")!, proxyUrl: gate.proxyUrl });
  site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async (req) => new Response(req.method === "POST" ? String((await req.arrayBuffer()).byteLength) : "<html><body>ok</body></html>", { headers: { "content-type": "text/html" } }) });
});
afterAll(async () => {
  await closeChromium(browser);
  await gate.close();
  site.stop(true);
});

describe("the CDP guard", () => {
  test("a page's huge console calls and errors are dropped unread; small ones and large answers pass", async () => {
    const page = await browser.newPage();
    const consoles: number[] = [];
    const errors: number[] = [];
    page.on("console", (m) => consoles.push(m.text().length));
    page.on("pageerror", (e) => errors.push(String((e as Error).message).length));
    const before = droppedPageEvents();
    await page.evaluate((n) => {
      console.log("x".repeat(n));
      console.log("small");
      setTimeout(() => {
        throw new Error("y".repeat(n));
      }, 0);
      setTimeout(() => {
        throw new Error("short");
      }, 10);
    }, MAX_PAGE_EVENT_CHARS + 10);
    await page.evaluate(() => new Promise((r) => setTimeout(r, 200)));
    expect(consoles).toEqual([5]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeLessThan(100);
    expect(droppedPageEvents() - before).toBe(2);
    // An answer to crawlbox's own command is not an event: a 3,000,000-character value comes back whole.
    expect(await page.evaluate(() => "z".repeat(3_000_000))).toHaveLength(3_000_000);
    await page.close();
  });

  test("a request's body in events is cut by Chromium (the request still goes whole); a dialog with a huge default is dismissed unread", async () => {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${site.port}/`);
    const bodies: (number | undefined)[] = [];
    page.on("request", (r) => {
      if (r.method() === "POST") bodies.push(r.postData()?.length);
    });
    const sent = await page.evaluate(async (n) => (await fetch("/upload", { method: "POST", body: new Uint8Array(n) })).text(), 5_000_000);
    expect(sent).toBe("5000000");
    expect(bodies).toHaveLength(1);
    expect(bodies[0] ?? 0).toBeLessThanOrEqual(MAX_POST_DATA_BYTES);
    const before = droppedPageEvents();
    const t0 = performance.now();
    expect(await page.evaluate((n) => prompt("q", "p".repeat(n)), MAX_PAGE_EVENT_CHARS + 10)).toBeNull();
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(droppedPageEvents() - before).toBe(1);
    await page.close();
  });

  test("Chromium resolves no names itself (a WebRTC TURN server's would leave past the gate): only the gate's loopback", () => {
    expect(browser.process()!.spawnargs).toContain("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1");
  });
});
