/**
 * What the upstream-proxy tests (upstream-proxy.test.ts, -config, -router) stand on: as in gate.test.ts,
 * 127.0.0.2 is declared public through the classifier hook, with a plain and a TLS site on it and a "secret" on
 * 127.0.0.1 that must never be hit; two fake upstreams listen on 127.0.0.1, which is fine: the upstream's own
 * address is configuration, not a destination. "basic" wants credentials; `badAuth` is its URL with a wrong password.
 */
import { type AddressVerdict, classifyAddress, createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine } from "../../src/engines/types.ts";
import { type FixtureServer, fixtureTls, startCountingServer, startTlsServer } from "../fixtures/servers.ts";
import { type FakeUpstream, startFakeUpstream } from "../fixtures/upstream-proxy.ts";

export const PUBLIC_FIXTURE_IP = "127.0.0.2";
export const classify = (a: string): AddressVerdict => (a === PUBLIC_FIXTURE_IP ? { public: true } : classifyAddress(a));

/** The test names' resolver; "rebind.test" answers whatever `rebind` returns on each lookup (by default, the public address). */
export function fixtureResolver(rebind: () => string[] = () => [PUBLIC_FIXTURE_IP]) {
  const names: Record<string, () => string[]> = {
    localhost: () => [PUBLIC_FIXTURE_IP], // the fixture certificate's name, "public" here
    "wrong.test": () => [PUBLIC_FIXTURE_IP], // not in the certificate
    "evil.test": () => ["127.0.0.1"],
    "mixed.test": () => [PUBLIC_FIXTURE_IP, "127.0.0.1"],
    "rebind.test": rebind,
  };
  return async (host: string) => {
    const answer = names[host];
    if (!answer) throw new Error(`ENOTFOUND ${host}`);
    return answer();
  };
}

/** The sites, the fake upstreams, a gate chained to them (allowPrivateNetwork=false) and an HTTP engine through it. */
export interface UpstreamWorld {
  site: FixtureServer; // http on 127.0.0.2 ("public")
  tlsSite: FixtureServer; // https on 127.0.0.2
  secret: FixtureServer; // 127.0.0.1: must never be hit
  basic: FakeUpstream;
  enhanced: FakeUpstream;
  badAuth: string; // basic's URL with a wrong password
  gate: EgressGate;
  engine: Engine;
  ca: string;
  close(): Promise<void>;
}

export async function startUpstreamWorld(resolver: (host: string) => Promise<string[]>): Promise<UpstreamWorld> {
  const site = startCountingServer((r) => new Response(`site via ${r.headers.get("x-via-proxy") ?? "direct"}`), { hostname: PUBLIC_FIXTURE_IP });
  const tlsSite = await startTlsServer(() => new Response("tls site"), PUBLIC_FIXTURE_IP);
  const secret = startCountingServer(() => new Response("SECRET"));
  const ca = (await fixtureTls()).cert;
  const basic = startFakeUpstream("basic", { user: "crawl", pass: "s3cr:et@x" });
  const enhanced = startFakeUpstream("enhanced");
  const badAuth = basic.url.replace(encodeURIComponent("s3cr:et@x"), "wrong");
  const gate = await createEgressGate({ allowPrivateNetwork: false, resolver, classify, upstreamProxies: [basic.url, enhanced.url, badAuth] });
  const engine = createHttpEngine({ gate });
  return {
    site,
    tlsSite,
    secret,
    basic,
    enhanced,
    badAuth,
    gate,
    engine,
    ca,
    async close() {
      await gate.close();
      basic.stop();
      enhanced.stop();
      for (const s of [site, tlsSite, secret]) await s.stop();
    },
  };
}

export const req = (url: string, upstreamProxy?: string) => ({ url, timeoutMs: 5000, maxBodyBytes: 1 << 20, ...(upstreamProxy ? { upstreamProxy } : {}) });
export const text = (body: Uint8Array) => new TextDecoder().decode(body);
