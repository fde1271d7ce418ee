/**
 * The official JS SDK (@mendable/firecrawl-js 4.x) against a listening crawlbox: the black-box compatibility
 * check (api-v2.md §10.9). Covers scrape with and without an API key configured, errors, and the account calls.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Firecrawl from "@mendable/firecrawl-js";
import { startFixtureSite, type FixtureSite } from "../fixtures/site.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: FixtureSite;
let h: Harness;
let apiUrl: string;

beforeAll(async () => {
  site = startFixtureSite();
  h = await createHarness();
  apiUrl = h.listen();
});
afterAll(async () => {
  await h.close();
  site.stop();
});

describe("@mendable/firecrawl-js against crawlbox", () => {
  test("scrape returns the documented Document shape", async () => {
    const app = new Firecrawl({ apiKey: h.key, apiUrl });
    const doc = await app.scrape(`${site.url}/article`, { formats: ["markdown", "html", "links", "images"], onlyMainContent: true });
    expect(doc.markdown).toContain("# Growing Tomatoes Indoors");
    expect(doc.html).toContain("Growing Tomatoes Indoors");
    expect(doc.links).toContain(`${site.url}/guides/lamps`);
    expect(doc.images).toContain(`${site.url}/images/plant.jpg`);
    expect(doc.metadata?.title).toBe("Growing Tomatoes Indoors");
    expect(doc.metadata?.sourceURL).toBe(`${site.url}/article`);
    expect(doc.metadata?.statusCode).toBe(200);
    expect(doc.metadata?.scrapeId).toBeString();
    expect(doc.metadata?.proxyUsed).toBe("basic");
    expect(doc.metadata?.creditsUsed).toBe(1);
  });

  test("scrape with attributes, tag filters and cache options", async () => {
    const app = new Firecrawl({ apiKey: h.key, apiUrl });
    const doc = await app.scrape(`${site.url}/article`, {
      formats: [{ type: "attributes", selectors: [{ selector: ".product", attribute: "data-price" }] } as any],
      excludeTags: ["table"],
      maxAge: 0,
      storeInCache: false,
      timeout: 15000,
    });
    expect((doc as any).attributes).toEqual([{ selector: ".product", attribute: "data-price", values: ["4.99", "12.50"] }]);
  });

  test("a site that refuses the connection is one request, not three (500 SCRAPE_SITE_ERROR; the SDK retries 502s)", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("x") });
    const deadUrl = `http://127.0.0.1:${closed.port}/gone`;
    closed.stop(true); // the port now refuses connections
    let posts = 0;
    const counter = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const u = new URL(req.url);
        if (req.method === "POST" && u.pathname === "/v2/scrape") posts++;
        const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
        return fetch(`${apiUrl}${u.pathname}${u.search}`, { method: req.method, headers: req.headers, body });
      },
    });
    try {
      const app = new Firecrawl({ apiKey: h.key, apiUrl: `http://127.0.0.1:${counter.port}` });
      const err = await app.scrape(deadUrl, { timeout: 5000 }).then(() => undefined, (e: any) => e);
      expect(err?.status).toBe(500);
      expect(String(err?.message)).toContain(deadUrl.split("/gone")[0]!.replace("http://", ""));
      expect(posts).toBe(1);
    } finally {
      counter.stop(true);
    }
  });

  test("a bad key surfaces as an SdkError with status 401", async () => {
    const app = new Firecrawl({ apiKey: "fc-wrong-key", apiUrl });
    try {
      await app.scrape(`${site.url}/article`);
      throw new Error("expected a 401");
    } catch (err: any) {
      expect(err.status).toBe(401);
      expect(String(err.message)).toContain("Unauthorized");
    }
  });

  test("a request the server refuses surfaces code and status", async () => {
    const app = new Firecrawl({ apiKey: h.key, apiUrl });
    try {
      await app.scrape(`${site.url}/counter?never-cached-sdk`, { minAge: 0 } as any);
      throw new Error("expected a 404");
    } catch (err: any) {
      expect(err.status).toBe(404);
      expect(err.code).toBe("SCRAPE_NO_CACHED_DATA");
    }
  });

  test("usage calls", async () => {
    const app = new Firecrawl({ apiKey: h.key, apiUrl });
    const credits = await app.getCreditUsage();
    expect(typeof credits.remainingCredits).toBe("number");
    const tokens = await app.getTokenUsage();
    expect(typeof tokens.remainingTokens).toBe("number");
    const conc = await app.getConcurrency();
    expect(conc.maxConcurrency).toBe(h.services.config.maxConcurrency + h.services.config.jobConcurrency);
    const q = await app.getQueueStatus();
    expect(q.success).toBe(true);
    const hist = await app.getCreditUsageHistorical(true);
    expect(hist.success).toBe(true);
    expect(Array.isArray(hist.periods)).toBe(true);
  });

  test("without any API key configured (CRAWLBOX_AUTH=off) the SDK works with no key", async () => {
    const open = await createHarness({ authEnabled: false });
    const openUrl = open.listen();
    try {
      const app = new Firecrawl({ apiUrl: openUrl });
      const doc = await app.scrape(`${site.url}/article`, { formats: ["markdown"] });
      expect(doc.markdown).toContain("Growing Tomatoes Indoors");
      expect(doc.metadata?.statusCode).toBe(200);
    } finally {
      await open.close();
    }
  });
});
