/**
 * onlyMainContent on a page whose main content comes out empty (a hub of navigation links; a cookie banner and a
 * sidebar): the markdown falls back to the whole page's, as upstream does, on the main thread and on a real parse
 * worker alike; a page with real content and navigation keeps its main content only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createParsePool } from "../../src/scrape/parse-workers/pool.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";
import { startPageSite, type PageSite } from "../formats/pages.ts";

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
  site.set(
    "/article",
    `<!doctype html><html><head><title>Kettles</title></head><body><nav><a href="/shop">Shop</a> <a href="/help">Help</a></nav><main><h1>Kettles</h1><p>A long paragraph about kettles and how they boil water quickly and safely, with enough words to be the page's content.</p></main><footer>Footer links</footer></body></html>`,
  );
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

  test("a page with content and navigation keeps its main content only", async () => {
    const md = await markdownOf("/article");
    expect(md).toContain("kettles and how they boil");
    expect(md).not.toContain("Shop");
    expect(md).not.toContain("Footer links");
  });

  test("a parse worker falls back the same way", async () => {
    const pool = createParsePool({ size: 1, largePageChars: 0 });
    try {
      const options = { onlyMainContent: true, includeTags: [], excludeTags: [], removeBase64Images: true };
      const views = await pool.compute({ html: NAV_ONLY, pageUrl: `${site.url}/hub`, contentType: "text/html", options, views: ["markdown"] }, Date.now() + 10_000);
      expect(views.markdown).toContain(`[Pricing](${site.url}/pricing)`);
      // The request's own word on making markdown crosses to the worker: without markdown, html keeps the main content.
      const media = `<html><body><nav><a href="/a">A</a> <a href="/b">B</a></nav><main><video src="/v.mp4"></video></main></body></html>`;
      for (const makesMarkdown of [true, false]) {
        const html = await pool.compute({ html: media, pageUrl: `${site.url}/m`, contentType: "text/html", options: { ...options, makesMarkdown }, views: ["html"] }, Date.now() + 10_000);
        expect([makesMarkdown, html.html!.includes("<nav>")]).toEqual([makesMarkdown, makesMarkdown]);
      }
    } finally {
      await pool.close();
    }
  });
});
