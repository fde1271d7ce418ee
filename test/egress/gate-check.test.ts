/**
 * SSRF integration tests, the gate's other faces: any HTTP client (webhooks, Chromium) can use its proxy, and is
 * refused there with the marker headers; check() explains refusals and tells a DNS failure from a denial; and with
 * allowPrivateNetwork=true private targets pass, still through the gate. Setup as in gate.test.ts (gate-helpers.ts):
 * 127.0.0.2 is declared public, the "secret" on 127.0.0.1 is reached only when private networks are allowed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine } from "../../src/engines/types.ts";
import { EgressDeniedError, SiteError } from "../../src/errors.ts";
import { type FixtureServer, startCountingServer } from "../fixtures/servers.ts";
import { expectDenied, fixtureResolver, type GateWorld, PUBLIC_FIXTURE_IP, req, startGateWorld } from "./gate-helpers.ts";

let world: GateWorld;
let secret: FixtureServer; // 127.0.0.1:P
let site: FixtureServer; // "public" fixture site on 127.0.0.2
let gate: EgressGate;
let engine: Engine;
const resolver = fixtureResolver();

beforeAll(async () => {
  world = await startGateWorld(resolver);
  ({ secret, site, gate, engine } = world);
});

afterAll(() => world.close());

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
