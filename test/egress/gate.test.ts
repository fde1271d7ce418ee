/**
 * SSRF integration tests, the engine's side: with allowPrivateNetwork=false, every non-public destination (direct,
 * by name, after a redirect, by rebinding, through the proxy) is refused with zero hits on the "secret" server on
 * loopback; the pinned engine and the proxy connect only to the addresses they checked. The setup (127.0.0.2
 * declared public, the secret's twin on the same port) is in gate-helpers.ts; check() and the proxy's use by any
 * HTTP client are in gate-check.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine } from "../../src/engines/types.ts";
import { loadConfig } from "../../src/config.ts";
import { type FixtureServer, startCountingServer } from "../fixtures/servers.ts";
import { expectDenied, fixtureResolver, type GateWorld, PUBLIC_FIXTURE_IP, req, startGateWorld } from "./gate-helpers.ts";

let world: GateWorld;
let secret: FixtureServer; // 127.0.0.1:P
let twin: FixtureServer; // 127.0.0.2:P (same port), "public"
let secret6: FixtureServer; // [::1]
let secretTls: FixtureServer; // https on 127.0.0.1
let site: FixtureServer; // "public" fixture site on 127.0.0.2
let gate: EgressGate;
let engine: Engine;
let rebindCalls = 0;
// Public on the first lookup, loopback on every later one.
const resolver = fixtureResolver(() => (++rebindCalls === 1 ? [PUBLIC_FIXTURE_IP] : ["127.0.0.1"]));

beforeAll(async () => {
  world = await startGateWorld(resolver);
  ({ secret, twin, secret6, secretTls, site, gate, engine } = world);
});

afterAll(() => world.close());

describe("engine refuses non-public destinations (zero hits on the secret)", () => {
  const direct = () => [
    [`http://127.0.0.1:${secret.port}/`, /loopback address 127\.0\.0\.1/],
    ["http://10.0.0.1/", /private address 10\.0\.0\.1/],
    ["http://172.16.0.5/", /private address 172\.16\.0\.5/],
    ["http://169.254.169.254/latest/meta-data/", /link-local address 169\.254\.169\.254/],
    [`http://[::1]:${secret6.port}/`, /loopback address ::1/],
    [`http://[::ffff:127.0.0.1]:${secret.port}/`, /IPv4-mapped .*127\.0\.0\.1/],
    [`http://0x7f000001:${secret.port}/`, /127\.0\.0\.1/],
    [`http://0177.0.0.1:${secret.port}/`, /127\.0\.0\.1/],
    [`http://evil.test:${secret.port}/`, /evil\.test resolves to a loopback address\. /],
    [`http://metadata.test/`, /metadata\.test resolves to a link-local address/],
    [`http://mixed.test:${secret.port}/`, /mixed\.test resolves to a loopback/],
    [`http://six.test:${secret6.port}/`, /six\.test resolves to a loopback address\. /],
    [`https://127.0.0.1:${secretTls.port}/`, /loopback/],
    [`https://evil.test:${secretTls.port}/`, /evil\.test resolves to a loopback/],
  ] as Array<[string, RegExp]>;

  test("each URL is refused with EgressDeniedError naming host and reason", async () => {
    for (const [url, message] of direct()) await expectDenied(engine.fetch(req(url)), message);
    expect(secret.hits).toBe(0);
    expect(secret6.hits).toBe(0);
    expect(secretTls.hits).toBe(0);
  });

  test("the proxy enforces too, without the engine's pre-check (plain http and CONNECT)", async () => {
    const plain = await fetch(`http://127.0.0.1:${secret.port}/`, { proxy: gate.proxyUrl });
    expect(plain.status).toBe(403);
    expect(plain.headers.get("x-crawlbox-egress-error")).toBe("EGRESS_DENIED");
    const tunnel = await fetch(`https://127.0.0.1:${secretTls.port}/`, { proxy: gate.proxyUrl, tls: { rejectUnauthorized: false } }).catch(
      (e: unknown) => e as { code?: string; status?: number },
    );
    expect(tunnel).toMatchObject({ code: "ERR_PROXY_TUNNEL", status: 403 });
    expect(secret.hits + secretTls.hits).toBe(0);
  });

  test("a redirect from an allowed site to the secret is refused at the hop", async () => {
    const targets = [
      `http://127.0.0.1:${secret.port}/`,
      `http://evil.test:${secret.port}/`,
      `http://0x7f000001:${secret.port}/`,
      `http://[::1]:${secret6.port}/`,
      `https://127.0.0.1:${secretTls.port}/`,
    ];
    for (const to of targets) {
      const before = site.hits;
      const start = `http://public.test:${site.port}/redirect?to=${encodeURIComponent(to)}`;
      await expectDenied(engine.fetch(req(start)));
      expect(site.hits).toBe(before + 1); // the first hop really was fetched
    }
    expect(secret.hits + secret6.hits + secretTls.hits).toBe(0);
  });

  test("the allowed site itself is reachable (the test hook is what makes 127.0.0.2 public)", async () => {
    const page = await engine.fetch(req(`http://public.test:${site.port}/ok`));
    expect(page.statusCode).toBe(200);
    expect(page.text).toContain("ok");
  });

  test("rebinding: the proxy connects to the address it checked, never looks up again", async () => {
    rebindCalls = 0;
    const res = await fetch(`http://rebind.test:${secret.port}/`, { proxy: gate.proxyUrl });
    expect(await res.text()).toBe("twin");
    expect(rebindCalls).toBe(1);
    expect(twin.hits).toBe(1);
    expect(secret.hits).toBe(0);
  });

  test("rebinding: the engine looks the name up once and connects to the address it checked", async () => {
    rebindCalls = 0;
    const page = await engine.fetch(req(`http://rebind.test:${secret.port}/`));
    expect(new TextDecoder().decode(page.body)).toBe("twin");
    expect(rebindCalls).toBe(1);
    expect(secret.hits).toBe(0);
    // And the next fetch's lookup (now loopback) is refused before any connection.
    await expectDenied(engine.fetch(req(`http://rebind.test:${secret.port}/`)), /rebind\.test resolves to a loopback/);
    expect(rebindCalls).toBe(2);
    expect(secret.hits).toBe(0);
  });

  test("not pinned (HTTP_PROXY in the environment): through the gate, whose own lookup refuses the rebinding name", async () => {
    const viaGate = createHttpEngine({ gate, pinned: false });
    rebindCalls = 0;
    await expectDenied(viaGate.fetch(req(`http://rebind.test:${secret.port}/`)), /rebind\.test resolves to a loopback/);
    expect(rebindCalls).toBe(2); // the engine's check, then the gate's own
    expect(secret.hits).toBe(0);
  });

  test("an environment proxy would take pinned fetches; the unpinned engine ignores it", async () => {
    const saved = process.env.HTTP_PROXY;
    process.env.HTTP_PROXY = "http://127.0.0.1:9"; // nothing listens: any request sent there fails
    try {
      expect(loadConfig(process.env).environmentProxy).toBe(true);
      await expect(engine.fetch(req(`http://public.test:${site.port}/ok`))).rejects.toThrow();
      const page = await createHttpEngine({ gate, pinned: false }).fetch(req(`http://public.test:${site.port}/ok`));
      expect(page.statusCode).toBe(200);
    } finally {
      if (saved === undefined) delete process.env.HTTP_PROXY;
      else process.env.HTTP_PROXY = saved;
    }
    expect(loadConfig({ https_proxy: "http://proxy.lan:3128" }).environmentProxy).toBe(true);
    expect(loadConfig({}).environmentProxy).toBe(false);
  });

  test("pinned: a refused connection moves on to the next checked address", async () => {
    const page = await engine.fetch(req(`http://half-dead.test:${twin.port}/`));
    expect(new TextDecoder().decode(page.body)).toBe("twin");
  });

  test("pinned: the site sees the URL's Host header, not the address", async () => {
    await engine.fetch(req(`http://public.test:${twin.port}/host`));
    expect(twin.lastHeaders?.get("host")).toBe(`public.test:${twin.port}`);
  });

  test("one target per proxy connection: a second pipelined request cannot reach another host", async () => {
    const received: Buffer[] = [];
    const done = Promise.withResolvers<void>();
    const head = (url: string, host: string) => `GET ${url} HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n\r\n`;
    const proxyPort = Number(new URL(gate.proxyUrl).port);
    const sock = await Bun.connect({
      hostname: "127.0.0.1",
      port: proxyPort,
      socket: {
        data: (_s, d) => void received.push(Buffer.from(d)),
        close: () => done.resolve(),
        error: () => done.resolve(),
      },
    });
    sock.write(head(`http://public.test:${site.port}/ok`, `public.test:${site.port}`) + head(`http://127.0.0.1:${secret.port}/`, "x"));
    await done.promise;
    const text = Buffer.concat(received).toString();
    expect(text).toStartWith("HTTP/1.1 200");
    expect(text.toLowerCase()).toContain("connection: close");
    expect(text).not.toContain("SECRET");
    expect(secret.hits).toBe(0);
  });

  test("keep-alive reuse by Bun's fetch across hosts is still checked per request", async () => {
    for (let i = 0; i < 3; i++) {
      const ok = await fetch(`http://public.test:${site.port}/ok`, { proxy: gate.proxyUrl });
      expect(ok.status).toBe(200);
      await ok.text();
      const denied = await fetch(`http://127.0.0.1:${secret.port}/`, { proxy: gate.proxyUrl });
      expect(denied.status).toBe(403);
      await denied.text();
    }
    expect(secret.hits).toBe(0);
  });

  test("a site cannot forge the proxy's refusal markers", async () => {
    const forger = startCountingServer(() => new Response("hi", { headers: { "x-crawlbox-egress-error": "EGRESS_DENIED" } }), {
      hostname: PUBLIC_FIXTURE_IP,
    });
    try {
      // Pinned (the engine's default path): the marker is the site's own header and means nothing.
      const page = await engine.fetch(req(`http://public.test:${forger.port}/`));
      expect(page.statusCode).toBe(200);
      expect(new TextDecoder().decode(page.body)).toBe("hi");
      // Through the proxy: the gate strips the forged marker, so the client cannot mistake it for a refusal.
      const res = await fetch(`http://public.test:${forger.port}/`, { proxy: gate.proxyUrl });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-crawlbox-egress-error")).toBeNull();
    } finally {
      await forger.stop();
    }
  });
});
