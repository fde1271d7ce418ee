/**
 * Redirect edge cases of the HTTP engine that need byte-exact responses: raw `Bun.listen` fixtures answering per
 * request path, so the Location bytes are exactly what a misbehaving site sends.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import { locationFromHeader } from "../../src/engines/http/redirects.ts";
import type { Engine } from "../../src/engines/types.ts";

const latin1 = (text: string) => Buffer.from(text, "latin1");
const utf8 = (text: string) => Buffer.from(text, "utf8");
const page = (text: string) => latin1(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${text.length}\r\nConnection: close\r\n\r\n${text}`);
const redirect = (status: number, location: Uint8Array | null, body = "") =>
  Buffer.concat([
    latin1(`HTTP/1.1 ${status} Found\r\n`),
    location === null ? new Uint8Array(0) : Buffer.concat([latin1("Location: "), location, latin1("\r\n")]),
    latin1(`Content-Type: text/html\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`),
  ]);

/** Responses by raw request target (the bytes after GET, as Latin-1 text). */
const ROUTES: Record<string, () => Uint8Array> = {
  "/utf8": () => redirect(302, utf8("/tést?q=é")),
  "/latin1": () => redirect(302, latin1("/caf\u00e9")), // one 0xE9 byte: not UTF-8
  "/empty": () => redirect(302, latin1(""), "<p>moved, no target</p>"),
  "/blank": () => redirect(301, latin1("   "), "<p>blank target</p>"),
};

let raw: { port: number; stop(closeActiveConnections?: boolean): void };
let base: string;
let gate: EgressGate;
let engine: Engine;
const seen: string[] = [];

beforeAll(async () => {
  raw = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket, data) {
        const target = Buffer.from(data).toString("latin1").split("\r\n")[0]!.split(" ")[1]!;
        seen.push(target);
        socket.write(ROUTES[target]?.() ?? page(`<p>at ${target}</p>`));
        socket.end();
      },
    },
  });
  base = `http://127.0.0.1:${raw.port}`;
  gate = await createEgressGate({ allowPrivateNetwork: true });
  engine = createHttpEngine({ gate });
});

afterAll(async () => {
  await gate.close();
  raw.stop(true);
});

const fetchPage = (path: string) => engine.fetch({ url: `${base}${path}`, timeoutMs: 5000, maxBodyBytes: 1 << 20 });

describe("Location bytes", () => {
  test("a raw UTF-8 Location is encoded once, as a browser does, not double-encoded", async () => {
    const page = await fetchPage("/utf8");
    expect(seen.at(-1)).toBe("/t%C3%A9st?q=%C3%A9");
    expect(page.finalUrl).toBe(`${base}/t%C3%A9st?q=%C3%A9`);
    expect(page.text).toBe("<p>at /t%C3%A9st?q=%C3%A9</p>");
  });

  test("a Location that is not UTF-8 keeps its bytes, percent-encoded as they are", async () => {
    const page = await fetchPage("/latin1");
    expect(page.finalUrl).toBe(`${base}/caf%E9`);
  });

  test("locationFromHeader: ASCII unchanged, UTF-8 decoded, other bytes percent-encoded", () => {
    expect(locationFromHeader("/a b?x=1")).toBe("/a b?x=1");
    expect(locationFromHeader(latin1("/é").toString("latin1"))).toBe("/%E9");
    expect(locationFromHeader(utf8("/é€").toString("latin1"))).toBe("/é€");
    expect(locationFromHeader("/€")).toBe("/€"); // not a byte string: left alone
  });
});

describe("empty Location", () => {
  test.each(["/empty", "/blank"])("a 3xx whose Location is empty or blank (%s) is the page, not a redirect loop", async (path) => {
    const page = await fetchPage(path);
    expect(page.finalUrl).toBe(`${base}${path}`);
    expect(page.statusCode).toBe(path === "/empty" ? 302 : 301);
    expect(page.text).toContain(path === "/empty" ? "moved, no target" : "blank target");
  });
});
