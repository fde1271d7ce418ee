/**
 * HTTP engine redirects (chains, relative Locations, 303/308, the 20-hop limit, loops, headers and cookies kept to
 * their origin) and charset decoding, through a real egress gate with allowPrivateNetwork=true, against local
 * fixtures. The rest of the engine is in http.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine, FetchRequest } from "../../src/engines/types.ts";
import { CHARSET_SAMPLES, type FixtureServer, startCountingServer, startHttpFixtures } from "../fixtures/servers.ts";
import { engineRequest, failure } from "../helpers/engine-requests.ts";

let site: FixtureServer;
let gate: EgressGate;
let engine: Engine;

const req = (path: string, extra: Partial<FetchRequest> = {}): FetchRequest => engineRequest(site.url, path, extra);

beforeAll(async () => {
  site = startHttpFixtures();
  gate = await createEgressGate({ allowPrivateNetwork: true });
  engine = createHttpEngine({ gate });
});

afterAll(async () => {
  await gate.close();
  await site.stop();
});

describe("redirects", () => {
  test("a chain of 5 is followed to the end", async () => {
    const page = await engine.fetch(req("/chain/5"));
    expect(page.finalUrl).toBe(`${site.url}/chain/0`);
    expect(page.requestedUrl).toBe(`${site.url}/chain/5`);
    expect(page.text).toBe("end of chain");
  });

  test("relative Location, 303 and 308", async () => {
    expect((await engine.fetch(req("/deep/relative"))).finalUrl).toBe(`${site.url}/ok?from=relative`);
    expect((await engine.fetch(req("/see-other"))).finalUrl).toBe(`${site.url}/ok?from=303`);
    expect((await engine.fetch(req("/perm"))).finalUrl).toBe(`${site.url}/ok?from=308`);
  });

  test("20 redirects are fine, 21 are too many", async () => {
    expect((await engine.fetch(req("/chain/20"))).statusCode).toBe(200);
    const err = await failure(engine.fetch(req("/chain/21")));
    expect(err.code).toBe("SCRAPE_SITE_ERROR");
    expect(err.message).toContain("Too many redirects");
  });

  test("a loop fails at once", async () => {
    const before = site.hits;
    const err = await failure(engine.fetch(req("/loop/a")));
    expect(err.message).toContain("Redirect loop");
    expect(site.hits - before).toBe(2);
  });

  test("client headers and cookies are not sent to another origin", async () => {
    const other = startCountingServer((r) => Response.json(Object.fromEntries(r.headers)), { hostname: "127.0.0.2" });
    try {
      const to = encodeURIComponent(`${other.url}/landing`);
      const page = await engine.fetch(
        req(`/redirect?to=${to}`, { headers: { Authorization: "Bearer s3cret", Cookie: "sid=1", "X-Api-Key": "k", "User-Agent": "MyBot/1" } }),
      );
      expect(site.lastHeaders?.get("authorization")).toBe("Bearer s3cret");
      const seen = JSON.parse(page.text!);
      expect(seen.authorization).toBeUndefined();
      expect(seen.cookie).toBeUndefined();
      expect(seen["x-api-key"]).toBeUndefined();
      expect(seen["user-agent"]).toBe("MyBot/1");
    } finally {
      await other.stop();
    }
  });
});

describe("charsets", () => {
  for (const [name, sample] of Object.entries(CHARSET_SAMPLES)) {
    test.each(["header", "meta"])(`${name} with charset in the %s`, async (mode) => {
      const page = await engine.fetch(req(`/charset/${name}?mode=${mode}`));
      expect(page.charset).toBe(name);
      expect(page.text).toContain(sample.text);
    });
  }

  test("unlabelled legacy bytes fall back to windows-1252, not mojibake-free but lossless", async () => {
    const page = await engine.fetch(req("/charset/windows-1251?mode=none"));
    expect(page.charset).toBe("windows-1252");
    expect(page.text).toContain("Ïðèâåò");
  });
});
