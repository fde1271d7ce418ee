/**
 * SSRF integration tests: allowPrivateNetwork=false, a "secret" server on loopback that must never be hit.
 *
 * To exercise redirects and rebinding honestly without the internet, one loopback address, 127.0.0.2, is declared
 * public through the gate's injected classifier; "public.test" resolves to it. Everything else keeps the real
 * classifier, so a redirect from the "public" site to 127.0.0.1 is a real refusal, not a test artefact. The
 * secret's twin listens on 127.0.0.2 with the SAME port, so a rebinding name can point at either.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AddressVerdict, classifyAddress, createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine } from "../../src/engines/types.ts";
import { EgressDeniedError, SiteError } from "../../src/errors.ts";
import { loadConfig } from "../../src/config.ts";
import { type FixtureServer, startCountingServer, startHttpFixtures, startTlsServer } from "../fixtures/servers.ts";

const PUBLIC_FIXTURE_IP = "127.0.0.2";
/** 127.0.0.3 is "public" too but nothing listens there: a dead address for the pinned engine to skip. */
const DEAD_PUBLIC_IP = "127.0.0.3";
const classify = (a: string): AddressVerdict => (a === PUBLIC_FIXTURE_IP || a === DEAD_PUBLIC_IP ? { public: true } : classifyAddress(a));

let secret: FixtureServer; // 127.0.0.1:P
let twin: FixtureServer; // 127.0.0.2:P (same port), "public"
let secret6: FixtureServer; // [::1]
let secretTls: FixtureServer; // https on 127.0.0.1
let site: FixtureServer; // "public" fixture site on 127.0.0.2
let gate: EgressGate;
let engine: Engine;
let rebindCalls = 0;

const names: Record<string, () => string[]> = {
  "public.test": () => [PUBLIC_FIXTURE_IP],
  "evil.test": () => ["127.0.0.1"],
  "metadata.test": () => ["169.254.169.254"],
  "mixed.test": () => [PUBLIC_FIXTURE_IP, "127.0.0.1"],
  "six.test": () => ["::1"],
  "half-dead.test": () => [DEAD_PUBLIC_IP, PUBLIC_FIXTURE_IP],
  // Public on the first lookup, loopback on every later one.
  "rebind.test": () => (++rebindCalls === 1 ? [PUBLIC_FIXTURE_IP] : ["127.0.0.1"]),
};
const resolver = async (host: string) => {
  const answer = names[host];
  if (!answer) throw new Error(`ENOTFOUND ${host}`);
  return answer();
};

const req = (url: string) => ({ url, timeoutMs: 5000, maxBodyBytes: 1 << 20 });

beforeAll(async () => {
  secret = startCountingServer(() => new Response("SECRET"));
  twin = startCountingServer(() => new Response("twin"), { hostname: PUBLIC_FIXTURE_IP, port: secret.port });
  secret6 = startCountingServer(() => new Response("SECRET6"), { hostname: "::1" });
  secretTls = await startTlsServer(() => new Response("SECRET-TLS"));
  site = startHttpFixtures({ hostname: PUBLIC_FIXTURE_IP });
  gate = await createEgressGate({ allowPrivateNetwork: false, resolver, classify });
  engine = createHttpEngine({ gate });
});

afterAll(async () => {
  await gate.close();
  for (const s of [secret, twin, secret6, secretTls, site]) await s.stop();
});

async function expectDenied(p: Promise<unknown>, messagePart?: string | RegExp): Promise<EgressDeniedError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EgressDeniedError);
  const denied = err as EgressDeniedError;
  expect(denied.status).toBe(403);
  expect(denied.code).toBe("EGRESS_DENIED");
  if (messagePart) expect(denied.message).toMatch(messagePart);
  return denied;
}

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

describe("any HTTP client can use the proxy (webhooks, Chromium)", () => {
  test("a 5 MB POST body is relayed intact", async () => {
    const echo = startCountingServer(async (r) => new Response(String((await r.arrayBuffer()).byteLength)), { hostname: PUBLIC_FIXTURE_IP });
    try {
      const body = new Uint8Array(5_000_000).fill(97);
      const res = await fetch(`http://public.test:${echo.port}/hook`, { method: "POST", body, proxy: gate.proxyUrl });
      expect(await res.text()).toBe("5000000");
    } finally {
      await echo.stop();
    }
  });

  test("a raw CONNECT to a private address gets a 403 with the marker headers", async () => {
    const received: Buffer[] = [];
    const done = Promise.withResolvers<void>();
    const sock = await Bun.connect({
      hostname: "127.0.0.1",
      port: Number(new URL(gate.proxyUrl).port),
      socket: { data: (_s, d) => void received.push(Buffer.from(d)), close: () => done.resolve(), error: () => done.resolve() },
    });
    sock.write(`CONNECT 169.254.169.254:443 HTTP/1.1\r\nHost: 169.254.169.254:443\r\n\r\n`);
    await done.promise;
    const text = Buffer.concat(received).toString();
    expect(text).toStartWith("HTTP/1.1 403 Forbidden");
    expect(text).toContain("x-crawlbox-egress-error: EGRESS_DENIED");
    expect(text).toContain("link-local address 169.254.169.254");
  });
});

describe("check()", () => {
  test("explains refusals and passes public targets", async () => {
    await expectDenied(gate.check("http://10.0.0.1/"), "Egress denied: the target is a private address 10.0.0.1");
    await expectDenied(gate.check("http://evil.test/"), "evil.test resolves to a loopback address.");
    // A name's refusal says what kind of address it has, never which one (the client gave a name, not an address).
    const named = (await gate.check("http://evil.test/").catch((e: unknown) => e)) as EgressDeniedError;
    expect(JSON.stringify({ message: named.message, details: named.details })).not.toContain("127.0.0.1");
    await expectDenied(gate.check("ftp://public.test/"), /scheme ftp:/);
    await expectDenied(gate.check("http://public.test:22/"), /port 22/);
    await gate.check(`http://public.test:${site.port}/`);
  });

  test("DNS failure is SCRAPE_DNS_RESOLUTION_ERROR, not a denial", async () => {
    const err = await gate.check("http://nope.invalid/").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SiteError);
    expect((err as SiteError).code).toBe("SCRAPE_DNS_RESOLUTION_ERROR");
    const viaEngine = await engine.fetch(req("http://nope.invalid/")).catch((e: unknown) => e);
    expect((viaEngine as SiteError).code).toBe("SCRAPE_DNS_RESOLUTION_ERROR");
  });
});

describe("allowPrivateNetwork=true", () => {
  test("private targets pass, but still through the gate (ports are still checked)", async () => {
    const open = await createEgressGate({ allowPrivateNetwork: true, resolver });
    try {
      const page = await createHttpEngine({ gate: open }).fetch(req(`http://evil.test:${secret.port}/`));
      expect(page.text).toBe("SECRET");
      await expectDenied(open.check("http://127.0.0.1:25/"), /port 25/);
    } finally {
      await open.close();
      secret.hits = 0;
    }
  });
});
