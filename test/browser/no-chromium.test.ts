/**
 * Without Chromium (CHROME_PATH pointing nowhere) or with CRAWLBOX_BROWSER=off, the server still starts with
 * the HTTP engine only, and browser requests get the clear 400 instead of being silently downgraded.
 */
import { describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config.ts";
import { findChromium } from "../../src/engines/browser/index.ts";
import { createHarness } from "../helpers/harness.ts";
import { startJsSite } from "../fixtures/js-pages.ts";

describe("no browser", () => {
  for (const [name, overrides] of [
    ["CHROME_PATH does not exist", { chromePath: "/nonexistent/chromium" }],
    ["CRAWLBOX_BROWSER=off", { browserEnabled: false }],
  ] as const) {
    test(`${name}: HTTP works, browser options answer 400`, async () => {
      const site = startJsSite();
      const h = await createHarness(overrides);
      try {
        expect(h.services.engines.pool).toBeUndefined();
        expect(h.services.engines.capabilities.has("browser")).toBe(false);
        const post = async (body: unknown) => {
          const res = await h.request("/v2/scrape", { method: "POST", json: body });
          return { status: res.status, body: (await res.json()) as any };
        };
        const ok = await post({ url: `${site.url}/static` });
        expect(ok.status).toBe(200);
        expect(ok.body.data.metadata.engine).toBe("http");
        // A JS shell is served as fetched (no browser to render it), not refused, and not silently: with a warning.
        const shell = await post({ url: `${site.url}/csr` });
        expect(shell.status).toBe(200);
        expect(shell.body.data.warning).toContain("seems to need JavaScript");
        expect(ok.body.data.warning).toBeUndefined();
        // Nothing better can be made here: the copy is cached as any other (and keeps its warning).
        const cached = await post({ url: `${site.url}/csr` });
        expect(cached.body.data.metadata.cacheState).toBe("hit");
        expect(cached.body.data.warning).toContain("seems to need JavaScript");
        const actions = await post({ url: `${site.url}/static`, actions: [{ type: "scrape" }] });
        expect(actions.status).toBe(400);
        expect(actions.body.code).toBe("SCRAPE_ACTIONS_NOT_SUPPORTED");
        const mobile = await post({ url: `${site.url}/static`, mobile: true });
        expect(mobile.body.code).toBe("SCRAPE_BROWSER_REQUIRED");
        const shot = await post({ url: `${site.url}/static`, formats: ["screenshot"] });
        expect(shot.status).toBe(400);
        expect(shot.body.code).toBe("SCRAPE_UNSUPPORTED_FORMAT");
      } finally {
        await h.close();
        site.stop();
      }
    });
  }

  test("a browser that cannot start: a page needing one comes back as served over HTTP, with a warning, uncached", async () => {
    const site = startJsSite();
    // An executable that exits at once: the browser engine is configured, and every launch fails.
    const h = await createHarness({ chromePath: "/bin/false" });
    try {
      expect(h.services.engines.capabilities.has("browser")).toBe(true);
      const post = async (body: unknown) => (await (await h.request("/v2/scrape", { method: "POST", json: body })).json()) as any;
      const first = await post({ url: `${site.url}/csr` });
      expect(first.success).toBe(true);
      expect(first.data.metadata.engine).toBe("http");
      expect(first.data.warning).toMatch(/seems to need a browser \(.+\), but the browser failed: this is its HTML as served\.$/);
      const again = await post({ url: `${site.url}/csr` });
      expect(again.data.metadata.cacheState).toBe("miss"); // a degraded copy is not kept for others
    } finally {
      await h.close();
      site.stop();
    }
  });

  test("Chromium discovery: configured path, Debian locations, none", () => {
    expect(findChromium("/opt/chrome", (p) => p === "/opt/chrome")).toBe("/opt/chrome");
    expect(findChromium("/opt/chrome", () => false)).toBeUndefined();
    expect(findChromium("", (p) => p === "/usr/lib/chromium/chromium")).toBe("/usr/lib/chromium/chromium");
    expect(findChromium("", () => false)).toBeUndefined();
  });

  test("config: browser settings from the environment, concurrency sized for the machine", () => {
    const c = loadConfig({ CRAWLBOX_BROWSER: "off", CRAWLBOX_BROWSER_CONCURRENCY: "3", CRAWLBOX_BROWSER_RETIRE_AFTER_PAGES: "50" });
    expect(c.browserEnabled).toBe(false);
    expect(c.browserConcurrency).toBe(3);
    expect(c.browserRetireAfterPages).toBe(50);
    expect(loadConfig({}).browserConcurrency).toBeGreaterThanOrEqual(1);
    expect(() => loadConfig({ CRAWLBOX_BROWSER_CONCURRENCY: "0" })).toThrow();
  });
});
