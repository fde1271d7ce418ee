/**
 * Live views of browser sessions (`liveViewUrl`, src/interact/live-view.ts, src/server/routes/live.ts) with real
 * Chromium: the viewer page and its MJPEG stream need no key but the URL's token; frames follow what the session's
 * page shows; a session opened with `streamWebView: false` has none; a closed session's view ends and is a 404; at
 * most four viewers; a scrape's interact session answers with its view too.
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
});
