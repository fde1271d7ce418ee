/**
 * Markup served as XML (XHTML, RSS, any +xml) keeps the text of its CDATA sections, on the main thread and on a
 * parse worker alike; HTML keeps the HTML rule (`<![CDATA[` is a bogus comment). Real parse workers.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { Page } from "../../src/engines/types.ts";
import { createParsePool } from "../../src/scrape/parse-workers/pool.ts";
import type { ViewOptions } from "../../src/scrape/parse-workers/protocol.ts";
import { createRenderContext } from "../../src/scrape/render-context.ts";
import type { ScrapeSpec } from "../../src/scrape/spec.ts";

const XHTML = `<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>XC</title></head><body><p><![CDATA[Hello <world> & friends from CDATA]]></p><p>after</p></body></html>`;
const RSS = `<?xml version="1.0"?><rss version="2.0"><channel><title>Feed</title><item><title><![CDATA[Item One & Co]]></title><description><![CDATA[<p>Desc <b>bold</b></p>]]></description></item></channel></rss>`;
const options: ViewOptions = { onlyMainContent: false, removeBase64Images: true, includeTags: [], excludeTags: [] };
const page = (text: string, contentType: string) => ({ finalUrl: "https://feed.example/x", requestedUrl: "https://feed.example/x", text, contentType }) as Page;
const render = (text: string, contentType: string) => createRenderContext(options as ScrapeSpec, page(text, contentType));

const pool = createParsePool({ size: 1, largePageChars: 0 });
afterAll(() => pool.close());

describe("CDATA in XML content types", () => {
  test.each(["application/xhtml+xml", "application/xml", "text/xml"])("%s: the section's text is kept, escaped, not parsed as markup", (type) => {
    const ctx = render(XHTML, type);
    expect(ctx.cleanedHtml()).toContain("<p>Hello &lt;world&gt; &amp; friends from CDATA</p>");
    expect(ctx.markdown()).toContain("Hello <world> & friends from CDATA");
    expect(ctx.markdown()).toContain("after");
  });

  test("application/rss+xml: titles and descriptions in CDATA survive", () => {
    const ctx = render(RSS, "application/rss+xml");
    expect(ctx.markdown()).toContain("Item One & Co");
    expect(ctx.markdown()).toContain("<p>Desc <b>bold</b></p>"); // the escaped HTML of the description, as text
  });

  test("text/html keeps the HTML rule: `<![CDATA[` is a bogus comment, what follows is markup", () => {
    const ctx = render(XHTML, "text/html");
    expect(ctx.cleanedHtml()).toContain("<p>Hello <world>"); // as a browser parses it: <world> is an element
    expect(ctx.cleanedHtml()).not.toContain("&lt;world&gt;");
    expect(ctx.markdown()).toContain("after");
  });

  test("a parse worker applies the same rule (the content type travels with the page)", async () => {
    for (const [text, type] of [[XHTML, "application/xhtml+xml"], [RSS, "application/rss+xml"], [XHTML, "text/html"]] as const) {
      const views = await pool.compute({ html: text, pageUrl: "https://feed.example/x", contentType: type, options, views: ["markdown", "html"] });
      const main = render(text, type);
      expect({ type, markdown: views.markdown, html: views.html }).toEqual({ type, markdown: main.markdown(), html: main.cleanedHtml() });
    }
    const xhtml = await pool.compute({ html: XHTML, pageUrl: "https://feed.example/x", contentType: "application/xhtml+xml", options, views: ["markdown"] });
    expect(xhtml.markdown).toContain("Hello <world> & friends from CDATA");
    expect(pool.stats().offloaded).toBe(4);
  });
});
