/**
 * Client headers (Cookie, Authorization) follow the usual http→https upgrade redirect of the same host, and never a
 * downgrade, another host or another port. `{"url":"example.com"}` becomes `http://example.com`, so without this a
 * Cookie was lost on nearly every site. End to end on loopback ports 80 and 443 (skipped where they cannot be bound).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import { headersAllowed } from "../../src/engines/http/redirects.ts";
import { buildHeaders } from "../../src/engines/http/request-headers.ts";
import type { Engine, FetchRequest } from "../../src/engines/types.ts";
import { fixtureTls, startCountingServer, type FixtureServer } from "../fixtures/servers.ts";

const HOST = "127.0.0.77";
const OTHER_HOST = "127.0.0.78";
const SECRETS = { Cookie: "sid=1", Authorization: "Bearer t0k", "X-Api-Key": "k" };
const echo = (req: Request) => Response.json(Object.fromEntries(req.headers));
const moved = (to: string) => new Response(null, { status: 301, headers: { location: to } });

describe("headersAllowed", () => {
  test.each([
    ["https://a.test/x", "http://a.test/", true], // the upgrade
    ["https://a.test:443/x", "http://a.test:80/", true], // default ports written out
    ["http://a.test/y", "http://a.test/", true],
    ["http://a.test/", "https://a.test/", false], // a downgrade
    ["https://b.test/", "http://a.test/", false],
    ["https://www.a.test/", "http://a.test/", false],
    ["https://a.test:8443/", "http://a.test:8080/", false], // explicit ports: no known counterpart
    ["https://a.test:8443/", "http://a.test/", false],
    ["https://a.test/", "http://a.test:8080/", false],
  ])("%s with headers for %s → %p", (url, headersUrl, allowed) => {
    expect(headersAllowed(url, headersUrl)).toBe(allowed);
    const sent = buildHeaders({ url: headersUrl, headers: SECRETS, timeoutMs: 1, maxBodyBytes: 1 }, url, "UA");
    expect(sent.get("cookie")).toBe(allowed ? "sid=1" : null);
    expect(sent.get("authorization")).toBe(allowed ? "Bearer t0k" : null);
  });
});

const servers: FixtureServer[] = [];
let bound = false;
let gate: EgressGate;
let engine: Engine;

beforeAll(async () => {
  const tls = await fixtureTls();
  try {
    servers.push(
      startCountingServer(
        (req) => {
          const path = new URL(req.url).pathname;
          if (path === "/") return moved(`https://${HOST}/echo`);
          if (path === "/other-host") return moved(`https://${OTHER_HOST}/echo`);
          if (path === "/other-port") return moved(`${servers[3]!.url}/echo`);
          return echo(req);
        },
        { hostname: HOST, port: 80 },
      ),
      startCountingServer((req) => (new URL(req.url).pathname === "/down" ? moved(`http://${HOST}/echo`) : echo(req)), { hostname: HOST, port: 443, tls }),
      startCountingServer(echo, { hostname: OTHER_HOST, port: 443, tls }),
      startCountingServer(echo, { hostname: HOST, tls }),
    );
    bound = true;
  } catch {
    // Ports below 1024 need privileges: only the unit tests above run.
  }
  gate = await createEgressGate({ allowPrivateNetwork: true });
  engine = createHttpEngine({ gate });
});

afterAll(async () => {
  await gate.close();
  for (const s of servers) await s.stop();
});

const fetchEcho = async (url: string) => {
  const req: FetchRequest = { url, headers: SECRETS, timeoutMs: 5000, maxBodyBytes: 1 << 20, skipTlsVerification: true };
  return JSON.parse((await engine.fetch(req)).text!) as Record<string, string | undefined>;
};

describe("through redirects (HTTP engine)", () => {
  test.skipIf(!process.getuid || process.getuid() !== 0)("http://host → https://host keeps Cookie and Authorization", async () => {
    expect(bound).toBe(true);
    const seen = await fetchEcho(`http://${HOST}/`);
    expect(seen).toMatchObject({ cookie: "sid=1", authorization: "Bearer t0k", "x-api-key": "k" });
  });

  test.skipIf(!process.getuid || process.getuid() !== 0)("a downgrade, another host or another port gets none of them", async () => {
    for (const url of [`https://${HOST}/down`, `http://${HOST}/other-host`, `http://${HOST}/other-port`]) {
      const seen = await fetchEcho(url);
      expect({ url, cookie: seen.cookie, authorization: seen.authorization, key: seen["x-api-key"] }).toEqual({ url, cookie: undefined, authorization: undefined, key: undefined });
    }
  });
});
