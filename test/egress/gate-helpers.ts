/**
 * What the SSRF gate tests (gate.test.ts, gate-check.test.ts) stand on: allowPrivateNetwork=false, a "secret"
 * server on loopback that must never be hit, and a fixture site that counts as public.
 *
 * To exercise redirects and rebinding honestly without the internet, one loopback address, 127.0.0.2, is declared
 * public through the gate's injected classifier; "public.test" resolves to it. Everything else keeps the real
 * classifier, so a redirect from the "public" site to 127.0.0.1 is a real refusal, not a test artefact. The
 * secret's twin listens on 127.0.0.2 with the SAME port, so a rebinding name can point at either.
 */
import { expect } from "bun:test";
import { type AddressVerdict, classifyAddress, createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine } from "../../src/engines/types.ts";
import { EgressDeniedError } from "../../src/errors.ts";
import { type FixtureServer, startCountingServer, startHttpFixtures, startTlsServer } from "../fixtures/servers.ts";

export const PUBLIC_FIXTURE_IP = "127.0.0.2";
/** 127.0.0.3 is "public" too but nothing listens there: a dead address for the pinned engine to skip. */
export const DEAD_PUBLIC_IP = "127.0.0.3";
export const classify = (a: string): AddressVerdict => (a === PUBLIC_FIXTURE_IP || a === DEAD_PUBLIC_IP ? { public: true } : classifyAddress(a));

/** The test names' resolver; "rebind.test" answers whatever `rebind` returns on each lookup (by default, the public address). */
export function fixtureResolver(rebind: () => string[] = () => [PUBLIC_FIXTURE_IP]) {
  const names: Record<string, () => string[]> = {
    "public.test": () => [PUBLIC_FIXTURE_IP],
    "evil.test": () => ["127.0.0.1"],
    "metadata.test": () => ["169.254.169.254"],
    "mixed.test": () => [PUBLIC_FIXTURE_IP, "127.0.0.1"],
    "six.test": () => ["::1"],
    "half-dead.test": () => [DEAD_PUBLIC_IP, PUBLIC_FIXTURE_IP],
    "rebind.test": rebind,
  };
  return async (host: string) => {
    const answer = names[host];
    if (!answer) throw new Error(`ENOTFOUND ${host}`);
    return answer();
  };
}

/** The servers, the gate (allowPrivateNetwork=false) and an HTTP engine through it. */
export interface GateWorld {
  secret: FixtureServer; // 127.0.0.1:P
  twin: FixtureServer; // 127.0.0.2:P (same port), "public"
  secret6: FixtureServer; // [::1]
  secretTls: FixtureServer; // https on 127.0.0.1
  site: FixtureServer; // "public" fixture site on 127.0.0.2
  gate: EgressGate;
  engine: Engine;
  close(): Promise<void>;
}

export async function startGateWorld(resolver: (host: string) => Promise<string[]>): Promise<GateWorld> {
  const secret = startCountingServer(() => new Response("SECRET"));
  const twin = startCountingServer(() => new Response("twin"), { hostname: PUBLIC_FIXTURE_IP, port: secret.port });
  const secret6 = startCountingServer(() => new Response("SECRET6"), { hostname: "::1" });
  const secretTls = await startTlsServer(() => new Response("SECRET-TLS"));
  const site = startHttpFixtures({ hostname: PUBLIC_FIXTURE_IP });
  const gate = await createEgressGate({ allowPrivateNetwork: false, resolver, classify });
  const engine = createHttpEngine({ gate });
  return {
    secret,
    twin,
    secret6,
    secretTls,
    site,
    gate,
    engine,
    async close() {
      await gate.close();
      for (const s of [secret, twin, secret6, secretTls, site]) await s.stop();
    },
  };
}

export const req = (url: string) => ({ url, timeoutMs: 5000, maxBodyBytes: 1 << 20 });

export async function expectDenied(p: Promise<unknown>, messagePart?: string | RegExp): Promise<EgressDeniedError> {
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
