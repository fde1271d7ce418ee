/**
 * What one scraped page may not do to the shared browser or to the server (engines/browser/page-guards.ts,
 * chromium.ts, actions.ts, engine.ts), with real Chromium and the gate closed: dialogs do not hold a page until
 * its timeout, popups are blocked or closed, a history flood does not wedge the browser for the next scrapes,
 * action results share the page's size limit, a navigation after load is checked like the first one, a download
 * goes to the document pipeline, malformed actions are 400s, and an endless page gives a cut screenshot.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AddressVerdict, classifyAddress } from "../../src/egress/index.ts";
import { startCountingServer, type FixtureServer } from "../fixtures/servers.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { closeAndAssertNoChromium, fetchFile, imageSize, scrape } from "./helpers.ts";

const PUBLIC_FIXTURE_IP = "127.0.0.2";
const classify = (a: string): AddressVerdict => (a === PUBLIC_FIXTURE_IP ? { public: true } : classifyAddress(a));
const MAX_PAGE_BYTES = 1_000_000;

let secret: FixtureServer;
let site: FixtureServer;
let h: Harness;

const html = (body: string, head = "") =>
  new Response(`<!doctype html><html><head><title>t</title>${head}</head><body>${body}</body></html>`, {
    headers: { "content-type": "text/html; charset=utf-8" },
  });
const TEXT = "<p>" + "Plenty of ordinary article text to read here. ".repeat(8) + "</p>";

beforeAll(async () => {
  secret = startCountingServer(() => new Response("SECRET-DATA"));
  site = startCountingServer(
    (req) => {
      const url = new URL(req.url);
      switch (url.pathname) {
        case "/dialogs":
          return html(`<h1>Dialogs</h1>${TEXT}<script>alert("hi"); confirm("sure?"); prompt("name?");
            document.body.insertAdjacentHTML("beforeend", "<p>After the dialogs</p>");</script>`);
        case "/popups":
          return html(`<h1>Popups</h1>${TEXT}<button id="b" onclick="window.__w = window.open('/target?click')">open</button>
            <script>for (let i = 0; i < 20; i++) window.open("/target?load" + i);</script>`);
        case "/target":
          return html(`<h1>Popup target</h1>`);
        case "/flood":
          return html(`<h1>Flood</h1>${TEXT}<script>for (let i = 0; i < 100000; i++) history.pushState({}, "", "/h" + i);</script>`);
        case "/plain":
          return html(`<h1>Plain page</h1>${TEXT}`);
        case "/lying-json":
          // A page whose JSON.stringify reports every value as tiny, so that a huge one would pass a measure made with it.
          return html(`<h1>Lying JSON</h1>${TEXT}`, `<script>JSON.stringify = () => "1"; Object.defineProperty(window, "JSON", { value: { stringify: () => "1", parse: JSON.parse } });</script>`);
        case "/big":
          return html(`<h1>Big</h1><p>${"y".repeat(600_000)}</p>`);
        case "/refresh":
          return html(`<h1>Moving on</h1>${TEXT}`, `<meta http-equiv="refresh" content="0;url=${url.searchParams.get("to")}">`);
        case "/download":
          return new Response(`<!doctype html><html><body><h1>Downloaded report</h1>${TEXT}</body></html>`, {
            headers: { "content-type": "text/html", "content-disposition": 'attachment; filename="report.html"' },
          });
        case "/gone":
          return new Response(null, { status: 404 });
        case "/unavailable":
          return new Response("", { status: 503 });
        case "/csv":
          return new Response("a,b\n1,2\n", { headers: { "content-type": "text/csv", "content-disposition": 'attachment; filename="x.csv"' } });
        case "/tall":
          return html(`<div style="height: 40000px; background: linear-gradient(#fff, #000)"><h1>Tall</h1></div>`);
        default:
          return new Response("not found", { status: 404 });
      }
    },
    { hostname: PUBLIC_FIXTURE_IP },
  );
  h = await createHarness({ allowPrivateNetwork: false, maxPageBytes: MAX_PAGE_BYTES }, { classify, resolver: async () => [PUBLIC_FIXTURE_IP] });
  if (!h.services.engines.pool) throw new Error("these tests need Chromium (apt-get install chromium)");
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  await site.stop();
  await secret.stop();
});

describe("the page cannot hold or flood the browser", () => {
  test("alert, confirm and prompt are dismissed: the page is scraped, not held until its timeout", async () => {
    const started = performance.now();
    const { status, body } = await scrape(h, { url: `${site.url}/dialogs`, waitFor: 100, timeout: 10_000, maxAge: 0 });
    expect(status).toBe(200);
    expect(body.data.markdown).toContain("After the dialogs");
    expect(performance.now() - started).toBeLessThan(6_000);
  });

  test("popups without a user gesture are blocked; one opened by a click is closed at once", async () => {
    const before = site.paths.filter((p) => p.startsWith("/target")).length;
    const { status, body } = await scrape(h, {
      url: `${site.url}/popups`,
      maxAge: 0,
      actions: [
        { type: "click", selector: "#b" },
        { type: "wait", milliseconds: 1_000 },
        { type: "executeJavascript", script: `window.__w ? window.__w.closed : "no window"` },
      ],
    });
    expect(status).toBe(200);
    expect(body.data.actions.javascriptReturns[0]).toEqual({ type: "boolean", value: true });
    const loads = site.paths.filter((p) => p.startsWith("/target?load")).length;
    expect(loads).toBe(0);
    expect(site.paths.filter((p) => p.startsWith("/target")).length - before).toBeLessThanOrEqual(1);
  });

  test("a page flooding the browser with history entries does not wedge it for the next scrapes", async () => {
    await scrape(h, { url: `${site.url}/flood`, waitFor: 100, timeout: 10_000, maxAge: 0 });
    const started = performance.now();
    const next = await scrape(h, { url: `${site.url}/plain`, waitFor: 100, timeout: 10_000, maxAge: 0 });
    expect(next.status).toBe(200);
    expect(next.body.data.markdown).toContain("Plain page");
    expect(performance.now() - started).toBeLessThan(8_000);
  }, 30_000);
});

describe("action results share the page's size limit (CRAWLBOX_MAX_PAGE_BYTES)", () => {
  test("a script returning more than the limit is refused", async () => {
    const { status, body } = await scrape(h, {
      url: `${site.url}/plain`,
      actions: [{ type: "executeJavascript", script: `"x".repeat(${MAX_PAGE_BYTES * 2})` }],
    });
    expect(status).toBe(500);
    expect(body.code).toBe("SCRAPE_RESPONSE_TOO_LARGE");
    expect(body.error).toContain("Action 0 (executeJavascript)");
  });

  test("the measure cannot be fooled by a page that replaces JSON.stringify; ordinary values still come back", async () => {
    const { status, body } = await scrape(h, {
      url: `${site.url}/lying-json`,
      actions: [{ type: "executeJavascript", script: `"x".repeat(${MAX_PAGE_BYTES * 2})` }],
    });
    expect([status, body.code]).toEqual([500, "SCRAPE_RESPONSE_TOO_LARGE"]);
    const ok = await scrape(h, {
      url: `${site.url}/lying-json`,
      actions: [
        { type: "executeJavascript", script: `({ n: 2, list: [1, "a", null], when: new Date(0), big: 12345678901234567890n > 0n })` },
        { type: "executeJavascript", script: `10n ** 20n` },
        { type: "executeJavascript", script: `const o = {}; o.self = o; o` },
      ],
    });
    expect(ok.status).toBe(500); // a cycle cannot be JSON: the action fails, naming why
    expect(ok.body.error).toContain("cannot be turned into JSON");
    const fine = await scrape(h, {
      url: `${site.url}/lying-json`,
      actions: [
        { type: "executeJavascript", script: `({ n: 2, list: [1, "a", null], when: new Date(0) })` },
        { type: "executeJavascript", script: `10n ** 20n` },
      ],
    });
    expect(fine.status).toBe(200);
    expect(fine.body.data.actions.javascriptReturns).toEqual([
      { type: "object", value: { n: 2, list: [1, "a", null], when: "1970-01-01T00:00:00.000Z" } },
      { type: "bigint", value: "100000000000000000000" },
    ]);
  });

  test("scrape actions add up: two copies of a 600 KB page are over a 1 MB limit", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/big`, actions: [{ type: "scrape" }, { type: "scrape" }] });
    expect(status).toBe(500);
    expect(body.code).toBe("SCRAPE_RESPONSE_TOO_LARGE");
    expect(body.error).toContain("Action 1 (scrape)");
    const one = await scrape(h, { url: `${site.url}/plain`, actions: [{ type: "scrape" }, { type: "scrape" }] });
    expect(one.status).toBe(200);
    expect(one.body.data.actions.scrapes.length).toBe(2);
  });
});

describe("navigations after load", () => {
  test("a meta refresh to a loopback address is refused (EGRESS_DENIED), not a success holding the refusal", async () => {
    for (const to of [`http://127.0.0.1:${secret.port}/x`, `https://127.0.0.1:${secret.port}/x`]) {
      const { status, body } = await scrape(h, { url: `${site.url}/refresh?to=${encodeURIComponent(to)}`, waitFor: 1_500, maxAge: 0 });
      expect({ to, status, code: body.code }).toEqual({ to, status: 403, code: "EGRESS_DENIED" });
    }
    expect(secret.hits).toBe(0);
  });

  test("an HTTP error with an empty body is the site's status, not a failed navigation", async () => {
    for (const [path, code] of [["/gone", 404], ["/unavailable", 503]] as const) {
      for (const extra of [{ waitFor: 100 }, { formats: ["markdown", "screenshot"] }]) {
        const { status, body } = await scrape(h, { url: `${site.url}${path}`, maxAge: 0, ...extra });
        expect({ path, status, statusCode: body.data?.metadata.statusCode }).toEqual({ path, status: 200, statusCode: code });
        expect(body.data.metadata.url).toBe(`${site.url}${path}`);
        expect(body.data.metadata.engine).toBe("browser");
      }
    }
  });

  test("a download started after load (meta refresh, click) leaves the page as it was", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/refresh?to=${encodeURIComponent("/csv")}`, waitFor: 1_500, maxAge: 0 });
    expect(status).toBe(200);
    expect(body.data.markdown).toContain("Moving on");
    expect(body.data.metadata.url).toBe(`${site.url}/refresh?to=${encodeURIComponent("/csv")}`);
  });

  test("a main response sent as a download is fetched for the document pipeline instead", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/download`, waitFor: 100, maxAge: 0 });
    expect(status).toBe(200);
    expect(body.data.markdown).toContain("Downloaded report");
  });
});

describe("malformed actions and oversized pages", () => {
  test("an unknown key or a selector the browser cannot parse is a 400", async () => {
    const key = await scrape(h, { url: `${site.url}/plain`, actions: [{ type: "press", key: "NotAKey" }] });
    expect([key.status, key.body.code]).toEqual([400, "SCRAPE_ACTION_ERROR"]);
    // One that is not CSS at all is refused with the request; one only Chromium refuses, when it runs.
    const selector = await scrape(h, { url: `${site.url}/plain`, actions: [{ type: "click", selector: "div[[" }] });
    expect([selector.status, selector.body.code]).toEqual([400, "BAD_REQUEST"]);
    const unknown = await scrape(h, { url: `${site.url}/plain`, actions: [{ type: "click", selector: "p:contains(text)" }] });
    expect([unknown.status, unknown.body.code]).toEqual([400, "SCRAPE_ACTION_ERROR"]);
    const missing = await scrape(h, { url: `${site.url}/plain`, actions: [{ type: "click", selector: "#nothing-here" }] });
    expect([missing.status, missing.body.code]).toEqual([500, "SCRAPE_ACTION_ERROR"]);
  });

  test("a full-page screenshot of a page taller than a screenshot can be is cut, with a warning", async () => {
    const { status, body } = await scrape(h, { url: `${site.url}/tall`, formats: [{ type: "screenshot", fullPage: true }], maxAge: 0 });
    expect(status).toBe(200);
    expect(body.data.warning).toContain("cut at 16384 px");
    const image = new Uint8Array(await (await fetchFile(h, body.data.screenshot)).arrayBuffer());
    expect(imageSize(image).height).toBe(16_384);
  }, 30_000);
});
