/**
 * Live views of browser sessions (`liveViewUrl`, src/interact/live-view.ts, src/server/routes/live.ts) with real
 * Chromium: the viewer page and its MJPEG stream need no key but the URL's token; frames follow what the session's
 * page shows; a session opened with `streamWebView: false` has none; a closed session's view ends and is a 404; at
 * most four viewers; a scrape's interact session answers with its view too; the interactive view's clicks and typing
 * reach the page, the watching view's token sends nothing, bad events are 400s and floods 429s.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { closeAndAssertNoChromium } from "../browser/helpers.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { MAX_VIEWERS } from "../../src/interact/live-view.ts";

let site: ReturnType<typeof Bun.serve>;
let h: Harness;
let app: Firecrawl;
let base: string;
let api: string;

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      if (new URL(req.url).pathname === "/big") {
        return new Response(
          `<!doctype html><html><head><title>Big</title></head><body style="margin:0"><button style="position:fixed;inset:0;width:100vw;height:100vh" onclick="document.title='big clicked'">B</button></body></html>`,
          { headers: { "content-type": "text/html" } },
        );
      }
      if (new URL(req.url).pathname === "/pad") {
        return new Response(
          `<!doctype html><html><head><title>Pad</title></head><body style="margin:0"><button id="b" style="position:fixed;left:0;top:0;width:50vw;height:50vh" onclick="document.title='clicked'">B</button><input id="i" style="position:fixed;left:50vw;top:50vh;width:50vw;height:50vh"></body></html>`,
          { headers: { "content-type": "text/html" } },
        );
      }
      const colour = new URL(req.url).pathname === "/red" ? "#d22" : "#2a4";
      return new Response(`<!doctype html><html><head><title>Colour</title></head><body style="margin:0;background:${colour}"><h1>${colour}</h1></body></html>`, { headers: { "content-type": "text/html" } });
    },
  });
  base = `http://127.0.0.1:${site.port}`;
  h = await createHarness({ browserConcurrency: 4 });
  api = h.listen();
  app = new Firecrawl({ apiKey: h.key, apiUrl: api });
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  site.stop(true);
});

/** Reads JPEG frames from an MJPEG response. */
function frames(res: Response) {
  const reader = res.body!.getReader();
  let buf = new Uint8Array(0);
  const take = async (): Promise<Uint8Array | undefined> => {
    for (;;) {
      const text = new TextDecoder("latin1").decode(buf);
      const head = /Content-Length: (\d+)\r\n\r\n/.exec(text);
      if (head) {
        const start = head.index + head[0].length;
        const len = Number(head[1]);
        if (buf.length >= start + len) {
          const frame = buf.slice(start, start + len);
          buf = buf.slice(start + len);
          return frame;
        }
      }
      const { value, done } = await reader.read();
      if (done) return undefined;
      const next = new Uint8Array(buf.length + value.length);
      next.set(buf);
      next.set(value, buf.length);
      buf = next;
    }
  };
  return { take, cancel: () => reader.cancel() };
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

describe("live view", () => {
  test("the viewer page and its stream need only the URL; frames follow the session's page; closing the session ends both", async () => {
    const created: any = await app.browser({ ttl: 120 });
    expect(created.liveViewUrl).toStartWith(`${api}/v2/live/`);
    const page = await fetch(created.liveViewUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(page.headers.get("cache-control")).toBe("no-store");
    const html = await page.text();
    expect(html).toContain('/stream"');
    expect(html).not.toContain("<script");

    await app.browserExecute(created.id, { code: `agent-browser open ${base}/green` });
    const res = await fetch(`${created.liveViewUrl}/stream`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("multipart/x-mixed-replace; boundary=");
    const view = frames(res);
    const first = (await view.take())!;
    expect([first[0], first[1]]).toEqual([0xff, 0xd8]);

    // The page changes: a new frame comes that differs from the first.
    const out: any = await app.browserExecute(created.id, { code: `agent-browser open ${base}/red` });
    expect(out.liveViewUrl).toBe(created.liveViewUrl);
    let changed: Uint8Array | undefined;
    for (let i = 0; i < 20 && !changed; i++) {
      const f = (await view.take())!;
      if (!sameBytes(f, first)) changed = f;
    }
    expect(changed).toBeDefined();

    await app.deleteBrowser(created.id);
    // The open stream ends, and the URL is gone.
    let end: Uint8Array | undefined = new Uint8Array(1);
    for (let i = 0; i < 50 && end; i++) end = await view.take();
    expect(end).toBeUndefined();
    expect((await fetch(created.liveViewUrl)).status).toBe(404);
    expect((await fetch(`${created.liveViewUrl}/stream`)).status).toBe(404);
  }, 60_000);

  test("streamWebView: false opens a session without one; unknown tokens are 404s; at most four viewers", async () => {
    const quiet = await h.request("/v2/browser", { method: "POST", json: { streamWebView: false } });
    const q = (await quiet.json()) as any;
    expect(q).toMatchObject({ success: true, liveViewUrl: "" });
    const listed: any = await app.listBrowsers();
    expect(listed.sessions.find((s: any) => s.id === q.id)).toMatchObject({ liveViewUrl: "", streamWebView: false });
    await app.deleteBrowser(q.id);

    expect((await fetch(`${api}/v2/live/${"a".repeat(43)}`)).status).toBe(404);
    expect((await fetch(`${api}/v2/live/..%2F..%2Fetc`)).status).toBe(404);

    const s: any = await app.browser({});
    const viewers = [];
    for (let i = 0; i < MAX_VIEWERS; i++) {
      const r = await fetch(`${s.liveViewUrl}/stream`);
      expect(r.status).toBe(200);
      viewers.push(frames(r));
    }
    const extra = await fetch(`${s.liveViewUrl}/stream`);
    expect([extra.status, ((await extra.json()) as any).code]).toEqual([429, "LIVE_VIEW_BUSY"]);
    // A viewer that leaves makes room.
    await viewers.pop()!.cancel();
    await Bun.sleep(100);
    const again = await fetch(`${s.liveViewUrl}/stream`);
    expect(again.status).toBe(200);
    await again.body!.cancel();
    for (const v of viewers) await v.cancel();
    await app.deleteBrowser(s.id);
  }, 60_000);

  test("a scrape's interact session answers with its live view", async () => {
    const doc: any = await app.scrape(`${base}/green`, { formats: ["markdown"], maxAge: 0 });
    const id = doc.metadata.scrapeId;
    const out: any = await app.interact(id, { code: "agent-browser get title", language: "bash" });
    expect(out.stdout).toBe("Colour\n");
    expect(out.liveViewUrl).toMatch(/\/v2\/live\/[\w-]{43}$/);
    expect((await fetch(out.liveViewUrl)).status).toBe(200);
    await app.stopInteraction(id);
    expect((await fetch(out.liveViewUrl)).status).toBe(404);
  }, 60_000);

  test("the interactive view's clicks and typing reach the page; the watching view cannot send input", async () => {
    const s: any = await app.browser({});
    expect(s.interactiveLiveViewUrl).toMatch(/\/v2\/live\/[\w-]{43}$/);
    expect(s.interactiveLiveViewUrl).not.toBe(s.liveViewUrl);
    await app.browserExecute(s.id, { code: `agent-browser open ${base}/pad` });
    const page = await fetch(s.interactiveLiveViewUrl);
    const csp = page.headers.get("content-security-policy")!;
    const nonce = /'nonce-([\w-]+)'/.exec(csp)![1]!;
    expect(await page.text()).toContain(`<script nonce="${nonce}">`);
    expect(csp).toContain("connect-src 'self'");

    const send = (url: string, json: unknown) => fetch(`${url}/input`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(json) });
    expect((await send(s.interactiveLiveViewUrl, { type: "click", x: 0.25, y: 0.25 })).status).toBe(204);
    expect(((await app.browserExecute(s.id, { code: "agent-browser get title" })) as any).stdout).toBe("clicked\n");
    // A double click: the second click counted 2, as a browser sends it.
    await app.browserExecute(s.id, { code: `agent-browser eval "document.getElementById('b').ondblclick = () => { document.title = 'double'; }"` });
    expect((await send(s.interactiveLiveViewUrl, { type: "click", x: 0.25, y: 0.25 })).status).toBe(204);
    expect((await send(s.interactiveLiveViewUrl, { type: "click", x: 0.25, y: 0.25, count: 2 })).status).toBe(204);
    expect(((await app.browserExecute(s.id, { code: "agent-browser get title" })) as any).stdout).toBe("double\n");
    expect((await send(s.interactiveLiveViewUrl, { type: "click", x: 0.75, y: 0.75 })).status).toBe(204);
    expect((await send(s.interactiveLiveViewUrl, { type: "text", text: "héllo wörld" })).status).toBe(204);
    expect((await send(s.interactiveLiveViewUrl, { type: "key", key: "Backspace" })).status).toBe(204);
    const typed: any = await app.browserExecute(s.id, { code: `agent-browser eval "document.getElementById('i').value"` });
    expect(typed.stdout.trim()).toBe("héllo wörl");

    // The watching view sends nothing; bad events are 400s.
    expect((await send(s.liveViewUrl, { type: "click", x: 0.25, y: 0.25 })).status).toBe(404);
    for (const bad of [{ type: "click", x: 2, y: 0 }, { type: "click", x: 0, y: 0, count: 9 }, { type: "key", key: "F13" }, { type: "text", text: "" }, { type: "drag" }, [1]]) {
      const r = await send(s.interactiveLiveViewUrl, bad);
      expect([bad, r.status]).toEqual([bad, 400]);
    }
    // A flood is cut at 50 events a second.
    const statuses = await Promise.all(Array.from({ length: 200 }, () => send(s.interactiveLiveViewUrl, { type: "move", x: 0.1, y: 0.1 }).then((r) => r.status)));
    expect(statuses.filter((c) => c === 429).length).toBeGreaterThan(0);
    await app.deleteBrowser(s.id);
    expect((await send(s.interactiveLiveViewUrl, { type: "click", x: 0.5, y: 0.5 })).status).toBe(404);
  }, 60_000);

  test("a key named by an inherited property (__proto__, constructor, toString) is a 400, and no key event reaches the page", async () => {
    const s: any = await app.browser({});
    try {
      await app.browserExecute(s.id, { code: `agent-browser open ${base}/pad && agent-browser eval "window.keys = []; addEventListener('keydown', (e) => keys.push(e.key), true)"` });
      const send = (json: unknown) => fetch(`${s.interactiveLiveViewUrl}/input`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(json) });
      for (const key of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf"]) {
        const r = await send({ type: "key", key });
        expect([key, r.status, ((await r.json()) as any).code]).toEqual([key, 400, "BAD_REQUEST"]);
      }
      // JSON's own "__proto__" key (a property of the parsed body, not its prototype) is refused the same way.
      const raw = await fetch(`${s.interactiveLiveViewUrl}/input`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"type":"key","key":"__proto__"}' });
      expect(raw.status).toBe(400);
      expect((await send({ type: "key", key: "Tab" })).status).toBe(204);
      const seen: any = await app.browserExecute(s.id, { code: `agent-browser eval "window.keys"` });
      expect(JSON.parse(seen.stdout)).toEqual(["Tab"]);
    } finally {
      await app.deleteBrowser(s.id);
    }
  }, 60_000);

  test("the interactive page's own script: a click on the picture, in a browser, reaches the watched page; a trailing slash is redirected", async () => {
    const watched: any = await app.browser({});
    await app.browserExecute(watched.id, { code: `agent-browser open ${base}/big` });
    const slashed = await fetch(`${watched.interactiveLiveViewUrl}/`, { redirect: "manual" });
    expect(slashed.status).toBe(308);
    expect(new URL(slashed.headers.get("location")!, `${watched.interactiveLiveViewUrl}/`).href).toBe(watched.interactiveLiveViewUrl);
    // A second session is the person's browser: it opens the interactive view and clicks the picture.
    const viewer: any = await app.browser({ streamWebView: false });
    try {
      const opened: any = await app.browserExecute(viewer.id, { code: `agent-browser open ${watched.interactiveLiveViewUrl} && agent-browser wait 1500 && agent-browser click img` });
      expect(opened.exitCode).toBe(0);
      let title = "";
      for (let i = 0; i < 40 && title !== "big clicked"; i++) {
        title = ((await app.browserExecute(watched.id, { code: "agent-browser get title" })) as any).stdout.trim();
        if (title !== "big clicked") await Bun.sleep(100);
      }
      expect(title).toBe("big clicked");
    } finally {
      await app.deleteBrowser(viewer.id);
      await app.deleteBrowser(watched.id);
    }
  }, 60_000);
});
