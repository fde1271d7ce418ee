/**
 * The HTTP `Refresh` response header sends the reader on like `<meta http-equiv="refresh">`: a page that has it
 * (to another address, at once) goes to the browser, which follows it. Real Chromium, local fixture site.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { needsJavaScript } from "../../src/engines/browser/detect.ts";
import type { Page } from "../../src/engines/types.ts";
import { browserHarness, closeAndAssertNoChromium, scrape } from "../browser/helpers.ts";
import type { Harness } from "../helpers/harness.ts";

const ARTICLE = `<html><head><title>Target</title></head><body><main><h1>Target article</h1><p>${"The text the refresh leads to. ".repeat(20)}</p></main></body></html>`;
const html = (body: string, headers: Record<string, string> = {}) => new Response(body, { headers: { "content-type": "text/html; charset=utf-8", ...headers } });

let site: ReturnType<typeof Bun.serve>;
let h: Harness;

beforeAll(async () => {
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/moved") return html("<title>Moved</title><p>Redirecting...</p>", { refresh: "0; url=/target?via=refresh" });
      if (path === "/later") return html(`<title>Later</title><main><h1>Stay here</h1><p>${"Readable text. ".repeat(40)}</p></main>`, { refresh: "30; url=/target" });
      return html(ARTICLE);
    },
  });
  h = await browserHarness();
});
afterAll(async () => {
  await closeAndAssertNoChromium(h);
  site.stop(true);
});

const page = (headers: Record<string, string>, text = "<p>Redirecting...</p>") =>
  ({ finalUrl: "http://site.test/a", requestedUrl: "http://site.test/a", statusCode: 200, contentType: "text/html", headers, text, body: new Uint8Array(0), engine: "http", elapsedMs: 0 }) as Page;

describe("Refresh response header", () => {
  test("needsJavaScript: an immediate Refresh header to another page needs the browser, like the meta tag", () => {
    expect(needsJavaScript(page({ refresh: "0; url=/target" }))).toBe("Refresh header to another page");
    expect(needsJavaScript(page({ refresh: "1;URL='http://other.test/'" }))).toBe("Refresh header to another page");
    expect(needsJavaScript(page({ refresh: "30; url=/target" }))).toBeUndefined(); // later: the reader reads this page
    expect(needsJavaScript(page({ refresh: "0" }))).toBeUndefined(); // a reload of the page itself
    expect(needsJavaScript(page({ refresh: "0; url=/a#top" }))).toBeUndefined();
    expect(needsJavaScript(page({}))).toBeUndefined();
  });

  test("a page with `Refresh: 0; url=…` is scraped as the page it sends to", async () => {
    const { status, body } = await scrape(h, { url: `http://127.0.0.1:${site.port}/moved`, maxAge: 0 });
    expect(status).toBe(200);
    expect(body.data.markdown).toContain("# Target article");
    expect(body.data.markdown).not.toContain("Redirecting");
    expect(body.data.metadata.url).toBe(`http://127.0.0.1:${site.port}/target?via=refresh`);
    expect(body.data.metadata.sourceURL).toBe(`http://127.0.0.1:${site.port}/moved`);
    expect(body.data.metadata.engine).toBe("browser");
  });

  test("a Refresh a while later is not followed: the page is what the reader sees", async () => {
    const { body } = await scrape(h, { url: `http://127.0.0.1:${site.port}/later`, maxAge: 0 });
    expect(body.data.markdown).toContain("# Stay here");
    expect(body.data.metadata.engine).toBe("http");
  });
});
