/**
 * Chromium's traffic goes through the egress gate (reliability.md B1). With private networks not allowed, a
 * page on a "public" fixture address (127.0.0.2, declared public through the gate's classifier hook) whose
 * script fetches a loopback "secret" server gets nothing, and the secret sees zero requests, whether the fetch
 * comes from the page's own script, from `executeJavascript`, or from a navigation.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AddressVerdict, classifyAddress } from "../../src/egress/index.ts";
import { startCountingServer, type FixtureServer } from "../fixtures/servers.ts";
import { startJsSite, type JsSite } from "../fixtures/js-pages.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { closeAndAssertNoChromium, scrape } from "./helpers.ts";

const PUBLIC_FIXTURE_IP = "127.0.0.2";
const classify = (a: string): AddressVerdict => (a === PUBLIC_FIXTURE_IP ? { public: true } : classifyAddress(a));

let secret: FixtureServer;
let site: JsSite;
let h: Harness;

beforeAll(async () => {
  secret = startCountingServer(() => new Response("SECRET-DATA", { headers: { "access-control-allow-origin": "*" } }));
  site = startJsSite({ hostname: PUBLIC_FIXTURE_IP, secretUrl: `http://127.0.0.1:${secret.port}/` });
  h = await createHarness({ allowPrivateNetwork: false }, { classify, resolver: async (host) => (host === "localhost" ? ["127.0.0.1"] : [PUBLIC_FIXTURE_IP]) });
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  site.stop();
  await secret.stop();
});

describe("browser egress through the gate", () => {
  test("a page script's fetch() to a loopback secret gets nothing", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/secret-fetch`, waitFor: 200, onlyMainContent: false });
    expect(status).toBe(200);
    expect(body.data.metadata.engine).toBe("browser");
    expect(body.data.markdown).toContain("FAILED");
    expect(body.data.markdown).not.toContain("SECRET-DATA");
    expect(secret.hits).toBe(0);
  });

  test("executeJavascript fetch() to loopback (by IP and by name) gets nothing", async () => {
    const script = (u: string) => `fetch(${JSON.stringify(u)}).then(r => r.text()).catch(() => "FAILED")`;
    const { body } = await scrape(h, {
      url: `${site.url}/static`,
      actions: [
        { type: "executeJavascript", script: script(`http://127.0.0.1:${secret.port}/`) },
        { type: "executeJavascript", script: script(`http://localhost:${secret.port}/`) },
      ],
    });
    const values = body.data.actions.javascriptReturns.map((r: { value: string }) => r.value);
    for (const v of values) expect(v).not.toContain("SECRET-DATA");
    expect(secret.hits).toBe(0);
  });

  test("navigating the browser to the secret is refused with EGRESS_DENIED", async () => {
    const { status, body } = await scrape(h, { url: `http://127.0.0.1:${secret.port}/`, actions: [{ type: "scrape" }] });
    expect(status).toBe(403);
    expect(body.code).toBe("EGRESS_DENIED");
    const click = await scrape(h, {
      url: `${site.url}/static`,
      actions: [{ type: "executeJavascript", script: `location.href = "http://127.0.0.1:${secret.port}/"; 1` }, { type: "wait", milliseconds: 300 }, { type: "scrape" }],
    });
    expect(JSON.stringify(click.body)).not.toContain("SECRET-DATA");
    expect(secret.hits).toBe(0);
  });
  test("WebRTC cannot reach a loopback STUN server (no UDP outside the proxy)", async () => {
    let packets = 0;
    const udp = await Bun.udpSocket({ hostname: "127.0.0.1", port: 0, socket: { data() { packets++; } } });
    try {
      // A data channel's ICE gathering sends STUN binding requests to the configured server.
      const script = `(async () => { const pc = new RTCPeerConnection({ iceServers: [{ urls: "stun:127.0.0.1:${udp.port}" }] });
        pc.createDataChannel("x"); await pc.setLocalDescription(await pc.createOffer());
        await new Promise((r) => setTimeout(r, 1500)); return pc.iceGatheringState; })()`;
      const { status, body } = await scrape(h, { url: `${site.url}/static`, actions: [{ type: "executeJavascript", script }] });
      expect(status).toBe(200);
      expect(body.data.actions.javascriptReturns[0].value).toBeString(); // the script ran
      await Bun.sleep(300);
      expect(packets).toBe(0);
    } finally {
      udp.close();
    }
  });
});
