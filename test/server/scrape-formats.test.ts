/**
 * `POST /v2/scrape`'s formats on the fixture site: markdown, html, rawHtml, links, images, attributes, `<base href>`,
 * includeTags/excludeTags, text and binary pages, rawBase64. Set-up in scrape-site.ts.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { ARTICLE_HTML, type FixtureSite } from "../fixtures/site.ts";
import { useScrapeSite } from "./scrape-site.ts";

const ctx = useScrapeSite();
let site: FixtureSite;
beforeAll(() => ({ site } = ctx));
const { scrape } = ctx;

describe("POST /v2/scrape formats", () => {
  test("markdown by default: main content only, GFM table, fenced code with language, absolute links", async () => {
    const { status, body } = await scrape({ url: `${site.url}/article` });
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    const md: string = body.data.markdown;
    expect(md).toContain("# Growing Tomatoes Indoors");
    expect(md).toContain("## Light and temperature");
    expect(md).toMatch(/\|\s*Stage\s*\|\s*Hours of light\s*\|\s*Temperature\s*\|/);
    expect(md).toMatch(/\|\s*-+\s*\|/);
    expect(md).toContain("```javascript");
    expect(md).toContain("console.log");
    expect(md).toContain(`[guide to grow lamps](${site.url}/guides/lamps)`);
    expect(md).toMatch(/\*\*eight hours\*\*/);
    expect(md).toMatch(/[_*]steady warmth[_*]/);
    expect(md).toMatch(/[-*] Water in the morning/);
    expect(md).not.toContain("SCRIPT_SHOULD_NOT_APPEAR");
    expect(md).not.toContain("color: red");
    expect(md).not.toContain("All rights reserved");
    expect(md).not.toContain("Ten best shovels");
    expect(md).not.toContain("About us");
    expect(md).not.toContain("base64");
    expect(body.data.html).toBeUndefined();
    expect(body.data.rawHtml).toBeUndefined();
  });

  test("onlyMainContent:false keeps the boilerplate", async () => {
    const { body } = await scrape({ url: `${site.url}/article`, onlyMainContent: false });
    expect(body.data.markdown).toContain("All rights reserved");
    expect(body.data.markdown).toContain("About us");
    expect(body.data.markdown).toContain("Growing Tomatoes Indoors");
  });

  test("html is cleaned and absolute; rawHtml is the page as served", async () => {
    const { body } = await scrape({ url: `${site.url}/article`, formats: ["html", "rawHtml"] });
    expect(body.data.rawHtml).toBe(ARTICLE_HTML);
    expect(body.data.html).toContain("Growing Tomatoes Indoors");
    expect(body.data.html).not.toContain("<script");
    expect(body.data.html).not.toContain("<style");
    expect(body.data.html).toContain(`href="${site.url}/guides/lamps"`);
    expect(body.data.markdown).toBeUndefined();
  });

  test("links: absolute, deduplicated, mailto kept, fragments dropped", async () => {
    const { body } = await scrape({ url: `${site.url}/article`, formats: ["links"] });
    const links: string[] = body.data.links;
    expect(links).toContain(`${site.url}/guides/lamps`);
    expect(links).toContain("https://external.example.org/research");
    expect(links).toContain(`${site.url}/about`);
    expect(links).toContain("mailto:grow@example.org");
    expect(links.some((l) => l.includes("#top"))).toBe(false);
    expect(new Set(links).size).toBe(links.length);
  });

  test("a relative <base href> applies once, the same in markdown, html, links and images", async () => {
    const { body } = await scrape({ url: `${site.url}/docs/relative-base.html`, formats: ["markdown", "html", "links", "images"], onlyMainContent: false });
    const chapter = `${site.url}/docs/sub/c.html`;
    const figure = `${site.url}/docs/sub/img/fig.png`;
    expect(body.data.markdown).toContain(`[the chapter](${chapter})`);
    expect(body.data.markdown).toContain(`![figure](${figure})`);
    expect(body.data.html).toContain(`href="${chapter}"`);
    expect(body.data.html).toContain(`src="${figure}"`);
    expect(body.data.links).toContain(chapter);
    expect(body.data.images).toContain(figure);
  });

  test("a <base href> in the body counts (first one with an href, as in browsers)", async () => {
    const { body } = await scrape({ url: `${site.url}/docs/body-base.html`, formats: ["markdown", "links"], onlyMainContent: false });
    expect(body.data.markdown).toContain(`[the next page](${site.url}/elsewhere/d.html)`);
    expect(body.data.links).toContain(`${site.url}/elsewhere/d.html`);
  });

  test("images: absolute URLs; base64 images only when removeBase64Images is false", async () => {
    const a = await scrape({ url: `${site.url}/article`, formats: ["images"] });
    expect(a.body.data.images).toContain(`${site.url}/images/plant.jpg`);
    expect(a.body.data.images).toContain(`${site.url}/img/og.jpg`);
    expect(a.body.data.images.some((i: string) => i.startsWith("data:"))).toBe(false);
    const b = await scrape({ url: `${site.url}/article`, formats: ["images"], removeBase64Images: false, maxAge: 0 });
    expect(b.body.data.images.some((i: string) => i.startsWith("data:image/png"))).toBe(true);
  });

  test("removeBase64Images keeps the alt text", async () => {
    const { body } = await scrape({ url: `${site.url}/article` });
    expect(body.data.markdown).toContain("Seedlings under a lamp");
    expect(body.data.markdown).not.toContain("iVBORw0KGgo");
  });

  test("scrape_id at the top level only for an origin naming the website, as upstream", async () => {
    const web = await scrape({ url: `${site.url}/article`, origin: "website", maxAge: 0 });
    expect(web.body.scrape_id).toBe(web.body.data.metadata.scrapeId);
    const api = await scrape({ url: `${site.url}/article`, origin: "js-sdk@4.42.0", maxAge: 0 });
    expect("scrape_id" in api.body).toBe(false);
  });

  test("attributes format", async () => {
    const { status, body } = await scrape({
      url: `${site.url}/article`,
      formats: [{ type: "attributes", selectors: [{ selector: ".product", attribute: "data-sku" }, { selector: "meta[name=author]", attribute: "content" }] }],
    });
    expect(status).toBe(200);
    expect(body.data.attributes).toEqual([
      { selector: ".product", attribute: "data-sku", values: ["T-100", "T-200"] },
      { selector: "meta[name=author]", attribute: "content", values: ["Ada Gardener"] },
    ]);
  });

  test("an invalid attributes selector is a 400 before anything is fetched", async () => {
    const before = site.hits.get("/article") ?? 0;
    const { status, body } = await scrape({ url: `${site.url}/article`, formats: ["markdown", { type: "attributes", selectors: [{ selector: "a", attribute: "href" }, { selector: "div[[", attribute: "x" }] }] });
    expect(status).toBe(400);
    expect(body.success).toBe(false);
    expect(body.code).toBe("BAD_REQUEST");
    // In the shape of every other 400's details: the format by its index in the request.
    expect(body.details.map((d: any) => [d.code, d.path])).toEqual([["custom", ["formats", 1, "selectors", 1, "selector"]]]);
    expect(body.details[0].message).toStartWith("Invalid CSS selector: div[[");
    expect(site.hits.get("/article") ?? 0).toBe(before);
  });

  test("includeTags keeps only matching elements; excludeTags removes them (tags, classes, ids)", async () => {
    const inc = await scrape({ url: `${site.url}/article`, includeTags: ["table"], maxAge: 0 });
    expect(inc.body.data.markdown).toContain("Flowering");
    expect(inc.body.data.markdown).not.toContain("south-facing window");
    const exc = await scrape({ url: `${site.url}/article`, excludeTags: [".lead", "table", "#main-nav"], onlyMainContent: false, maxAge: 0 });
    expect(exc.body.data.markdown).not.toContain("eight hours");
    expect(exc.body.data.markdown).not.toContain("Flowering");
    expect(exc.body.data.markdown).not.toContain("About us");
    expect(exc.body.data.markdown).toContain("Watering schedule");
  });

  test("plain text pages are returned as text", async () => {
    const { body } = await scrape({ url: `${site.url}/text`, formats: ["markdown", "html"] });
    expect(body.data.markdown).toBe("plain text line one\nline two");
    expect(body.data.html).toContain("<pre>plain text line one");
  });

  test("a binary page gives SCRAPE_UNSUPPORTED_FILE_ERROR", async () => {
    const { status, body } = await scrape({ url: `${site.url}/binary` });
    expect(status).toBe(422);
    expect(body.code).toBe("SCRAPE_UNSUPPORTED_FILE_ERROR");
  });

  test("rawBase64: the body exactly as fetched, any content type, one credit; only as the sole format", async () => {
    const bin = await scrape({ url: `${site.url}/binary`, formats: ["rawBase64"] });
    expect(bin.status).toBe(200);
    expect([...Buffer.from(bin.body.data.rawBase64, "base64")]).toEqual([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00]);
    expect(bin.body.data.markdown).toBeUndefined();
    expect(bin.body.data.metadata).toMatchObject({ statusCode: 200, creditsUsed: 1, contentType: "application/octet-stream" });
    const sjis = await scrape({ url: `${site.url}/sjis`, formats: ["rawBase64"], maxAge: 0 });
    const bytes = Buffer.from(sjis.body.data.rawBase64, "base64");
    expect(bytes.includes(0x82)).toBe(true); // Shift_JIS bytes, not re-encoded text
    const mixed = await scrape({ url: `${site.url}/article`, formats: ["rawBase64", "markdown"] });
    expect(mixed.status).toBe(400);
  });
});
