/**
 * Upstream proxy URLs and their configuration (CRAWLBOX_PROXY_BASIC / _ENHANCED / _COUNTRIES): credentials become
 * Basic auth and never appear in an error; every invalid setting is reported at boot; the upstream for an attempt
 * is the country's, then the mode's; and the egress gate opens one listener per configured upstream. The fake
 * upstreams and the gate come from upstream-proxy-helpers.ts; the engine through them is upstream-proxy.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../../src/config.ts";
import { createEgressGate, type EgressGate, parseUpstreamProxy } from "../../src/egress/index.ts";
import { upstreamProxyFor } from "../../src/engines/router.ts";
import type { FakeUpstream } from "../fixtures/upstream-proxy.ts";
import { fixtureResolver, startUpstreamWorld, type UpstreamWorld } from "./upstream-proxy-helpers.ts";

let world: UpstreamWorld;
let basic: FakeUpstream;
let enhanced: FakeUpstream;
let gate: EgressGate;

beforeAll(async () => {
  world = await startUpstreamWorld(fixtureResolver());
  ({ basic, enhanced, gate } = world);
});

afterAll(() => world.close());

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
