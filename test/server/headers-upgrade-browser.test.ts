/**
 * The browser engine adds the client's headers to the scraped origin's requests and to its https upgrade (the
 * `http://host` → `https://host` redirect), as the HTTP engine does; never to another host. Real Chromium, loopback
 * ports 80 and 443 (skipped unless root, which binding them needs).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fixtureTls, startCountingServer, type FixtureServer } from "../fixtures/servers.ts";
import { browserHarness, closeAndAssertNoChromium, scrape } from "../browser/helpers.ts";
import type { Harness } from "../helpers/harness.ts";

const HOST = "127.0.0.77";
const OTHER_HOST = "127.0.0.78";
const root = process.getuid?.() === 0;
const page = (text: string) => new Response(`<html><body><main><h1>${text}</h1><p>${"Some text. ".repeat(30)}</p></main></body></html>`, { headers: { "content-type": "text/html" } });
const moved = (to: string) => new Response(null, { status: 301, headers: { location: to } });

const servers: FixtureServer[] = [];
let h: Harness | undefined;

beforeAll(async () => {
  if (!root) return;
  const tls = await fixtureTls();
  servers.push(
    startCountingServer((req) => moved(new URL(req.url).pathname === "/other" ? `https://${OTHER_HOST}/landing` : `https://${HOST}/landing`), { hostname: HOST, port: 80 }),
    startCountingServer(() => page("Upgraded"), { hostname: HOST, port: 443, tls }),
    startCountingServer(() => page("Elsewhere"), { hostname: OTHER_HOST, port: 443, tls }),
  );
  h = await browserHarness();
});
afterAll(async () => {
  if (h) await closeAndAssertNoChromium(h);
  for (const s of servers) await s.stop();
});

describe("client headers in the browser", () => {
  test.skipIf(!root)("follow http://host → https://host, and not a redirect to another host", async () => {
    const headers = { "X-Api-Key": "k", Authorization: "Bearer t0k" };
    const up = await scrape(h!, { url: `http://${HOST}/`, headers, formats: ["markdown", "screenshot"], skipTlsVerification: true, maxAge: 0 });
    expect(up.body.data.markdown).toContain("# Upgraded");
    expect(up.body.data.metadata.engine).toBe("browser");
    expect(servers[1]!.lastHeaders?.get("x-api-key")).toBe("k");
    expect(servers[1]!.lastHeaders?.get("authorization")).toBe("Bearer t0k");
    const other = await scrape(h!, { url: `http://${HOST}/other`, headers, formats: ["markdown", "screenshot"], skipTlsVerification: true, maxAge: 0 });
    expect(other.body.data.markdown).toContain("# Elsewhere");
    expect(servers[2]!.lastHeaders?.get("x-api-key")).toBeNull();
    expect(servers[2]!.lastHeaders?.get("authorization")).toBeNull();
  });
});
