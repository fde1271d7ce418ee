/**
 * HTTP engine behaviour through a real egress gate with allowPrivateNetwork=true, against local fixtures.
 * SSRF refusals live in test/egress/gate.test.ts; redirects and charsets in http-redirects.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import zlib from "node:zlib";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine, DEFAULT_USER_AGENT } from "../../src/engines/http/index.ts";
import type { Engine, FetchRequest } from "../../src/engines/types.ts";
import { ScrapeTimeoutError, SiteError } from "../../src/errors.ts";
import {
  type BombEncoding,
  COMPRESSIBLE_HTML,
  type FixtureServer,
  makeBomb,
  startCountingServer,
  startHttpFixtures,
  startTlsServer,
} from "../fixtures/servers.ts";
import { startRawHttpServer } from "../fixtures/raw-servers.ts";
import { engineRequest, failure } from "../helpers/engine-requests.ts";

const MiB = 1024 * 1024;
const BOMB_DECODED_BYTES = 200 * MiB;

let site: FixtureServer;
let tlsSite: FixtureServer;
let gate: EgressGate;
let engine: Engine;
let bombs: Record<BombEncoding, Uint8Array<ArrayBuffer>>;

const concatBytes = (...parts: Uint8Array[]): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.concat(parts));

const req = (path: string, extra: Partial<FetchRequest> = {}): FetchRequest => engineRequest(site.url, path, extra);

beforeAll(async () => {
  bombs = {
    gzip: await makeBomb("gzip", BOMB_DECODED_BYTES),
    deflate: await makeBomb("deflate", BOMB_DECODED_BYTES),
    br: await makeBomb("br", BOMB_DECODED_BYTES),
  };
  site = startHttpFixtures({ bombs });
  tlsSite = await startTlsServer(() => new Response("<p>secure</p>", { headers: { "content-type": "text/html" } }));
  gate = await createEgressGate({ allowPrivateNetwork: true });
  engine = createHttpEngine({ gate });
});

afterAll(async () => {
  await gate.close();
  await site.stop();
  await tlsSite.stop();
});

describe("pages", () => {
  test("records status, lower-cased headers, content type, final URL, engine and time", async () => {
    const page = await engine.fetch(req("/ok"));
    expect(page).toMatchObject({ statusCode: 200, contentType: "text/html", engine: "http", charset: "utf-8", finalUrl: `${site.url}/ok` });
    expect(page.requestedUrl).toBe(`${site.url}/ok`);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.text).toContain("ok");
    expect(page.elapsedMs).toBeGreaterThanOrEqual(0);
  });

  test("the final URL is in the form a browser reports (a bare origin gets its slash); the requested one as sent", async () => {
    const page = await engine.fetch(req(site.url));
    expect(page.finalUrl).toBe(`${site.url}/`);
    expect(page.requestedUrl).toBe(site.url);
  });

  test("a 404 is a page, not an error", async () => {
    const page = await engine.fetch(req("/404"));
    expect(page.statusCode).toBe(404);
    expect(page.text).toContain("not here");
  });

  test("default headers, and client headers arrive at the server", async () => {
    const defaults = JSON.parse((await engine.fetch(req("/echo"))).text!);
    expect(defaults["user-agent"]).toBe(DEFAULT_USER_AGENT);
    expect(defaults["accept-encoding"]).toBe("gzip, deflate, br");
    expect(defaults.accept).toContain("text/html");
    const custom = JSON.parse(
      (await engine.fetch(req("/echo", { headers: { "X-Custom": "yes", "User-Agent": "MyBot/1", Cookie: "a=b", "Accept-Encoding": "zstd" } }))).text!,
    );
    expect(custom).toMatchObject({ "x-custom": "yes", "user-agent": "MyBot/1", cookie: "a=b", "accept-encoding": "gzip, deflate, br" });
  });

  test("https through a CONNECT tunnel; skipTlsVerification controls certificate checks", async () => {
    const page = await engine.fetch(req(`${tlsSite.url}/`, { skipTlsVerification: true }));
    expect(page.text).toBe("<p>secure</p>");
    const err = await failure(engine.fetch(req(`${tlsSite.url}/`)));
    expect(err.code).toBe("SCRAPE_SSL_ERROR");
  });

  test("connection refused is SCRAPE_SITE_ERROR", async () => {
    const closed = startCountingServer(() => new Response(""));
    const url = closed.url;
    await closed.stop();
    const err = await failure(engine.fetch(req(`${url}/`)));
    expect(err).toBeInstanceOf(SiteError);
    expect(err.code).toBe("SCRAPE_SITE_ERROR");
    const tunnel = await failure(engine.fetch(req(url.replace("http:", "https:") + "/")));
    expect(tunnel.code).toBe("SCRAPE_SITE_ERROR");
  });
});

describe("malformed bodies", () => {
  test("a chunked body with a bad chunk size is SCRAPE_SITE_ERROR, not an untyped error (a 500)", async () => {
    const raw = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        data(socket) {
          socket.write("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n<p>broken</p>\r\n0\r\n\r\n");
          socket.end();
        },
      },
    });
    try {
      const err = await failure(engine.fetch(req(`http://127.0.0.1:${raw.port}/`)));
      expect(err).toBeInstanceOf(SiteError);
      expect(err.code).toBe("SCRAPE_SITE_ERROR");
    } finally {
      raw.stop(true);
    }
  });
});

describe("compression", () => {
  test.each(["gzip", "br", "deflate", "deflate-raw"])("%s is decoded", async (encoding) => {
    const page = await engine.fetch(req(`/${encoding}`));
    expect(page.text).toBe(COMPRESSIBLE_HTML);
    expect(page.body.byteLength).toBe(COMPRESSIBLE_HTML.length);
  });

  test.each(["gzip", "deflate", "br"] as const)("a %s bomb (200 MiB of zeros) stops at the 1 MiB limit", async (encoding) => {
    Bun.gc(true);
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const err = await failure(engine.fetch(req(`/bomb/${encoding}`)));
    expect(err.code).toBe("SCRAPE_RESPONSE_TOO_LARGE");
    expect(err.status).toBe(500);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * MiB);
  });

  test("gzip with trailing bytes after the member (PHP/proxy `\\n\\n`) is decoded; a corrupt first member still fails", async () => {
    const gz = (text: string) => new Uint8Array(zlib.gzipSync(text));
    const bodies = {
      newlines: concatBytes(gz(COMPRESSIBLE_HTML), new TextEncoder().encode("\n\n")),
      garbage: concatBytes(gz(COMPRESSIBLE_HTML), new TextEncoder().encode("<!-- served by X -->")),
      twoMembers: concatBytes(gz(COMPRESSIBLE_HTML), gz("<p>second</p>"), new TextEncoder().encode("\n")),
    };
    for (const [name, body] of Object.entries(bodies)) {
      const raw = await startRawHttpServer(["HTTP/1.1 200 OK", "Content-Type: text/html", "Content-Encoding: gzip", `Content-Length: ${body.byteLength}`], body);
      try {
        const page = await engine.fetch(req(`${raw.url}/`));
        expect({ name, text: page.text }).toEqual({ name, text: name === "twoMembers" ? `${COMPRESSIBLE_HTML}<p>second</p>` : COMPRESSIBLE_HTML });
      } finally {
        await raw.stop();
      }
    }
    const corrupt = gz(COMPRESSIBLE_HTML);
    corrupt[corrupt.length - 6]! ^= 0xff; // CRC-32 of the only member
    const raw = await startRawHttpServer(["HTTP/1.1 200 OK", "Content-Type: text/html", "Content-Encoding: gzip", `Content-Length: ${corrupt.byteLength}`], corrupt);
    try {
      const err = await failure(engine.fetch(req(`${raw.url}/`)));
      expect(err.code).toBe("SCRAPE_SITE_ERROR");
    } finally {
      await raw.stop();
    }
  });

  test("Content-Length over the limit is refused before the body is read", async () => {
    const raw = await startRawHttpServer(["HTTP/1.1 200 OK", "Content-Type: text/html", `Content-Length: ${1024 * MiB}`], new Uint8Array(1000));
    try {
      const started = performance.now();
      const err = await failure(engine.fetch(req(`${raw.url}/`)));
      expect(err.code).toBe("SCRAPE_RESPONSE_TOO_LARGE");
      expect(err.details).toMatchObject({ contentLength: 1024 * MiB, maxBodyBytes: MiB });
      expect(performance.now() - started).toBeLessThan(1000);
    } finally {
      await raw.stop();
    }
  });

  test("a body without Content-Length is cut at the limit", async () => {
    const err = await failure(engine.fetch(req(`/big-chunked?bytes=${50 * MiB}`)));
    expect(err.code).toBe("SCRAPE_RESPONSE_TOO_LARGE");
    const fits = await engine.fetch(req(`/big-chunked?bytes=${MiB}`));
    expect(fits.body.byteLength).toBe(MiB);
  });
});

describe("deadline", () => {
  test("a slow-dripping body fails promptly with ScrapeTimeoutError", async () => {
    const started = performance.now();
    const err = await failure(engine.fetch(req("/slow?ms=10000", { timeoutMs: 800 })));
    expect(err).toBeInstanceOf(ScrapeTimeoutError);
    expect(err.code).toBe("SCRAPE_TIMEOUT");
    expect(performance.now() - started).toBeLessThan(800 + 500);
  });

  test("slow headers fail promptly too", async () => {
    const started = performance.now();
    const err = await failure(engine.fetch(req("/slow-headers?ms=10000", { timeoutMs: 500 })));
    expect(err).toBeInstanceOf(ScrapeTimeoutError);
    expect(performance.now() - started).toBeLessThan(500 + 500);
  });

  test("the deadline covers the whole redirect chain", async () => {
    const slowRedirector = startCountingServer(async (r) => {
      await Bun.sleep(150);
      const n = Number(new URL(r.url).pathname.slice(1));
      return new Response(null, { status: 302, headers: { location: `/${n + 1}` } });
    });
    try {
      const started = performance.now();
      const err = await failure(engine.fetch(req(`${slowRedirector.url}/0`, { timeoutMs: 600 })));
      expect(err).toBeInstanceOf(ScrapeTimeoutError);
      expect(performance.now() - started).toBeLessThan(600 + 500);
      expect(slowRedirector.hits).toBeLessThanOrEqual(5);
    } finally {
      await slowRedirector.stop();
    }
  });

  test("an abandoned fetch releases the site connection at once", async () => {
    const raw = await startRawHttpServer(["HTTP/1.1 200 OK", "Content-Type: text/html", "Content-Length: 100000"], new Uint8Array(10));
    try {
      const err = await failure(engine.fetch(req(`${raw.url}/`, { timeoutMs: 300 })));
      expect(err).toBeInstanceOf(ScrapeTimeoutError);
      const until = Date.now() + 1000;
      while (raw.closed < 1 && Date.now() < until) await Bun.sleep(10);
      expect(raw.closed).toBe(raw.connections);
    } finally {
      await raw.stop();
    }
  });

  test("the caller's abort signal stops the fetch with its reason", async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error("cancelled by caller")), 100);
    const err = await engine.fetch(req("/slow?ms=5000"), ac.signal).catch((e: unknown) => e);
    expect((err as Error).message).toBe("cancelled by caller");
  });
});
