/**
 * The browser engine through the API, with real Chromium against local fixture pages: engine choice, smart
 * wait, screenshots and their files, devices and place, ad blocking, profiles, headers, PDFs, proxy:auto,
 * crash recovery, and no Chromium left behind. One harness (one Chromium) for the whole file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startCountingServer, startTlsServer, type FixtureServer } from "../fixtures/servers.ts";
import { startJsSite, type JsSite } from "../fixtures/js-pages.ts";
import type { Harness } from "../helpers/harness.ts";
import { browserHarness, closeAndAssertNoChromium, fetchFile, imageSize, scrape } from "./helpers.ts";
import { parseCookieHeader } from "../../src/engines/browser/scrape.ts";

let site: JsSite;
let ads: FixtureServer;
let h: Harness;
let clock = Date.now();

beforeAll(async () => {
  ads = startCountingServer(() => new Response("/* ad */", { headers: { "content-type": "application/javascript" } }));
  site = startJsSite({ adOrigin: `http://ads.doubleclick.net:${ads.port}` });
  h = await browserHarness({}, { now: () => clock });
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  site.stop();
  await ads.stop();
});

describe("engine choice", () => {
  test("a client-rendered page is scraped without any option, by the browser", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/csr` });
    expect(status).toBe(200);
    expect(body.data.markdown).toContain("# Rendered by JavaScript");
    expect(body.data.markdown).toContain("Second paragraph rendered on the client.");
    expect(body.data.metadata.engine).toBe("browser");
    expect(body.data.metadata.proxyUsed).toBe("basic");
    expect(body.data.metadata.statusCode).toBe(200);
    expect(body.data.metadata.creditsUsed).toBe(1);
  });

  test("content fetched by script after load is waited for (smart wait)", async () => {
    const { body } = await scrape(h, { url: `${site.url}/csr-fetch` });
    expect(body.data.markdown).toContain("gamma item");
    expect(body.data.metadata.engine).toBe("browser");
  });

  test("a noscript wall goes to the browser", async () => {
    const { body } = await scrape(h, { url: `${site.url}/noscript` });
    expect(body.data.markdown).toContain("Welcome behind the wall");
    expect(body.data.markdown).not.toContain("enable JavaScript");
  });

  test("a page that sends the reader on with a meta refresh is the page it sends to, as in a browser", async () => {
    const { body } = await scrape(h, { url: `${site.url}/refresh`, maxAge: 0 });
    expect(body.data.markdown).toContain("# Static article");
    expect(body.data.markdown).not.toContain("Redirecting");
    expect(body.data.metadata.url).toBe(`${site.url}/static`);
    expect(body.data.metadata.sourceURL).toBe(`${site.url}/refresh`);
    expect(body.data.metadata.engine).toBe("browser");
  });

  test("skipTlsVerification: false is honoured after the same key's scrapes went on past that host's bad certificate", async () => {
    const tls = await startTlsServer(() => new Response("<main><h1>Untrusted</h1><p>Self-signed.</p></main>", { headers: { "content-type": "text/html" } }));
    try {
      const at = (path: string, skip?: boolean) => scrape(h, { url: `https://127.0.0.1:${tls.port}${path}`, formats: ["markdown", "screenshot"], maxAge: 0, ...(skip === undefined ? {} : { skipTlsVerification: skip }) });
      expect((await at("/a", false)).body.code).toBe("SCRAPE_SSL_ERROR");
      expect((await at("/a")).status).toBe(200); // skipTlsVerification defaults to true
      // The context that went on past the certificate kept Chromium's allowance: this was a 200.
      const again = await at("/z", false);
      expect([again.status, again.body.code]).toEqual([500, "SCRAPE_SSL_ERROR"]);
    } finally {
      await tls.stop();
    }
  });

  test("a static page stays on HTTP", async () => {
    const { body } = await scrape(h, { url: `${site.url}/static` });
    expect(body.data.markdown).toContain("# Static article");
    expect(body.data.metadata.engine).toBe("http");
  });

  test("proxy:auto retries a bot wall as enhanced; proxy:basic does not", async () => {
    const basic = await scrape(h, { url: `${site.url}/wall`, proxy: "basic" });
    expect(basic.body.data.metadata.statusCode).toBe(403);
    expect(basic.body.data.metadata.proxyUsed).toBe("basic");
    const auto = await scrape(h, { url: `${site.url}/wall`, maxAge: 0 });
    expect(auto.body.data.markdown).toContain("Past the wall");
    expect(auto.body.data.metadata.proxyUsed).toBe("stealth");
    expect(auto.body.data.metadata.engine).toBe("browser");
    expect(auto.body.data.metadata.creditsUsed).toBe(5);
  });

  test("proxy:enhanced applies the stealth measures in the browser", async () => {
    const { body } = await scrape(h, { url: `${site.url}/env`, proxy: "enhanced", formats: ["rawHtml"] });
    const env = JSON.parse(/<pre id="env">(.*?)<\/pre>/s.exec(body.data.rawHtml)![1]!.replace(/&quot;/g, '"'));
    expect(env.webdriver).toBe(false);
    expect(env.userAgent).not.toContain("Headless");
    expect(body.data.metadata.proxyUsed).toBe("stealth");
  });
});

describe("screenshots", () => {
  test("viewport screenshot: a /v2/files URL of the right size, gone after 24 hours", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/static`, formats: [{ type: "screenshot", viewport: { width: 800, height: 600 } }] });
    expect(status).toBe(200);
    const url: string = body.data.screenshot;
    expect(url).toMatch(/\/v2\/files\/[0-9a-f]{32}\.png$/);
    expect(body.data.metadata.engine).toBe("browser");
    const res = await fetchFile(h, url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(imageSize(new Uint8Array(await res.arrayBuffer()))).toEqual({ width: 800, height: 600, type: "png" });

    clock += 24 * 60 * 60 * 1000 + 1;
    expect((await fetchFile(h, url)).status).toBe(404);
    expect(h.services.files.prune()).toBeGreaterThanOrEqual(1);
    clock = Date.now();
  });

  test("mobile: a screenshot's viewport sizes the phone, which stays a phone", async () => {
    const { body } = await scrape(h, { url: `${site.url}/env`, mobile: true, formats: ["rawHtml", { type: "screenshot", viewport: { width: 800, height: 600 } }] });
    expect(imageSize(new Uint8Array(await (await fetchFile(h, body.data.screenshot)).arrayBuffer()))).toEqual({ width: 800, height: 600, type: "png" });
    const env = JSON.parse(/<pre id="env">(.*?)<\/pre>/s.exec(body.data.rawHtml)![1]!.replace(/&quot;/g, '"'));
    expect(env.width).toBe(800);
    expect(env.mobile).toBe(true);
    expect(env.touch).toBeGreaterThan(0);
  });

  test("fullPage covers the whole page; quality gives a JPEG", async () => {
    const { body } = await scrape(h, { url: `${site.url}/tall`, formats: [{ type: "screenshot", fullPage: true, quality: 60 }] });
    const size = imageSize(new Uint8Array(await (await fetchFile(h, body.data.screenshot)).arrayBuffer()));
    expect(size.type).toBe("jpeg");
    expect(size.width).toBe(1920);
    expect(size.height).toBeGreaterThan(3000);
  });

  test("a screenshot scrape is cached with its image, under its options: the next one, and minAge, are hits", async () => {
    const url = `${site.url}/static?cached-shot=1`;
    const formats = ["markdown", { type: "screenshot", viewport: { width: 640, height: 480 } }];
    const first = await scrape(h, { url, formats });
    expect(first.body.data.metadata.cacheState).toBe("miss");
    const second = await scrape(h, { url, formats });
    expect(second.body.data.metadata).toMatchObject({ cacheState: "hit", engine: "browser" });
    expect(second.body.data.markdown).toBe(first.body.data.markdown);
    const a = new Uint8Array(await (await fetchFile(h, first.body.data.screenshot)).arrayBuffer());
    const b = new Uint8Array(await (await fetchFile(h, second.body.data.screenshot)).arrayBuffer());
    expect(imageSize(b)).toEqual({ width: 640, height: 480, type: "png" });
    expect(Buffer.from(b).equals(Buffer.from(a))).toBe(true);
    expect((await scrape(h, { url, formats, minAge: 0 })).body.data.metadata.cacheState).toBe("hit");
    // Other screenshot options are another entry.
    const other = await scrape(h, { url, formats: ["markdown", { type: "screenshot", viewport: { width: 800, height: 600 } }] });
    expect(other.body.data.metadata.cacheState).toBe("miss");
  });

  test("zeroDataRetention returns a data: URL and stores nothing", async () => {
    const before = (h.services.db.query("SELECT COUNT(*) AS n FROM files").get() as { n: number }).n;
    const { body } = await scrape(h, { url: `${site.url}/static`, formats: ["screenshot"], zeroDataRetention: true });
    expect(body.data.screenshot).toStartWith("data:image/png;base64,");
    expect((h.services.db.query("SELECT COUNT(*) AS n FROM files").get() as { n: number }).n).toBe(before);
  });
});

describe("devices and place", () => {
  const envOf = (raw: string) => JSON.parse(/<pre id="env">(.*?)<\/pre>/s.exec(raw)![1]!.replace(/&quot;/g, '"'));

  test("mobile and desktop differ in the page", async () => {
    const mobile = envOf((await scrape(h, { url: `${site.url}/env`, mobile: true, formats: ["rawHtml"] })).body.data.rawHtml);
    const desktop = envOf((await scrape(h, { url: `${site.url}/env`, waitFor: 1, formats: ["rawHtml"] })).body.data.rawHtml);
    expect(mobile.width).toBe(412);
    expect(mobile.touch).toBeGreaterThan(0);
    expect(mobile.mobile).toBe(true);
    expect(mobile.userAgent).toContain("Mobile");
    expect(desktop.width).toBe(1920);
    expect(desktop.touch).toBe(0);
    expect(desktop.userAgent).not.toContain("Mobile");
  });

  test("languages and time zone are seen by the page and in Accept-Language", async () => {
    const { body } = await scrape(h, { url: `${site.url}/env`, location: { country: "JP", languages: ["ja-JP", "en"] }, formats: ["rawHtml"] });
    const env = envOf(body.data.rawHtml);
    expect(env.languages).toEqual(["ja-JP", "en"]);
    expect(env.timezone).toBe("Asia/Tokyo");
    expect(site.headers.get("/env")!.get("accept-language")).toStartWith("ja-JP");
    const de = envOf((await scrape(h, { url: `${site.url}/env`, location: { country: "DE" }, formats: ["rawHtml"] })).body.data.rawHtml);
    expect(de.timezone).toBe("Europe/Berlin");
    expect(de.languages[0]).toBe("de-DE");
  });
});

describe("blocking", () => {
  test("ad and tracker requests are blocked and cookie banners removed (blockAds default)", async () => {
    const before = ads.hits;
    const { body } = await scrape(h, { url: `${site.url}/ads`, waitFor: 50, onlyMainContent: false });
    expect(body.data.markdown).toContain("Article with ads");
    expect(body.data.markdown).not.toContain("We use cookies");
    expect(ads.hits).toBe(before);
  });

  test("blockAds:false lets them through (the fixture really would be hit)", async () => {
    const before = ads.hits;
    const { body } = await scrape(h, { url: `${site.url}/ads`, waitFor: 50, blockAds: false, onlyMainContent: false, formats: ["screenshot", "markdown"] });
    expect(ads.hits).toBeGreaterThan(before);
    expect(body.data.markdown).toContain("We use cookies");
  });
});

describe("profiles, headers, documents", () => {
  const state = (md: string) => /visits=(\d+) cookie=(.*)/.exec(md)!;

  test("a profile carries cookies and localStorage across scrapes; saveChanges:false reads only", async () => {
    const p = { name: "shop-login" };
    const first = state((await scrape(h, { url: `${site.url}/profile`, profile: p })).body.data.markdown);
    expect(first[1]).toBe("1");
    const second = await scrape(h, { url: `${site.url}/profile`, profile: p });
    const s2 = state(second.body.data.markdown);
    expect(s2[1]).toBe("2");
    expect(s2[2]).toContain("seen=yes");
    expect(second.body.data.metadata.cacheState).toBe("miss");
    expect(state((await scrape(h, { url: `${site.url}/profile`, profile: { ...p, saveChanges: false } })).body.data.markdown)[1]).toBe("3");
    expect(state((await scrape(h, { url: `${site.url}/profile`, profile: p })).body.data.markdown)[1]).toBe("3");
    // Another key's profile of the same name is another profile.
    const other = h.services.keys.create("other").key;
    const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}/profile`, profile: p }, auth: other });
    expect(state(((await res.json()) as any).data.markdown)[1]).toBe("1");
  });

  test("concurrent scrapes with one profile do not lose each other's changes", async () => {
    const p = { name: "parallel" };
    await Promise.all([1, 2, 3].map(() => scrape(h, { url: `${site.url}/profile`, profile: p })));
    const row = h.services.db.query("SELECT state, version FROM browser_profiles WHERE name = 'parallel'").get() as any;
    expect(row.version).toBe(3);
    const saved = JSON.parse(row.state);
    expect(saved.cookies.some((c: any) => c.name === "seen")).toBe(true);
    // Two ran at once from the empty profile (concurrency 2), the third after them: never lost, never torn.
    expect(["1", "2"]).toContain(Object.values(saved.localStorage as Record<string, Record<string, string>>)[0]!.visits);
  });

  test("headers (custom, cookie, user-agent) apply in the browser", async () => {
    const { body } = await scrape(h, {
      url: `${site.url}/echo-headers`,
      waitFor: 1,
      headers: { "X-Test": "yes", Cookie: "session=abc", "User-Agent": "MyBot/1.0" },
      formats: ["rawHtml"],
    });
    expect(body.data.metadata.engine).toBe("browser");
    const seen = site.headers.get("/echo-headers")!;
    expect(seen.get("x-test")).toBe("yes");
    expect(seen.get("cookie")).toBe("session=abc");
    expect(seen.get("user-agent")).toBe("MyBot/1.0");
  });

  test("actions on a PDF fail clearly; the PDF itself goes to the document pipeline", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/doc.pdf`, actions: [{ type: "wait", milliseconds: 10 }] });
    expect(status).toBe(400);
    expect(body.code).toBe("SCRAPE_ACTION_ERROR");
    expect(body.error).toContain("application/pdf");
    const plain = await scrape(h, { url: `${site.url}/doc.pdf`, mobile: true });
    // Rendered by the document pipeline when a PDF parser is registered, else the clear 422 for binary files.
    if (plain.status === 200) expect(plain.body.data.markdown).toContain("Hello PDF");
    else expect(plain.body.code).toBe("SCRAPE_UNSUPPORTED_FILE_ERROR");
  });
});

describe("resilience", () => {
  test("a browser crash mid-scrape fails that scrape; the next one succeeds on a new Chromium", async () => {
    const pool = h.services.engines.pool!;
    const launchesBefore = pool.launches;
    const pending = scrape(h, { url: `${site.url}/slow?ms=3000`, mobile: true, timeout: 20000 });
    await Bun.sleep(600);
    const pid = (await pool.browser()).process()!.pid!;
    process.kill(-pid, "SIGKILL");
    const failed = await pending;
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect(failed.body.success).toBe(false);
    const next = await scrape(h, { url: `${site.url}/csr`, maxAge: 0 });
    expect(next.status).toBe(200);
    expect(next.body.data.markdown).toContain("Rendered by JavaScript");
    expect(pool.launches).toBe(launchesBefore + 1);
  });

  test("the scrape deadline bounds a hanging page (SCRAPE_TIMEOUT)", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/slow?ms=8000`, mobile: true, timeout: 2000 });
    expect(status).toBe(408);
    expect(body.code).toBe("SCRAPE_TIMEOUT");
  });
});

describe("the client's Cookie header in the browser", () => {
  test("set for the page's host, Secure on an https page (not sent after a redirect down to http)", () => {
    expect(parseCookieHeader("a=1; b = 2 ; junk", new URL("https://shop.example/x"))).toEqual([
      { name: "a", value: "1", domain: "shop.example", path: "/", secure: true },
      { name: "b", value: "2", domain: "shop.example", path: "/", secure: true },
    ]);
    expect(parseCookieHeader("a=1", new URL("http://shop.example:8080/"))[0]!.secure).toBe(false);
  });
});
