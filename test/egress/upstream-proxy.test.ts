/**
 * Chaining the egress gate to upstream proxies (CRAWLBOX_PROXY_BASIC / _ENHANCED / _COUNTRIES): the HTTP engine's side.
 *
 * The destination is checked BEFORE anything reaches the upstream (reliability.md B1, "Open gap: upstream
 * proxy"): a private target is refused with zero hits on the fake upstream. https goes as `CONNECT <checked IP>`
 * with TLS still verified against the URL's name; plain http in absolute form with Proxy-Authorization. Wrong
 * credentials, a dead upstream and one that cannot reach the site are clear errors. The setup (127.0.0.2 declared
 * public, the fake upstreams) is in upstream-proxy-helpers.ts; the URLs and configuration are in
 * upstream-proxy-config.test.ts, the router's choice per request in upstream-proxy-router.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine } from "../../src/engines/types.ts";
import { EgressDeniedError, SiteError } from "../../src/errors.ts";
import { type FixtureServer, startCountingServer } from "../fixtures/servers.ts";
import { type FakeUpstream, startFakeUpstream } from "../fixtures/upstream-proxy.ts";
import { classify, fixtureResolver, PUBLIC_FIXTURE_IP, req, startUpstreamWorld, text, type UpstreamWorld } from "./upstream-proxy-helpers.ts";

let rebindCalls = 0;
const resolver = fixtureResolver(() => (++rebindCalls % 2 === 1 ? [PUBLIC_FIXTURE_IP] : ["127.0.0.1"]));

let world: UpstreamWorld;
let site: FixtureServer; // http on 127.0.0.2 ("public")
let tlsSite: FixtureServer; // https on 127.0.0.2
let secret: FixtureServer; // 127.0.0.1: must never be hit
let basic: FakeUpstream;
let enhanced: FakeUpstream;
let badAuth: string; // basic's URL with a wrong password
let gate: EgressGate;
let engine: Engine;
let ca: string;

beforeAll(async () => {
  world = await startUpstreamWorld(resolver);
  ({ site, tlsSite, secret, basic, enhanced, badAuth, gate, engine, ca } = world);
});

afterAll(() => world.close());

describe("the HTTP engine through an upstream proxy", () => {
  test("plain http: absolute form with Proxy-Authorization, to the chosen upstream only", async () => {
    const before = enhanced.hits;
    const page = await engine.fetch(req(`${site.url}/a`, basic.url));
    expect(page.statusCode).toBe(200);
    expect(text(page.body)).toBe("site via basic");
    expect(basic.requests.at(-1)).toEqual({
      method: "GET",
      target: `${site.url}/a`,
      authorization: `Basic ${Buffer.from("crawl:s3cr:et@x").toString("base64")}`,
    });
    expect(enhanced.hits).toBe(before);
    const other = await engine.fetch(req(`${site.url}/b`, enhanced.url));
    expect(text(other.body)).toBe("site via enhanced");
    expect(enhanced.requests.at(-1)).toEqual({ method: "GET", target: `${site.url}/b`, authorization: undefined });
    const direct = await engine.fetch(req(`${site.url}/c`));
    expect(text(direct.body)).toBe("site via direct");
  });

  test("https: CONNECT to the checked IP, TLS still verified against the URL's host name", async () => {
    const cert = ca;
    const viaGate = gate.proxyUrlFor(basic.url);
    const res = await fetch(`https://localhost:${tlsSite.port}/`, { proxy: viaGate, tls: { ca: cert } });
    expect(await res.text()).toBe("tls site");
    expect(basic.requests.at(-1)).toMatchObject({ method: "CONNECT", target: `${PUBLIC_FIXTURE_IP}:${tlsSite.port}` });
    // The certificate has no "wrong.test": verification is the client's, end to end, against its URL.
    const err = await fetch(`https://wrong.test:${tlsSite.port}/`, { proxy: viaGate, tls: { ca: cert } }).catch((e) => e);
    expect((err as { code?: string }).code).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
    // And the engine (skipTlsVerification for the self-signed fixture) gets the page through the tunnel.
    const page = await engine.fetch({ ...req(`https://localhost:${tlsSite.port}/`, enhanced.url), skipTlsVerification: true });
    expect(text(page.body)).toBe("tls site");
    expect(enhanced.requests.at(-1)).toMatchObject({ method: "CONNECT", target: `${PUBLIC_FIXTURE_IP}:${tlsSite.port}` });
  });

  test("a private destination is refused before anything reaches the upstream (zero hits)", async () => {
    const hits = basic.hits + enhanced.hits;
    for (const url of [
      `http://127.0.0.1:${secret.port}/`,
      `https://127.0.0.1:${secret.port}/`,
      `http://evil.test:${secret.port}/`,
      `https://mixed.test:${secret.port}/`,
      `http://[::1]:${secret.port}/`,
      "http://169.254.169.254/latest/meta-data/",
    ]) {
      for (const upstream of [basic.url, enhanced.url]) {
        await expect(engine.fetch(req(url, upstream))).rejects.toBeInstanceOf(EgressDeniedError);
      }
    }
    // The gate listeners themselves (a client skipping the engine's pre-check) refuse too.
    for (const upstream of [basic.url, enhanced.url]) {
      const res = await fetch(`http://127.0.0.1:${secret.port}/`, { proxy: gate.proxyUrlFor(upstream) });
      expect(res.status).toBe(403);
      const tunnel = await fetch(`https://evil.test:${secret.port}/`, { proxy: gate.proxyUrlFor(upstream) }).catch((e) => e);
      expect((tunnel as { code?: string }).code).toBe("ERR_PROXY_TUNNEL");
    }
    expect(basic.hits + enhanced.hits).toBe(hits);
    expect(secret.hits).toBe(0);
  });

  test("a rebinding name: the upstream is told the address that was checked, never the name", async () => {
    rebindCalls = 0;
    // Lookup 1 (engine pre-check) public, lookup 2 (the gate's own) loopback: refused at the gate, zero hits.
    const hits = basic.hits;
    await expect(engine.fetch({ ...req(`https://rebind.test:${tlsSite.port}/`, basic.url), skipTlsVerification: true })).rejects.toBeInstanceOf(
      EgressDeniedError,
    );
    expect(basic.hits).toBe(hits);
    // Straight to the gate (lookup 3: public): the upstream gets CONNECT 127.0.0.2:P, so its own DNS plays no part.
    const res = await fetch(`https://rebind.test:${tlsSite.port}/`, { proxy: gate.proxyUrlFor(basic.url), tls: { rejectUnauthorized: false } });
    expect(await res.text()).toBe("tls site");
    expect(basic.requests.at(-1)!.target).toBe(`${PUBLIC_FIXTURE_IP}:${tlsSite.port}`);
    expect(secret.hits).toBe(0);
  });

  test("wrong credentials (407) and an unreachable upstream are clear errors without the password", async () => {
    for (const url of [`${site.url}/auth`, `https://localhost:${tlsSite.port}/auth`]) {
      const err = await engine.fetch({ ...req(url, badAuth), skipTlsVerification: true }).catch((e) => e);
      expect(err).toBeInstanceOf(SiteError);
      expect((err as SiteError).message).toContain("407");
      expect((err as SiteError).message).toContain(`127.0.0.1:${basic.port}`);
      expect((err as SiteError).message).not.toContain("wrong");
    }
    const dead = startFakeUpstream("dead");
    dead.stop();
    const g = await createEgressGate({ allowPrivateNetwork: false, resolver, classify, upstreamProxies: [dead.url], connectTimeoutMs: 2000 });
    try {
      const e = createHttpEngine({ gate: g });
      for (const url of [`${site.url}/dead`, `https://localhost:${tlsSite.port}/dead`]) {
        const err = await e.fetch({ ...req(url, dead.url), skipTlsVerification: true }).catch((x) => x);
        expect(err).toBeInstanceOf(SiteError);
        expect((err as SiteError).message).toMatch(/Upstream proxy http:\/\/127\.0\.0\.1:\d+: could not connect/);
      }
    } finally {
      await g.close();
    }
  });

  test("an upstream that cannot reach the site (502) is a site error naming it", async () => {
    const before = basic.hits;
    const closed = startCountingServer(() => new Response("x"), { hostname: PUBLIC_FIXTURE_IP });
    const port = closed.port;
    await closed.stop();
    const err = await engine.fetch(req(`https://localhost:${port}/`, basic.url)).catch((e) => e);
    expect(err).toBeInstanceOf(SiteError);
    expect((err as SiteError).message).toContain("answered 502");
    expect(basic.hits).toBe(before + 1);
  });
});
