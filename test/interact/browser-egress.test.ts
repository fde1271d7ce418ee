/**
 * `/v2/browser` (src/server/routes/browser.ts) with real Chromium and private networks not allowed: agent-browser's
 * `open` of a private address is refused at the egress gate, and neither a click on the public page's link to it nor
 * the page's own fetch() reaches it (zero hits on the "secret" server). As in test/egress, 127.0.0.2 is declared
 * public through the classifier hook. (The sessions themselves: browser.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AddressVerdict, classifyAddress } from "../../src/egress/index.ts";
import { closeAndAssertNoChromium } from "../browser/helpers.ts";
import { startCountingServer, type FixtureServer } from "../fixtures/servers.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const html = (body: string, headers: Record<string, string> = {}) => new Response(body, { headers: { "content-type": "text/html", ...headers } });

describe("browser sessions behind the egress gate", () => {
  const PUBLIC_FIXTURE_IP = "127.0.0.2";
  const classify = (a: string): AddressVerdict => (a === PUBLIC_FIXTURE_IP ? { public: true } : classifyAddress(a));
  let secret: FixtureServer;
  let pub: ReturnType<typeof Bun.serve>;
  let g: Harness;

  beforeAll(async () => {
    secret = startCountingServer(() => new Response("SECRET-DATA", { headers: { "access-control-allow-origin": "*" } }));
    pub = Bun.serve({ hostname: PUBLIC_FIXTURE_IP, port: 0, fetch: () => html(`<html><head><title>Public</title></head><body><a href="http://127.0.0.1:${secret.port}/">secret</a></body></html>`) });
    g = await createHarness({ allowPrivateNetwork: false, browserConcurrency: 2 }, { classify });
  });
  afterAll(async () => {
    await closeAndAssertNoChromium(g);
    pub.stop(true);
    await secret.stop();
  });

  test("open refuses a private address, and neither a click nor the page's fetch() reaches it", async () => {
    const { id } = (await (await g.request("/v2/browser", { method: "POST", json: {} })).json()) as any;
    const res = await g.request(`/v2/browser/${id}/execute`, {
      method: "POST",
      json: {
        code: [
          `agent-browser open http://127.0.0.1:${secret.port}/`,
          `agent-browser open http://${PUBLIC_FIXTURE_IP}:${pub.port}/`,
          "agent-browser click 'a'",
          "agent-browser get text body",
          `agent-browser eval 'fetch("http://127.0.0.1:${secret.port}/").then(r => r.text()).catch(() => "FAILED")'`,
        ].join("\n"),
        language: "bash",
      },
    });
    const out = (await res.json()) as any;
    expect(out.stderr.split("\n")[0]).toMatch(/^✗ .*(private|not allowed|refused)/i);
    expect(out.stdout).toContain("✓ Public");
    expect(out.stdout).not.toContain("SECRET-DATA");
    // The click and the fetch() got the gate's refusal instead of the page.
    expect(out.stdout.trim().split("\n").slice(-2).map((l: string) => JSON.parse(l).code)).toEqual(["EGRESS_DENIED", "EGRESS_DENIED"]);
    expect(secret.hits).toBe(0);
  }, 30_000);
});
