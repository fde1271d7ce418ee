/**
 * DocumentSizeGuard.settled (engines/browser/document-size.ts), the wait a browser session's command makes after its
 * load for the document's last bytes to be counted. The CDP events are replayed in the order a real run gave them
 * when a session's `goto` of a gzip page (28 KB on the wire, 5 MiB decoded) answered "loaded": the page said it
 * loaded after the response's headers and before its `dataReceived` events reached this guard's session. The real
 * sequence, on Chromium, is test/interact/page-size.test.ts (which failed about one run in five before this wait).
 */
import { EventEmitter } from "node:events";
import { describe, expect, test } from "bun:test";
import type { CDPSession } from "puppeteer-core";
import { DocumentSizeGuard } from "../../src/engines/browser/document-size.ts";

const FRAME = "MAIN";
const LIMIT = 1_048_576;

/** A CDP session of one page: events are emitted by the test, in the order it chooses. */
class ReplayedSession extends EventEmitter {
  async send(method: string): Promise<unknown> {
    return method === "Page.getFrameTree" ? { frameTree: { frame: { id: FRAME } } } : {};
  }
}

async function guarded() {
  const session = new ReplayedSession();
  const guard = new DocumentSizeGuard(session as unknown as CDPSession, LIMIT);
  await guard.start();
  const request = (id: string, url: string) => session.emit("Network.requestWillBeSent", { requestId: id, frameId: FRAME, type: "Document", request: { url } });
  const response = (id: string, url: string, headers: Record<string, string>) => session.emit("Network.responseReceived", { requestId: id, response: { url, headers } });
  const data = (id: string, bytes: number) => session.emit("Network.dataReceived", { requestId: id, dataLength: bytes, encodedDataLength: 0 });
  const finished = (id: string) => session.emit("Network.loadingFinished", { requestId: id });
  return { guard, request, response, data, finished };
}

/** How long `p` took to settle, in ms. */
async function timed(p: Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await p;
  return performance.now() - t0;
}

describe("DocumentSizeGuard.settled", () => {
  test("a document whose bytes are counted after the page said it loaded: the wait ends when they pass the limit", async () => {
    const { guard, request, response, data } = await guarded();
    const mark = guard.rearm();
    request("1", "http://site/big-gz");
    response("1", "http://site/big-gz", { "content-type": "text/html", "content-encoding": "gzip", "content-length": "28143" });
    const settled = guard.settled(5_000, mark);
    setTimeout(() => {
      for (let i = 0; i < 80; i++) data("1", 65_536);
    }, 30);
    expect(await timed(settled)).toBeLessThan(1_000);
    expect(guard.signal.aborted).toBe(true);
    expect(guard.signal.reason).toMatchObject({ code: "SCRAPE_RESPONSE_TOO_LARGE" });
  });

  test("a document under the limit: the wait ends when it finishes, and nothing aborts", async () => {
    const { guard, request, response, data, finished } = await guarded();
    const mark = guard.rearm();
    request("1", "http://site/small");
    response("1", "http://site/small", { "content-type": "text/html" });
    data("1", 10_000);
    const settled = guard.settled(5_000, mark);
    setTimeout(() => finished("1"), 30);
    expect(await timed(settled)).toBeLessThan(1_000);
    expect(guard.signal.aborted).toBe(false);
  });

  test("nothing downloading, or a navigation still waiting for its headers: no wait", async () => {
    const { guard, request } = await guarded();
    const mark = guard.rearm();
    expect(await timed(guard.settled(5_000, mark))).toBeLessThan(50);
    request("2", "http://slow-site/");
    expect(await timed(guard.settled(5_000, mark))).toBeLessThan(50);
  });

  test("a download that never ends is waited for `waitMs` only", async () => {
    const { guard, request, response, data } = await guarded();
    const mark = guard.rearm();
    request("1", "http://site/stream");
    response("1", "http://site/stream", { "content-type": "text/html" });
    data("1", 1_000);
    const took = await timed(guard.settled(200, mark));
    expect(took).toBeGreaterThanOrEqual(190);
    expect(took).toBeLessThan(2_000);
    expect(guard.signal.aborted).toBe(false);
    guard.dispose();
  });

  test("a document answered during an earlier command, that Chromium never ends (window.stop()), holds no later command", async () => {
    const { guard, request, response, data } = await guarded();
    guard.rearm();
    request("1", "http://site/stopped");
    response("1", "http://site/stopped", { "content-type": "text/html" });
    data("1", 1_000);
    // No loadingFinished nor loadingFailed comes for it: the next commands do not wait for it.
    for (let i = 0; i < 3; i++) {
      const mark = guard.rearm();
      expect(await timed(guard.settled(5_000, mark))).toBeLessThan(50);
    }
    // A document answered during the current command is still waited for.
    const mark = guard.rearm();
    request("2", "http://site/big");
    response("2", "http://site/big", { "content-type": "text/html" });
    setTimeout(() => data("2", 2 * LIMIT), 30);
    expect(await timed(guard.settled(5_000, mark))).toBeLessThan(1_000);
    expect(guard.signal.aborted).toBe(true);
  });
});
