/**
 * A `<base href>` whose URL has a `data:` or `javascript:` scheme is ignored (HTML "set the frozen base URL", step
 * 3: the document's fallback base URL is used instead), as Chromium ignores it: document.baseURI stays the page's
 * URL. crawlbox resolved links against it, which fails for every relative link, so `links` and `images` came back
 * empty and a crawl found nothing to follow. Other schemes (`ftp:`, `about:`) are still honoured, as in browsers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cleanHtml, parseHtml } from "../../src/pipeline/index.ts";
import { extractImages, extractLinks } from "../../src/pipeline/links.ts";
import { documentBaseUrl } from "../../src/pipeline/url.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const PAGE = "https://site.example/dir/page.html";
const pageWithBase = (href: string, extra = "") =>
  `<html><head><base href="${href}">${extra}</head><body><main><p>${"Words here. ".repeat(30)}</p><a href="page2">p2</a><a href="/root">root</a><img src="img.png"></main></body></html>`;

describe("document base URL", () => {
  test.each(["javascript:alert(1)//", "JavaScript:void(0)", "data:text/html,x", " DATA:,x"])("%p is ignored: links resolve against the page", (href) => {
    const doc = parseHtml(pageWithBase(href));
    expect(documentBaseUrl(doc, PAGE)).toBe(PAGE);
    expect(extractLinks(doc, documentBaseUrl(doc, PAGE))).toEqual(["https://site.example/dir/page2", "https://site.example/root"]);
    expect(extractImages(doc, documentBaseUrl(doc, PAGE), false)).toEqual(["https://site.example/dir/img.png"]);
    expect(cleanHtml(doc, { baseUrl: PAGE, onlyMainContent: false, removeBase64Images: true })).toContain('href="https://site.example/dir/page2"');
  });

  test("a later valid <base> does not take over: only the first with an href counts", () => {
    const doc = parseHtml(pageWithBase("javascript:x", '<base href="https://other.example/">'));
    expect(documentBaseUrl(doc, PAGE)).toBe(PAGE);
  });

  test("other schemes and relative bases are honoured as before", () => {
    expect(documentBaseUrl(parseHtml(pageWithBase("ftp://ftp.example.com/d/")), PAGE)).toBe("ftp://ftp.example.com/d/");
    expect(documentBaseUrl(parseHtml(pageWithBase("sub/")), PAGE)).toBe("https://site.example/dir/sub/");
    expect(documentBaseUrl(parseHtml(pageWithBase("http://[bad")), PAGE)).toBe(PAGE);
    expect(documentBaseUrl(parseHtml(pageWithBase("")), PAGE)).toBe(PAGE);
  });
});

describe("through the API", () => {
  let h: Harness;
  let site: ReturnType<typeof Bun.serve>;
  beforeAll(async () => {
    site = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (req) => new Response(pageWithBase(new URL(req.url).searchParams.get("b") ?? ""), { headers: { "content-type": "text/html" } }),
    });
    h = await createHarness();
  });
  afterAll(async () => {
    await h.close();
    site.stop(true);
  });

  test("a scrape of a page with <base href=\"javascript:…\"> lists its links and images", async () => {
    const origin = `http://127.0.0.1:${site.port}`;
    const url = `${origin}/d/base?b=${encodeURIComponent("javascript:alert(1)//")}`;
    const res = await h.request("/v2/scrape", { method: "POST", json: { url, formats: ["links", "images", "markdown"], onlyMainContent: false, maxAge: 0 } });
    expect(res.status).toBe(200);
    const data = ((await res.json()) as any).data;
    expect(data.links).toEqual([`${origin}/d/page2`, `${origin}/root`]);
    expect(data.images).toEqual([`${origin}/d/img.png`]);
    expect(data.markdown).toContain(`[p2](${origin}/d/page2)`);
  });
});
