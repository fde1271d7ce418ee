/**
 * A JSON body is read before authentication, so within `CRAWLBOX_DEFAULT_TIMEOUT_MS`: a client that declares a body
 * and stalls gets a 408 in the /v2 shape, instead of holding its connection until the server's idle timeout.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";

let h: Harness;
let port: number;
beforeAll(async () => {
  h = await createHarness({ defaultTimeoutMs: 1000 });
  port = Number(new URL(h.listen()).port);
});
afterAll(() => h.close());

/** Sends `raw` (a request head and part of its body) over a socket, then waits up to 8 s for the answer. */
async function stall(raw: string): Promise<{ text: string; ms: number }> {
  const started = performance.now();
  const { promise, resolve } = Promise.withResolvers<string>();
  let text = "";
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_s, chunk) {
        text += new TextDecoder().decode(chunk);
        if (text.includes("\r\n\r\n") && text.includes("}")) resolve(text);
      },
      close() {
        resolve(text);
      },
    },
  });
  socket.write(raw);
  const timer = setTimeout(() => resolve(text), 8_000);
  const answer = await promise;
  clearTimeout(timer);
  socket.end();
  return { text: answer, ms: performance.now() - started };
}

const HEAD = "POST /v2/scrape HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";

test("a declared body that stops arriving: 408 REQUEST_BODY_TIMEOUT after the timeout, before any key is checked", async () => {
  const r = await stall(`${HEAD}Content-Length: 229\r\n\r\n{"url":"ht`);
  expect(r.text).toStartWith("HTTP/1.1 408");
  expect(r.text).toContain('"code":"REQUEST_BODY_TIMEOUT"');
  expect(r.ms).toBeLessThan(5_000);
});

test("a chunked body that stops arriving: the same", async () => {
  const r = await stall(`${HEAD}Transfer-Encoding: chunked\r\n\r\na\r\n{"url":"ht\r\n`);
  expect(r.text).toStartWith("HTTP/1.1 408");
  expect(r.ms).toBeLessThan(5_000);
});

/** Sends `raw` and resolves with how long the server took to close the connection (undefined: still open at 5 s). */
async function closedAfter(raw: string): Promise<{ text: string; closedMs: number | undefined }> {
  const started = performance.now();
  const { promise, resolve } = Promise.withResolvers<number | undefined>();
  let text = "";
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_s, chunk) {
        text += new TextDecoder().decode(chunk);
      },
      close() {
        resolve(performance.now() - started);
      },
    },
  });
  socket.write(raw);
  const timer = setTimeout(() => resolve(undefined), 5_000);
  const closedMs = await promise;
  clearTimeout(timer);
  socket.end();
  return { text, closedMs };
}

test("the server closes the connection of a body it gave up on: a stalled sender cannot keep its socket", async () => {
  // 200 such clients held 200 sockets until they left, past the server's idle timeout: the 408 kept the connection
  // alive with its body unread.
  const stalled = await closedAfter(`${HEAD}Content-Length: 100000\r\n\r\n{"url":"ht`);
  expect(stalled.text).toStartWith("HTTP/1.1 408");
  expect(stalled.text.toLowerCase()).toContain("connection: close");
  expect(stalled.closedMs).toBeLessThan(4_000);
  // Too large, declared: a 413 that closes too (the body is not read).
  const large = await closedAfter(`${HEAD}Content-Length: ${h.services.config.maxRequestBodyBytes + 1}\r\n\r\n{"url":"ht`);
  expect(large.text).toStartWith("HTTP/1.1 413");
  expect(large.closedMs).toBeLessThan(4_000);
});
