/**
 * Upstream proxies end to end, with real Chromium: the engine router picks the upstream per attempt (basic,
 * enhanced, per country; `auto` switching from basic to enhanced), both engines reach it only through the egress
 * gate, and a private destination is refused before anything reaches an upstream. Fake upstreams on loopback
 * (test/fixtures/upstream-proxy.ts) tag forwarded requests with `X-Via-Proxy`, which the fixture site reads.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AddressVerdict, classifyAddress } from "../../src/egress/index.ts";
import { type FixtureServer, startCountingServer, startTlsServer } from "../fixtures/servers.ts";
import { type FakeUpstream, startFakeUpstream } from "../fixtures/upstream-proxy.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { closeAndAssertNoChromium, scrape } from "./helpers.ts";

const PUBLIC_FIXTURE_IP = "127.0.0.2";
const classify = (a: string): AddressVerdict => (a === PUBLIC_FIXTURE_IP ? { public: true } : classifyAddress(a));
const LOREM = "Tomatoes grow well indoors when they get eight hours of light and steady warmth. ".repeat(4);

let site: FixtureServer;
let tlsSite: FixtureServer;
let secret: FixtureServer;
let basic: FakeUpstream;
let enhanced: FakeUpstream;
let de: FakeUpstream;
let h: Harness;

const page = (body: string) => new Response(`<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`, { headers: { "content-type": "text/html" } });
const allHits = () => basic.hits + enhanced.hits + de.hits;

beforeAll(async () => {
  secret = startCountingServer(() => new Response("SECRET-DATA", { headers: { "access-control-allow-origin": "*" } }));
  site = startCountingServer(
    (req) => {
      const via = req.headers.get("x-via-proxy") ?? "direct";
      const p = new URL(req.url).pathname;
      if (p === "/guarded" && via !== "enhanced") {
        return new Response("<html><head><title>Access denied</title></head><body>Access denied</body></html>", { status: 403, headers: { "content-type": "text/html" } });
      }
      if (p === "/doc.pdf") return new Response(`%PDF-1.4 via ${via}\n%%EOF\n`, { headers: { "content-type": "application/pdf" } });
      if (p === "/fetch-secret") {
        return page(`<main><h1>via ${via}</h1><p id="out">pending</p><p>${LOREM}</p></main><script>
          fetch("http://127.0.0.1:${secret.port}/").then(r => r.text()).then(t => { out.textContent = "GOT:" + t; }, () => { out.textContent = "FAILED"; });</script>`);
      }
      return page(`<main><h1>via ${via}</h1><p>${LOREM}</p></main>`);
    },
    { hostname: PUBLIC_FIXTURE_IP },
  );
  tlsSite = await startTlsServer(() => page(`<main><h1>tls page</h1><p>${LOREM}</p></main>`), PUBLIC_FIXTURE_IP);
  basic = startFakeUpstream("basic", { user: "crawl", pass: "pw" });
  enhanced = startFakeUpstream("enhanced", { user: "stealth", pass: "pw2" });
  de = startFakeUpstream("de");
  h = await createHarness(
    { allowPrivateNetwork: false, proxyBasic: basic.url, proxyEnhanced: enhanced.url, proxyCountries: { DE: de.url } },
    { classify, resolver: async (host) => (host === "localhost" ? ["127.0.0.1"] : [PUBLIC_FIXTURE_IP]) },
  );
  if (!h.services.engines.pool) throw new Error("these tests need Chromium (apt-get install chromium)");
});

afterAll(async () => {
  await closeAndAssertNoChromium(h);
  for (const s of [site, tlsSite, secret]) await s.stop();
  for (const u of [basic, enhanced, de]) u.stop();
});

const targets = (u: FakeUpstream) => u.requests.map((r) => r.target);

describe("upstream proxies per request", () => {
  test("proxy: basic (HTTP engine) goes through the basic upstream", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/basic`, proxy: "basic", maxAge: 0 });
    expect(status).toBe(200);
    expect(body.data.metadata.engine).toBe("http");
    expect(body.data.metadata.proxyUsed).toBe("basic");
    expect(body.data.markdown).toContain("via basic");
    expect(targets(basic)).toContain(`${site.url}/basic`);
    expect(basic.requests.at(-1)!.authorization).toBe(`Basic ${btoa("crawl:pw")}`);
  });

  test("proxy: enhanced (Chromium) goes through the enhanced upstream", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/enhanced`, proxy: "enhanced", maxAge: 0 });
    expect(status).toBe(200);
    expect(body.data.metadata.engine).toBe("browser");
    expect(body.data.metadata.proxyUsed).toBe("stealth");
    expect(body.data.markdown).toContain("via enhanced");
    expect(targets(enhanced)).toContain(`${site.url}/enhanced`);
    expect(enhanced.requests.at(-1)!.authorization).toBe(`Basic ${btoa("stealth:pw2")}`);
    expect(targets(basic)).not.toContain(`${site.url}/enhanced`);
  });

  test("proxy: enhanced on a document: fetched over HTTP through the enhanced upstream, and reported as the enhanced mode", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/doc.pdf`, proxy: "enhanced", parsers: [], maxAge: 0 });
    expect(status).toBe(200);
    expect(body.data.metadata.engine).toBe("http");
    expect(Buffer.from(body.data.markdown, "base64").toString()).toContain("via enhanced");
    expect(body.data.metadata.proxyUsed).toBe("stealth");
    expect(body.data.metadata.creditsUsed).toBe(5);
  });

  test("location.country picks the country's upstream (Chromium)", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/country`, location: { country: "de" }, maxAge: 0 });
    expect(status).toBe(200);
    expect(body.data.metadata.engine).toBe("browser");
    expect(body.data.markdown).toContain("via de");
    expect(targets(de)).toContain(`${site.url}/country`);
    // A country without an upstream of its own uses the mode's.
    const fr = await scrape(h, { url: `${site.url}/country-fr`, location: { country: "FR" }, maxAge: 0 });
    expect(fr.body.data.markdown).toContain("via basic");
  });

  test("proxy: auto retries a blocked page as enhanced, switching upstream", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/guarded`, maxAge: 0 });
    expect(status).toBe(200);
    expect(body.data.metadata.proxyUsed).toBe("stealth");
    expect(body.data.metadata.engine).toBe("browser");
    expect(body.data.markdown).toContain("via enhanced");
    expect(targets(basic)).toContain(`${site.url}/guarded`);
    expect(targets(enhanced)).toContain(`${site.url}/guarded`);
  });

  test("Chromium https through the upstream: CONNECT to the checked address", async () => {
    const url = `https://tls.test:${tlsSite.port}/`;
    const { status, body } = await scrape(h, { url, proxy: "enhanced", skipTlsVerification: true, maxAge: 0 });
    expect(status).toBe(200);
    expect(body.data.markdown).toContain("tls page");
    expect(targets(enhanced)).toContain(`${PUBLIC_FIXTURE_IP}:${tlsSite.port}`);
    expect(targets(enhanced).some((t) => t.includes("tls.test"))).toBe(false);
  });
});

describe("the destination is checked before chaining", () => {
  test("a private destination is refused with zero hits on every upstream, in both engines", async () => {
    const before = allHits();
    for (const body of [
      { url: `http://127.0.0.1:${secret.port}/` },
      { url: `http://localhost:${secret.port}/`, proxy: "enhanced" },
      { url: `http://127.0.0.1:${secret.port}/`, location: { country: "DE" } },
      { url: `http://127.0.0.1:${secret.port}/`, proxy: "basic", actions: [{ type: "scrape" }] },
    ]) {
      const { status, body: res } = await scrape(h, { ...body, maxAge: 0 });
      expect(status).toBe(403);
      expect(res.code).toBe("EGRESS_DENIED");
    }
    expect(allHits()).toBe(before);
    expect(secret.hits).toBe(0);
  });

  test("a page script's fetch() to loopback, in a chained context, never reaches an upstream", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/fetch-secret`, proxy: "enhanced", waitFor: 200, onlyMainContent: false, maxAge: 0 });
    expect(status).toBe(200);
    expect(body.data.markdown).toContain("via enhanced");
    expect(body.data.markdown).toContain("FAILED");
    expect(body.data.markdown).not.toContain("SECRET-DATA");
    for (const u of [basic, enhanced, de]) expect(u.requests.some((r) => r.target.includes(`:${secret.port}`))).toBe(false);
    expect(secret.hits).toBe(0);
  });
});

describe("an interact session goes out as its scrape did", () => {
  const probe = { code: "return await page.evaluate(() => [document.querySelector('h1').textContent, navigator.hardwareConcurrency, navigator.deviceMemory].join(' '))" };
  const inSession = async (scrapeId: string) => {
    const res = await h.request(`/v2/scrape/${scrapeId}/interact`, { method: "POST", json: probe });
    const body = (await res.json()) as any;
    await h.request(`/v2/scrape/${scrapeId}/interact`, { method: "DELETE" });
    return { status: res.status, result: body.result as string };
  };

  test("an enhanced scrape's session: through the enhanced upstream, with the stealth measures", async () => {
    const { body } = await scrape(h, { url: `${site.url}/session-enhanced`, proxy: "enhanced", maxAge: 0 });
    expect(body.data.metadata.proxyUsed).toBe("stealth");
    const before = targets(enhanced).filter((t) => t === `${site.url}/session-enhanced`).length;
    const { status, result } = await inSession(body.data.metadata.scrapeId);
    expect(status).toBe(200);
    // The stealth script reports 8 cores and 8 GB whatever the machine has.
    expect(result).toBe("via enhanced 8 8");
    expect(targets(enhanced).filter((t) => t === `${site.url}/session-enhanced`).length).toBe(before + 1);
    expect(targets(basic)).not.toContain(`${site.url}/session-enhanced`);
  }, 60_000);

  test("a standalone session (/v2/browser) goes through the basic upstream", async () => {
    const { id } = (await (await h.request("/v2/browser", { method: "POST", json: {} })).json()) as any;
    const ran = (await (await h.request(`/v2/browser/${id}/execute`, { method: "POST", json: { language: "node", code: `await page.goto("${site.url}/session-standalone"); return await page.textContent("h1")` } })).json()) as any;
    await h.request(`/v2/browser/${id}`, { method: "DELETE" });
    expect(ran.result).toBe("via basic");
    expect(targets(basic)).toContain(`${site.url}/session-standalone`);
  }, 60_000);

  test("a country's scrape's session goes through the country's upstream; a basic one's through the basic upstream", async () => {
    const de1 = await scrape(h, { url: `${site.url}/session-de`, location: { country: "DE" }, maxAge: 0 });
    expect((await inSession(de1.body.data.metadata.scrapeId)).result).toStartWith("via de ");
    const plain = await scrape(h, { url: `${site.url}/session-basic`, proxy: "basic", maxAge: 0 });
    expect(plain.body.data.metadata.engine).toBe("http");
    expect((await inSession(plain.body.data.metadata.scrapeId)).result).toStartWith("via basic ");
  }, 60_000);
});
