/**
 * The proxy keeps plain-http connections alive. These tests hold it to the properties that made "one request per
 * connection" safe: every request is checked on its own, no byte crosses from one exchange (or site) to the next,
 * and a client that pipelines or lies about framing reaches nothing it could not reach with separate connections.
 * Same setup as gate.test.ts: 127.0.0.2 is declared public, the secret on 127.0.0.1 must get zero hits.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AddressVerdict, classifyAddress, createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { rawClient, type ScriptedServer, startScriptedServer } from "../fixtures/raw-servers.ts";
import { type FixtureServer, startCountingServer } from "../fixtures/servers.ts";

const PUBLIC_FIXTURE_IP = "127.0.0.2";
const classify = (a: string): AddressVerdict => (a === PUBLIC_FIXTURE_IP ? { public: true } : classifyAddress(a));

let secret: FixtureServer;
let twin: FixtureServer;
let a: FixtureServer; // "public" sites on 127.0.0.2
let b: FixtureServer;
let gate: EgressGate;
let proxyPort: number;
let rebindCalls = 0;

const names: Record<string, () => string[]> = {
  "public.test": () => [PUBLIC_FIXTURE_IP],
  "rebind.test": () => (++rebindCalls === 1 ? [PUBLIC_FIXTURE_IP] : ["127.0.0.1"]),
};
const resolver = async (host: string) => {
  const answer = names[host];
  if (!answer) throw new Error(`ENOTFOUND ${host}`);
  return answer();
};

/** A "public" site answering `<name>:<path>`. */
function site(name: string): FixtureServer {
  return startCountingServer((r) => new Response(`${name}:${new URL(r.url).pathname}`), { hostname: PUBLIC_FIXTURE_IP });
}

const get = (url: string, extra = "") => `GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\n${extra}\r\n`;
const count = (text: string, s: string) => text.split(s).length - 1;

beforeAll(async () => {
  secret = startCountingServer(() => new Response("SECRET"));
  twin = startCountingServer(() => new Response("twin"), { hostname: PUBLIC_FIXTURE_IP, port: secret.port });
  a = site("A");
  b = site("B");
  gate = await createEgressGate({ allowPrivateNetwork: false, resolver, classify });
  proxyPort = Number(new URL(gate.proxyUrl).port);
});

afterAll(async () => {
  await gate.close();
  for (const s of [secret, twin, a, b]) await s.stop();
});

describe("keep-alive with Bun's fetch", () => {
  test("20 fetches to one origin use one site connection", async () => {
    const s = startCountingServer(() => new Response("x".repeat(90_000)), { hostname: PUBLIC_FIXTURE_IP });
    const counting = startScriptedServer(() => "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", PUBLIC_FIXTURE_IP);
    try {
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`http://public.test:${counting.port}/${i}`, { proxy: gate.proxyUrl });
        expect(await res.text()).toBe("ok");
      }
      expect(counting.requests.length).toBe(20);
      expect(counting.connections).toBe(1);
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`http://public.test:${s.port}/`, { proxy: gate.proxyUrl });
        expect((await res.text()).length).toBe(90_000);
      }
    } finally {
      await s.stop();
      await counting.stop();
    }
  });

  test("alternating origins and refusals over Bun's pooled proxy connection", async () => {
    for (let i = 0; i < 5; i++) {
      expect(await (await fetch(`http://public.test:${a.port}/a${i}`, { proxy: gate.proxyUrl })).text()).toBe(`A:/a${i}`);
      expect(await (await fetch(`http://public.test:${b.port}/b${i}`, { proxy: gate.proxyUrl })).text()).toBe(`B:/b${i}`);
      const denied = await fetch(`http://127.0.0.1:${secret.port}/`, { proxy: gate.proxyUrl });
      expect(denied.status).toBe(403);
      await denied.text();
    }
    expect(secret.hits).toBe(0);
  });

  test("rebinding: a kept-alive site connection is not reused once the name no longer checks out", async () => {
    rebindCalls = 0;
    const first = await fetch(`http://rebind.test:${secret.port}/`, { proxy: gate.proxyUrl });
    expect(await first.text()).toBe("twin");
    const second = await fetch(`http://rebind.test:${secret.port}/`, { proxy: gate.proxyUrl });
    expect(second.status).toBe(403);
    expect(second.headers.get("x-crawlbox-egress-error")).toBe("EGRESS_DENIED");
    await second.text();
    expect(rebindCalls).toBe(2);
    expect(secret.hits).toBe(0);
  });
});

describe("raw clients: pipelining and framing", () => {
  test("pipelined requests to two sites are answered in order, each by its own site", async () => {
    const c = await rawClient(proxyPort);
    c.write(get(`http://public.test:${a.port}/one`) + get(`http://public.test:${b.port}/two`) + get(`http://public.test:${a.port}/three`));
    const text = await c.until((t) => t.includes("A:/three"));
    expect(text.indexOf("A:/one")).toBeLessThan(text.indexOf("B:/two"));
    expect(text.indexOf("B:/two")).toBeLessThan(text.indexOf("A:/three"));
    expect(count(text, "HTTP/1.1 200")).toBe(3);
    expect(text).not.toContain("x-crawlbox-egress");
    c.end();
  });

  test("a pipelined request for the secret after an allowed one is refused, the first is served", async () => {
    const c = await rawClient(proxyPort);
    c.write(get(`http://public.test:${a.port}/ok`) + get(`http://127.0.0.1:${secret.port}/`) + get(`http://public.test:${a.port}/after`));
    await c.closed;
    const text = c.text();
    expect(text).toStartWith("HTTP/1.1 200");
    expect(text).toContain("A:/ok");
    expect(text).toContain("HTTP/1.1 403 Forbidden");
    expect(text).not.toContain("A:/after"); // the connection closes after a refusal
    expect(secret.hits).toBe(0);
  });

  test("bytes a site sends past its Content-Length never reach the client, and its connection is not reused", async () => {
    const liar = startScriptedServer(
      (head) => `HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nINJECT`,
      PUBLIC_FIXTURE_IP,
    );
    try {
      const c = await rawClient(proxyPort);
      c.write(get(`http://public.test:${liar.port}/1`));
      await c.until((t) => t.endsWith("ok"));
      c.write(get(`http://public.test:${liar.port}/2`)); // same origin: would reuse, but the connection is tainted
      await c.until((t) => count(t, "\r\n\r\nok") === 2);
      expect(liar.connections).toBe(2);
      c.write(get(`http://public.test:${b.port}/next`));
      const text = await c.until((t) => t.includes("B:/next"));
      expect(text).not.toContain("INJECT");
      expect(count(text, "HTTP/1.1 200")).toBe(3);
      c.end();
    } finally {
      await liar.stop();
    }
  });

  test("HEAD, 204 and 304 have no body even when they declare one; the next exchange is intact", async () => {
    const s = startScriptedServer((head) => {
      if (head.startsWith("HEAD")) return "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n";
      if (head.includes("/204")) return "HTTP/1.1 204 No Content\r\n\r\n";
      if (head.includes("/304")) return "HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\n\r\n";
      return "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nbody";
    }, PUBLIC_FIXTURE_IP);
    try {
      const c = await rawClient(proxyPort);
      const u = `http://public.test:${s.port}`;
      c.write(`HEAD ${u}/h HTTP/1.1\r\nHost: x\r\n\r\n` + get(`${u}/204`) + get(`${u}/304`) + get(`${u}/last`));
      const text = await c.until((t) => t.endsWith("body"));
      expect(count(text, "HTTP/1.1 ")).toBe(4);
      expect(s.connections).toBe(1);
      c.end();
    } finally {
      await s.stop();
    }
  });

  test("a chunked response with trailers is relayed whole, then the next site answers", async () => {
    const body = "4\r\nwiki\r\n5;x=y\r\npedia\r\n0\r\nExpires: never\r\n\r\n";
    const s = startScriptedServer(() => `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${body}`, PUBLIC_FIXTURE_IP);
    try {
      const c = await rawClient(proxyPort);
      c.write(get(`http://public.test:${s.port}/`) + get(`http://public.test:${a.port}/then`));
      const text = await c.until((t) => t.includes("A:/then"));
      expect(text).toContain(body);
      c.end();
    } finally {
      await s.stop();
    }
  });

  test("a response without a length is close-delimited: Connection: close, then the connection ends", async () => {
    const s = startScriptedServer(() => "HTTP/1.1 200 OK\r\n\r\nuntil close", PUBLIC_FIXTURE_IP);
    // The scripted server keeps the connection open; end it from the site side after the answer.
    try {
      const c = await rawClient(proxyPort);
      c.write(get(`http://public.test:${s.port}/`) + get(`http://127.0.0.1:${secret.port}/`));
      await c.until((t) => t.includes("until close"));
      await s.stop(); // site closes → end of body
      await c.closed;
      expect(c.text().toLowerCase()).toContain("connection: close");
      expect(c.text()).not.toContain("403");
      expect(secret.hits).toBe(0);
    } finally {
      await s.stop();
    }
  });

  test("a site cannot hide its framing with Connection: content-length", async () => {
    const s = startScriptedServer(() => "HTTP/1.1 200 OK\r\nConnection: content-length\r\nContent-Length: 3\r\n\r\nabc", PUBLIC_FIXTURE_IP);
    try {
      const c = await rawClient(proxyPort);
      c.write(get(`http://public.test:${s.port}/`) + get(`http://public.test:${a.port}/x`));
      const text = await c.until((t) => t.includes("A:/x"));
      expect(text).toContain("Content-Length: 3\r\n");
      c.end();
    } finally {
      await s.stop();
    }
  });

  test("a kept-alive site connection closed by the site is retried once on a fresh one", async () => {
    const s = startScriptedServer((_head, i) => (i === 0 ? "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst" : "close"), PUBLIC_FIXTURE_IP);
    try {
      const c = await rawClient(proxyPort);
      c.write(get(`http://public.test:${s.port}/1`));
      await c.until((t) => t.endsWith("first"));
      c.write(get(`http://public.test:${s.port}/2`));
      const text = await c.until((t) => count(t, "first") === 2);
      expect(s.connections).toBe(2);
      expect(text).not.toContain("403");
      c.end();
    } finally {
      await s.stop();
    }
  });
});

describe("raw clients that lie", () => {
  test.each([
    ["Transfer-Encoding plus Content-Length", "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n"],
    ["a non-chunked Transfer-Encoding", "Transfer-Encoding: gzip\r\n"],
    ["conflicting Content-Length", "Content-Length: 4\r\nContent-Length: 40\r\n"],
  ])("%s → 400, nothing reaches any site", async (_name, framing) => {
    const before = a.hits;
    const c = await rawClient(proxyPort);
    c.write(`POST http://public.test:${a.port}/x HTTP/1.1\r\nHost: x\r\n${framing}\r\n0\r\n\r\n` + get(`http://127.0.0.1:${secret.port}/`));
    await c.closed;
    expect(c.text()).toStartWith("HTTP/1.1 400");
    expect(a.hits).toBe(before);
    expect(secret.hits).toBe(0);
  });

  test("a request hidden in a Content-Length body goes to the checked site as body bytes, not to the secret", async () => {
    const echo = startScriptedServer(() => "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\necho", PUBLIC_FIXTURE_IP);
    try {
      const smuggled = get(`http://127.0.0.1:${secret.port}/`);
      const c = await rawClient(proxyPort);
      c.write(`POST http://public.test:${echo.port}/ HTTP/1.1\r\nHost: x\r\nContent-Length: ${smuggled.length}\r\n\r\n${smuggled}`);
      await c.until((t) => t.endsWith("echo"));
      expect(echo.bodies[0]).toBe(smuggled);
      expect(secret.hits).toBe(0);
      c.end();
    } finally {
      await echo.stop();
    }
  });

  test("a request after a short Content-Length or after the last chunk is parsed and checked on its own", async () => {
    const echo = startScriptedServer(() => "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\necho", PUBLIC_FIXTURE_IP);
    try {
      const forSecret = get(`http://127.0.0.1:${secret.port}/`);
      for (const req of [
        `POST http://public.test:${echo.port}/ HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc${forSecret}`,
        `POST http://public.test:${echo.port}/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n${forSecret}`,
      ]) {
        const c = await rawClient(proxyPort);
        c.write(req);
        await c.closed;
        expect(c.text()).toContain("echo");
        expect(c.text()).toContain("HTTP/1.1 403 Forbidden");
      }
      expect(secret.hits).toBe(0);
    } finally {
      await echo.stop();
    }
  });

  test("malformed chunked request framing drops the connection; the secret is never reached", async () => {
    const c = await rawClient(proxyPort);
    c.write(`POST http://public.test:${a.port}/ HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n${get(`http://127.0.0.1:${secret.port}/`)}`);
    await c.closed;
    expect(c.text()).not.toContain("SECRET");
    expect(secret.hits).toBe(0);
  });

  test("a CONNECT after a plain request is checked like any other", async () => {
    const c = await rawClient(proxyPort);
    c.write(get(`http://public.test:${a.port}/p`) + `CONNECT 127.0.0.1:${secret.port} HTTP/1.1\r\nHost: x\r\n\r\n`);
    await c.closed;
    expect(c.text()).toContain("A:/p");
    expect(c.text()).toContain("HTTP/1.1 403 Forbidden");
    expect(secret.hits).toBe(0);
  });
});
