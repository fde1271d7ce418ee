/**
 * Formats that need the live page (`branding`, `changeTracking`) with an option that allows only the cache
 * (`minAge`, `lockdown`): branding was answered 200 from the cached HTTP copy with a warning blaming the URL, and
 * changeTracking under lockdown diffed the cached copy and recorded it as the new baseline, dated now. Now a 400
 * naming the option, before anything is fetched (scrape/page-source.ts), for scrapes and crawls alike; without
 * those options both formats fetch live as before.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ScrapeOptions } from "../../src/api/scrape-options.ts";
import { obtainPage } from "../../src/scrape/page-source.ts";
import { RendererRegistry } from "../../src/scrape/renderer.ts";
import { specFromOptions } from "../../src/scrape/from-options.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { page, startPageSite, type PageSite } from "../formats/pages.ts";

let site: PageSite;
let h: Harness;
beforeAll(async () => {
  site = startPageSite();
  site.set("/price", page("Price page", "The price is 1 dollar today."));
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
  site.stop();
});

const post = async (path: string, body: Record<string, unknown>) => {
  const res = await h.request(path, { method: "POST", json: body });
  return { status: res.status, body: (await res.json()) as any };
};
const url = () => `${site.url}/price`;
const hits = () => site.hits.get("/price") ?? 0;

describe("a live-page format with a cache-only option is a 400 before anything is fetched", () => {
  beforeAll(async () => {
    // The cache holds a copy of the page (the HTTP engine's), which those requests used to be answered from.
    expect((await post("/v2/scrape", { url: url(), formats: ["markdown"] })).status).toBe(200);
  });

  test.each(["minAge", "lockdown"])("branding with %s", async (option) => {
    const options = option === "minAge" ? { minAge: 0 } : { lockdown: true };
    const before = hits();
    const r = await post("/v2/scrape", { url: url(), formats: ["branding"], ...options });
    // Without Chromium the format is refused for that reason first (same code, another message).
    if (!h.services.engines.pool) {
      console.warn("no Chromium: only the code of the branding refusal is checked");
      return expect(r.body.code).toBe("SCRAPE_BRANDING_NOT_SUPPORTED");
    }
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: "SCRAPE_BRANDING_NOT_SUPPORTED", details: { format: "branding", option } });
    expect(r.body.error).toBe(`The "branding" format needs the live page, and \`${option}\` allows only a cached copy: leave out \`${option}\` or the format.`);
    expect(hits()).toBe(before);
    expect(h.services.engines.pool.pids()).toEqual([]);
  });

  test.each(["minAge", "lockdown"])("changeTracking with %s, and no baseline is recorded", async (option) => {
    const options = option === "minAge" ? { minAge: 0 } : { lockdown: true };
    const before = hits();
    const r = await post("/v2/scrape", { url: url(), formats: ["markdown", { type: "changeTracking", tag: option }], ...options });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: "BAD_REQUEST", details: { format: "changeTracking", option } });
    expect(r.body.error).toContain(`\`${option}\` allows only a cached copy`);
    expect(hits()).toBe(before);
    // The first live scrape with this tag finds no history: the refused one recorded nothing.
    const live = await post("/v2/scrape", { url: url(), formats: ["markdown", { type: "changeTracking", tag: option }] });
    expect(live.status).toBe(200);
    expect(live.body.data.changeTracking).toMatchObject({ changeStatus: "new", previousScrapeAt: null });
    expect(live.body.data.metadata.cacheState).toBe("miss");
    expect(hits()).toBe(before + 1);
  });

  test("a crawl with them in its scrapeOptions is refused when submitted", async () => {
    const r = await post("/v2/crawl", { url: url(), limit: 1, scrapeOptions: { formats: ["markdown", { type: "changeTracking" }], lockdown: true } });
    expect(r.status).toBe(400);
    expect(r.body.details).toEqual({ format: "changeTracking", option: "lockdown" });
  });

  test("obtainPage itself never serves a cached copy to such a format", async () => {
    const renderers = new RendererRegistry().register({ type: "changeTracking", needs: [], needsFreshPage: true, render: () => ({}) });
    const options = { formats: [{ type: "markdown" }, { type: "changeTracking" }], onlyMainContent: true, removeBase64Images: true, waitFor: 0, mobile: false, proxy: "basic", blockAds: true, lockdown: true, storeInCache: true, parsers: [] } as unknown as ScrapeOptions;
    const spec = specFromOptions(url(), url(), options, {}, { defaultTimeoutMs: 10_000 });
    const src = { engines: h.services.engines, cache: h.services.cache, renderers, maxPageBytes: 1_000_000, now: Date.now };
    const before = hits();
    await expect(obtainPage(src, spec, undefined, "key")).rejects.toMatchObject({ status: 400, code: "BAD_REQUEST" });
    expect(hits()).toBe(before);
  });
});
