/**
 * Chaining the egress gate to upstream proxies (CRAWLBOX_PROXY_BASIC / _ENHANCED / _COUNTRIES).
 *
 * The destination is checked BEFORE anything reaches the upstream (reliability.md B1, "Open gap: upstream
 * proxy"): a private target is refused with zero hits on the fake upstream. https goes as `CONNECT <checked IP>`
 * with TLS still verified against the URL's name; plain http in absolute form with Proxy-Authorization.
 * As in gate.test.ts, 127.0.0.2 is declared public through the classifier hook; the fake upstreams listen on
 * 127.0.0.1, which is fine: the upstream's own address is configuration, not a destination.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { type AddressVerdict, classifyAddress, createEgressGate, type EgressGate, parseUpstreamProxy } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import { upstreamProxyFor } from "../../src/engines/router.ts";
import type { Engine } from "../../src/engines/types.ts";
import { EgressDeniedError, SiteError } from "../../src/errors.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { type FixtureServer, fixtureTls, startCountingServer, startTlsServer } from "../fixtures/servers.ts";
import { type FakeUpstream, startFakeUpstream } from "../fixtures/upstream-proxy.ts";

const PUBLIC_FIXTURE_IP = "127.0.0.2";
const classify = (a: string): AddressVerdict => (a === PUBLIC_FIXTURE_IP ? { public: true } : classifyAddress(a));
let rebindCalls = 0;
const names: Record<string, () => string[]> = {
  localhost: () => [PUBLIC_FIXTURE_IP], // the fixture certificate's name, "public" here
  "wrong.test": () => [PUBLIC_FIXTURE_IP], // not in the certificate
  "evil.test": () => ["127.0.0.1"],
  "mixed.test": () => [PUBLIC_FIXTURE_IP, "127.0.0.1"],
  "rebind.test": () => (++rebindCalls % 2 === 1 ? [PUBLIC_FIXTURE_IP] : ["127.0.0.1"]),
};
const resolver = async (host: string) => {
  const answer = names[host];
  if (!answer) throw new Error(`ENOTFOUND ${host}`);
  return answer();
};

let site: FixtureServer; // http on 127.0.0.2 ("public")
let tlsSite: FixtureServer; // https on 127.0.0.2
let secret: FixtureServer; // 127.0.0.1: must never be hit
let basic: FakeUpstream;
let enhanced: FakeUpstream;
let badAuth: string; // basic's URL with a wrong password
let gate: EgressGate;
let engine: Engine;
let ca: string;

const req = (url: string, upstreamProxy?: string) => ({ url, timeoutMs: 5000, maxBodyBytes: 1 << 20, ...(upstreamProxy ? { upstreamProxy } : {}) });
const text = (body: Uint8Array) => new TextDecoder().decode(body);

beforeAll(async () => {
  site = startCountingServer((r) => new Response(`site via ${r.headers.get("x-via-proxy") ?? "direct"}`), { hostname: PUBLIC_FIXTURE_IP });
  tlsSite = await startTlsServer(() => new Response("tls site"), PUBLIC_FIXTURE_IP);
  secret = startCountingServer(() => new Response("SECRET"));
  ca = (await fixtureTls()).cert;
  basic = startFakeUpstream("basic", { user: "crawl", pass: "s3cr:et@x" });
  enhanced = startFakeUpstream("enhanced");
  badAuth = basic.url.replace(encodeURIComponent("s3cr:et@x"), "wrong");
  gate = await createEgressGate({ allowPrivateNetwork: false, resolver, classify, upstreamProxies: [basic.url, enhanced.url, badAuth] });
  engine = createHttpEngine({ gate });
});

afterAll(async () => {
  await gate.close();
  basic.stop();
  enhanced.stop();
  for (const s of [site, tlsSite, secret]) await s.stop();
});

describe("upstream proxy URLs and configuration", () => {
  test("parseUpstreamProxy: credentials become Basic auth, port defaults to 80, other forms are refused", () => {
    const p = parseUpstreamProxy("http://us%40er:p%3Ass@proxy.lan:3128");
    expect(p).toMatchObject({ host: "proxy.lan", port: 3128, label: "http://proxy.lan:3128" });
    expect(Buffer.from(p.authorization!.slice(6), "base64").toString()).toBe("us@er:p:ss");
    expect(parseUpstreamProxy("http://10.0.0.5").port).toBe(80);
    const six = parseUpstreamProxy("http://[fd00::1]:8080");
    expect(six).toMatchObject({ host: "fd00::1", port: 8080, label: "http://[fd00::1]:8080" });
    expect(six.authorization).toBeUndefined();
    for (const bad of ["socks5://u:hunter2@h:1080", "https://u:hunter2@h:443", "http://u:hunter2@h:1/path", "not a url hunter2"]) {
      expect(() => parseUpstreamProxy(bad)).toThrow(TypeError);
      try {
        parseUpstreamProxy(bad);
      } catch (err) {
        if (bad.includes("@")) expect((err as Error).message).not.toContain("hunter2");
      }
    }
  });

  test("config reads CRAWLBOX_PROXY_BASIC, _ENHANCED and _COUNTRIES", () => {
    const c = loadConfig({
      CRAWLBOX_PROXY_BASIC: "http://u:p@basic.lan:3128",
      CRAWLBOX_PROXY_ENHANCED: "http://enhanced.lan:8080",
      CRAWLBOX_PROXY_COUNTRIES: " de=http://u:p@de.lan:3128 , jp=http://jp.lan:3128,",
    });
    expect(c.proxyBasic).toBe("http://u:p@basic.lan:3128");
    expect(c.proxyEnhanced).toBe("http://enhanced.lan:8080");
    expect(c.proxyCountries).toEqual({ DE: "http://u:p@de.lan:3128", JP: "http://jp.lan:3128" });
    expect(loadConfig({})).toMatchObject({ proxyBasic: "", proxyEnhanced: "", proxyCountries: {} });
  });

  test("invalid proxy settings are all reported at boot, without the password", () => {
    try {
      loadConfig({
        CRAWLBOX_PROXY_BASIC: "socks5://u:hunter2@h:1080",
        CRAWLBOX_PROXY_ENHANCED: "http://u:hunter2@h:1/x",
        CRAWLBOX_PROXY_COUNTRIES: "germany=http://h:1,http://u:hunter2@h:2,de=ftp://h,fr=http://a:1,fr=http://b:1",
      });
      throw new Error("expected ConfigError");
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems;
      const all = problems.join("\n");
      expect(all).toContain("CRAWLBOX_PROXY_BASIC");
      expect(all).toContain("CRAWLBOX_PROXY_ENHANCED");
      expect(all).toContain("CRAWLBOX_PROXY_COUNTRIES entry 1");
      expect(all).toContain("CRAWLBOX_PROXY_COUNTRIES entry 2");
      expect(all).toContain("CRAWLBOX_PROXY_COUNTRIES (DE)");
      expect(all).toContain("names FR twice");
      expect(all).not.toContain("hunter2");
    }
  });

  test("the upstream for an attempt: country first, then the mode's, enhanced falling back to basic", () => {
    const all = { basic: "B", enhanced: "E", byCountry: { DE: "D" } };
    expect(upstreamProxyFor(all, "basic", undefined)).toBe("B");
    expect(upstreamProxyFor(all, "enhanced", undefined)).toBe("E");
    expect(upstreamProxyFor(all, "basic", "de")).toBe("D");
    expect(upstreamProxyFor(all, "enhanced", "DE")).toBe("D");
    expect(upstreamProxyFor(all, "enhanced", "fr")).toBe("E");
    expect(upstreamProxyFor({ basic: "B" }, "enhanced", undefined)).toBe("B");
    expect(upstreamProxyFor({ byCountry: { US: "U" } }, "basic", "us-generic")).toBe("U");
    expect(upstreamProxyFor({ byCountry: { US: "U" } }, "basic", undefined)).toBeUndefined();
    expect(upstreamProxyFor(undefined, "enhanced", "de")).toBeUndefined();
  });

  test("the gate: one listener per upstream; unknown upstreams and bad URLs are refused", async () => {
    expect(gate.proxyUrlFor()).toBe(gate.proxyUrl);
    expect(gate.proxyUrlFor("")).toBe(gate.proxyUrl);
    const urls = new Set([gate.proxyUrl, gate.proxyUrlFor(basic.url), gate.proxyUrlFor(enhanced.url)]);
    expect(urls.size).toBe(3);
    expect(() => gate.proxyUrlFor("http://u:hunter2@other:1")).toThrow(/not configured/);
    expect(() => gate.proxyUrlFor("http://u:hunter2@other:1")).not.toThrow(/hunter2/);
    await expect(createEgressGate({ allowPrivateNetwork: false, upstreamProxies: ["socks5://u:hunter2@h:1"] })).rejects.toThrow(TypeError);
  });
});

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

describe("the HTTP-only router picks the upstream per request", () => {
  let h: Harness;
  let de: FakeUpstream;
  beforeAll(async () => {
    de = startFakeUpstream("de");
    h = await createHarness(
      { allowPrivateNetwork: false, browserEnabled: false, proxyBasic: basic.url, proxyEnhanced: enhanced.url, proxyCountries: { DE: de.url } },
      { resolver, classify },
    );
  });
  afterAll(async () => {
    await h.close();
    de.stop();
  });

  async function scrape(body: Record<string, unknown>) {
    const res = await h.request("/v2/scrape", { method: "POST", json: { formats: ["rawHtml"], maxAge: 0, ...body } });
    return { status: res.status, body: (await res.json()) as any };
  }

  test("basic mode through the basic upstream, location.country through the country's", async () => {
    const a = await scrape({ url: `${site.url}/router-basic` });
    expect(a.status).toBe(200);
    expect(a.body.data.rawHtml).toBe("site via basic");
    expect(a.body.data.metadata.proxyUsed).toBe("basic");
    const b = await scrape({ url: `${site.url}/router-de`, location: { country: "de" } });
    expect(b.status).toBe(200);
    expect(b.body.data.rawHtml).toBe("site via de");
  });

  test("robots.txt, sitemaps and the map's own fetches take the basic upstream too", async () => {
    const seen = basic.requests.length;
    const res = await h.request("/v2/map", { method: "POST", json: { url: `${site.url}/map-start` } });
    expect(res.status).toBe(200);
    const targets = basic.requests.slice(seen).map((r) => r.target);
    expect(targets).toContain(`${site.url}/robots.txt`);
    expect(targets.some((t) => t.startsWith(`${site.url}/sitemap`))).toBe(true);
    expect(targets).toContain(`${site.url}/map-start`);
  });

  test("a private destination with upstreams configured: EGRESS_DENIED, zero hits on every upstream", async () => {
    const hits = basic.hits + enhanced.hits + de.hits;
    const res = await scrape({ url: `http://127.0.0.1:${secret.port}/` });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("EGRESS_DENIED");
    const loc = await scrape({ url: `http://evil.test:${secret.port}/`, location: { country: "DE" } });
    expect(loc.body.code).toBe("EGRESS_DENIED");
    expect(basic.hits + enhanced.hits + de.hits).toBe(hits);
    expect(secret.hits).toBe(0);
  });
});
