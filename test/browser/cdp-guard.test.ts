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
import { droppedPageEvents, MAX_PAGE_EVENT_CHARS, MAX_POST_DATA_BYTES, withoutRequestBody } from "../../src/engines/browser/cdp-guard.ts";
import { RequestControl } from "../../src/engines/browser/request-control.ts";

let gate: EgressGate;
let browser: Browser;
let site: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  gate = await createEgressGate({ allowPrivateNetwork: true });
  browser = await launchChromium({ executablePath: findChromium("")!, proxyUrl: gate.proxyUrl });
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (req) => new Response(req.method === "POST" ? `${(await req.arrayBuffer()).byteLength} ${req.headers.get("x-token") ?? "-"}` : "<html><body>ok</body></html>", { headers: { "content-type": "text/html" } }),
  });
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
    expect(sent).toBe("5000000 -");
    expect(bodies).toHaveLength(1);
    expect(bodies[0] ?? 0).toBeLessThanOrEqual(MAX_POST_DATA_BYTES);
    const before = droppedPageEvents();
    const t0 = performance.now();
    expect(await page.evaluate((n) => prompt("q", "p".repeat(n)), MAX_PAGE_EVENT_CHARS + 10)).toBeNull();
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(droppedPageEvents() - before).toBe(1);
    await page.close();
  });

  test("an intercepted upload of any size goes whole, with crawlbox's headers: its event loses the body's copies, not the request", async () => {
    const page = await browser.newPage();
    // As a scrape with `headers` sets its page up: every request of the page's origin is paused to add them.
    const origin = `http://127.0.0.1:${site.port}`;
    await new RequestControl(await page.createCDPSession()).configure({ blockMedia: false, blockAds: false, origin, headers: { "x-token": "t" } });
    await page.goto(`${origin}/`);
    const before = droppedPageEvents();
    const sent: string[] = [];
    for (const n of [100_000, 500_000, 3_000_000]) sent.push(await page.evaluate(async (n) => (await fetch("/upload", { method: "POST", body: "a".repeat(n) })).text(), n));
    // 500 KB made an event of ~1.2 M characters (the body in postData and again in base64), which failed the request.
    expect(sent).toEqual(["100000 t", "500000 t", "3000000 t"]);
    expect(droppedPageEvents() - before).toBe(2);
    await page.close();
  });

  test("a paused request's body is cut out of its event text whatever its characters; the rest stays valid JSON", () => {
    const event = (postData: string) =>
      JSON.stringify({ method: "Fetch.requestPaused", params: { requestId: "r1", request: { url: 'http://x/?q="postData":"', method: "POST", headers: {}, hasPostData: true, postData, postDataEntries: [{ bytes: btoa("ab") }, { bytes: "Y2Q=" }], initialPriority: "High" } }, sessionId: "S" });
    for (const body of ['a"b\\"c\\', "plain", "", '\\', "line\nend"]) {
      const cut = JSON.parse(withoutRequestBody(event(body)));
      expect(cut.params.request).toEqual({ url: 'http://x/?q="postData":"', method: "POST", headers: {}, hasPostData: true, initialPriority: "High" });
      expect(cut.sessionId).toBe("S");
    }
    // A request header named postData (written before the body) stays; the body goes.
    const withHeader = JSON.stringify({ method: "Fetch.requestPaused", params: { requestId: "r2", request: { url: "http://x/", headers: { postData: "keep" }, hasPostData: true, postData: "BODY" } } });
    expect(JSON.parse(withoutRequestBody(withHeader)).params.request).toEqual({ url: "http://x/", headers: { postData: "keep" }, hasPostData: true });
    // Without a body nothing is cut, such a header included.
    const noBody = JSON.stringify({ method: "Fetch.requestPaused", params: { requestId: "r3", request: { url: "http://x/", headers: { postData: "keep" } } } });
    expect(withoutRequestBody(noBody)).toBe(noBody);
  });

  test("Chromium resolves no names itself (a WebRTC TURN server's would leave past the gate): only the gate's loopback", () => {
    expect(browser.process()!.spawnargs).toContain("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1");
  });
});
