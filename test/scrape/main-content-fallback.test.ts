/**
 * onlyMainContent on a page whose main content comes out empty (a hub of navigation links; a cookie banner and a
 * sidebar): the markdown falls back to the whole page's, as upstream does, on the main thread and on a parse
 * worker's views alike; a page with real content keeps its main content only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createRenderContext, computeViews } from "../../src/scrape/render-context.ts";
import { specFromOptions } from "../../src/scrape/from-options.ts";
import { parseScrapeBody } from "../../src/api/scrape.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { page, startPageSite, type PageSite } from "../formats/pages.ts";

const NAV_ONLY = `<!doctype html><html><head><title>Hub</title></head><body><nav><ul>${["Docs", "Blog", "Pricing", "About"]
  .map((t) => `<li><a href="/${t.toLowerCase()}">${t}</a></li>`)
  .join("")}</ul></nav></body></html>`;
const BANNER_ONLY = `<!doctype html><html><head><title>Gate</title></head><body><div class="cookie-banner">We use cookies. <a href="/ok">Accept</a></div><aside class="sidebar"><a href="/x">Related</a></aside></body></html>`;

let site: PageSite;
let h: Harness;
beforeAll(async () => {
  site = startPageSite();
  site.set("/hub", NAV_ONLY);
  site.set("/gate", BANNER_ONLY);
  site.set("/article", page("Kettles", "A long paragraph about kettles and how they boil water quickly and safely."));
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
  site.stop();
});

const markdownOf = async (path: string, extra: Record<string, unknown> = {}) => {
  const res = await h.request("/v2/scrape", { method: "POST", json: { url: `${site.url}${path}`, maxAge: 0, ...extra } });
  expect(res.status).toBe(200);
  return ((await res.json()) as any).data.markdown as string;
};

describe("main content that comes out empty", () => {
  test("a page of navigation links, or of a banner and a sidebar, gives the whole page's markdown", async () => {
    const hub = await markdownOf("/hub");
    for (const t of ["Docs", "Blog", "Pricing", "About"]) expect(hub).toContain(`[${t}](${site.url}/${t.toLowerCase()})`);
    expect(await markdownOf("/gate")).toContain("We use cookies.");
  });

  test("a page with content keeps its main content only", async () => {
    const md = await markdownOf("/article");
    expect(md).toContain("kettles and how they boil");
  });

  test("a parse worker's views fall back the same way", () => {
    const req = parseScrapeBody({ url: `${site.url}/hub` });
    const spec = specFromOptions(req.url, req.sourceURL, req.scrapeOptions, req, { defaultTimeoutMs: 30_000 });
    const page = { requestedUrl: spec.url, finalUrl: spec.url, statusCode: 200, headers: {}, contentType: "text/html", text: NAV_ONLY, engine: "http" };
    const views = computeViews(createRenderContext(spec, page as never), ["markdown", "html"]);
    expect(views.markdown).toContain("[Pricing]");
  });
});
