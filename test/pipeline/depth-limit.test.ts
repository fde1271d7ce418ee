/**
 * Deeply nested pages (pipeline/depth-limit.ts): 15,000 nested `<div>`s overflowed the call stack of the recursive
 * stages (main content, markdown) and a scrape answered 500 UNKNOWN_ERROR; 100,000 levels do the same for every
 * stage. Elements below 256 levels keep their text; ordinary pages (nesting about a hundred) are untouched.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { limitDepth, MAX_DOM_DEPTH } from "../../src/pipeline/depth-limit.ts";
import { cleanHtml, htmlToMarkdown, parseHtml } from "../../src/pipeline/index.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const nested = (depth: number, inner: string) => `<html><body><main><h1>Deep</h1><p>An introduction of the page, long enough to be content.</p>${"<div>".repeat(depth)}${inner}${"</div>".repeat(depth)}</main></body></html>`;

describe("nesting depth", () => {
  test("100,000 nested elements: markdown of the page, with the deepest text, with and without main content", () => {
    const html = nested(100_000, "<p>The <a href='/x'>deepest</a> text.</p>");
    for (const onlyMainContent of [true, false]) {
      const md = htmlToMarkdown(cleanHtml(parseHtml(html), { baseUrl: "https://site.test/", onlyMainContent, removeBase64Images: true }));
      expect(md).toContain("# Deep");
      expect(md).toContain("The deepest text.");
    }
  });

  test("a flattened element keeps what a reader sees: no script or style text, blocks apart", () => {
    const inner = `<p>First para</p><script>var token = "SECRET_JS";</script><style>.x{color:red}</style><div><p>second para</p></div>`;
    const md = htmlToMarkdown(cleanHtml(parseHtml(nested(300, inner)), { baseUrl: "https://site.test/", onlyMainContent: false, removeBase64Images: true }));
    expect(md).toContain("First para second para");
    expect(md).not.toContain("SECRET_JS");
    expect(md).not.toContain("color:red");
  });

  test("a page nesting less than the limit keeps all its markup", () => {
    const doc = parseHtml(nested(MAX_DOM_DEPTH - 10, "<p>Deep <a href='/x'>link</a></p>"));
    expect(doc.querySelector("a")?.getAttribute("href")).toBe("/x");
    expect(limitDepth(doc.documentElement)).toBe(0);
  });

  describe("through POST /v2/scrape", () => {
    let h: Harness;
    let site: ReturnType<typeof Bun.serve>;
    beforeAll(async () => {
      site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(nested(50_000, "<p>Bottom of the page.</p>"), { headers: { "content-type": "text/html" } }) });
      h = await createHarness();
    });
    afterAll(async () => {
      await h.close();
      site.stop(true);
    });

    test("50,000 nested divs: 200 with the markdown, not a 500", async () => {
      const res = await h.request("/v2/scrape", { method: "POST", json: { url: `http://127.0.0.1:${site.port}/deep`, formats: ["markdown", "html", "links"] } });
      const body = (await res.json()) as any;
      expect(res.status).toBe(200);
      expect(body.data.markdown).toContain("Bottom of the page.");
    });
  });
});
