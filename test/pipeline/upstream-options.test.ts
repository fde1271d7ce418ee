/**
 * Scrape options and metadata read as upstream reads them (found by a compatibility review): blank `includeTags`
 * entries are dropped, `body`/`html` include the whole body, `onlyMainContent` strips upstream's furniture list inside
 * the included elements, a repeated description is one string, `attributes` falls back to `data-*`, and a format's
 * `schema: null` (the Python SDK's) is accepted as absent.
 */
import { describe, expect, test } from "bun:test";
import { parseScrapeBody } from "../../src/api/scrape.ts";
import { extractAttributes } from "../../src/pipeline/attributes.ts";
import { extractMetadata } from "../../src/pipeline/metadata.ts";
import { cleanHtml, htmlToMarkdown, parseHtml, type CleanOptions } from "../../src/pipeline/index.ts";

const BASE = "https://news.example.com/story.html";
const markdown = (html: string, opts: Partial<CleanOptions> = {}) =>
  htmlToMarkdown(cleanHtml(parseHtml(html), { baseUrl: BASE, onlyMainContent: true, removeBase64Images: true, ...opts }));

const PAGE = `<html><head><title>T</title></head><body>
  <nav><a href="/">Home</a> <a href="/news">News</a></nav>
  <main><article>
    <h1>Story</h1>
    <div class="breadcrumbs">Home / News</div>
    <p>Body text of the story, long enough to be the content of this page and more.</p>
    <div class="share">Share on X</div>
    <div id="main-wrap" class="widget"><div id="main"><p>Kept: it holds #main.</p></div></div>
    <footer>Article footer</footer>
  </article></main>
  <footer>Site footer</footer>
</body></html>`;

describe("includeTags", () => {
  test("blank entries are dropped: [\"\"] is no includeTags at all, not an empty page", () => {
    const plain = markdown(PAGE);
    expect(plain).toContain("Body text of the story");
    expect(markdown(PAGE, { includeTags: [""] })).toBe(plain);
    expect(markdown(PAGE, { includeTags: ["  ", ""] })).toBe(plain);
    expect(markdown(PAGE, { includeTags: ["", "h1"] })).toBe("# Story");
  });

  test("body and html keep the whole body", () => {
    for (const tag of ["body", "html", "BODY"]) {
      const md = markdown(PAGE, { includeTags: [tag], onlyMainContent: false });
      expect(md).toContain("Site footer");
      expect(md).toContain("Body text of the story");
    }
  });

  test("with onlyMainContent, upstream's furniture inside the included elements goes; the element asked for stays", () => {
    const md = markdown(PAGE, { includeTags: ["article"] });
    expect(md).toContain("# Story");
    expect(md).toContain("Body text of the story");
    expect(md).toContain("Kept: it holds #main.");
    for (const gone of ["Home / News", "Share on X", "Article footer", "Site footer"]) expect(md).not.toContain(gone);
    // Named by the caller, the furniture element itself is kept, its inner furniture not.
    expect(markdown(PAGE, { includeTags: ["footer"] })).toBe("Article footer\n\nSite footer");
    // Without onlyMainContent, everything included stays.
    expect(markdown(PAGE, { includeTags: ["article"], onlyMainContent: false })).toContain("Share on X");
  });
});

describe("metadata and attributes", () => {
  test("a repeated description (or robots) is one string, joined with ', '; other repeated names stay arrays", () => {
    const doc = parseHtml(`<html><head><meta name="description" content="First."><meta name="description" content="Second."><meta name="robots" content="index"><meta name="robots" content="follow"><meta name="x" content="a"><meta name="x" content="b"></head><body></body></html>`);
    const meta = extractMetadata(doc, BASE);
    expect(meta.description).toBe("First., Second.");
    expect(meta.robots).toBe("index, follow");
    expect(meta.x).toEqual(["a", "b"]);
  });

  test("an attribute an element lacks is read from its data- form", () => {
    const doc = parseHtml(`<div class="p" data-price="9.99"></div><div class="p" price="5"></div><div class="p"></div><div class="q" data-data-x="1"></div>`);
    expect(extractAttributes(doc, [{ selector: ".p", attribute: "price" }])[0]!.values).toEqual(["9.99", "5"]);
    // An attribute already named data-… has no second form.
    expect(extractAttributes(doc, [{ selector: ".q", attribute: "data-x" }])[0]!.values).toEqual([]);
  });
});

describe("formats", () => {
  test("sourceURL is the URL as sent less the blanks around it, with or without a scheme", () => {
    expect(parseScrapeBody({ url: "  https://Example.com/A?b=1 " }).sourceURL).toBe("https://Example.com/A?b=1");
    expect(parseScrapeBody({ url: " example.com/A " }).sourceURL).toBe("http://example.com/A");
  });

  test("json and changeTracking accept schema: null as no schema (the Python SDK sends it)", () => {
    const r = parseScrapeBody({ url: "https://example.com", formats: [{ type: "json", prompt: "Extract a", schema: null }, "markdown", { type: "changeTracking", schema: null }] });
    expect(r.scrapeOptions.formats[0]).toEqual({ type: "json", prompt: "Extract a" });
    expect("schema" in r.scrapeOptions.formats[2]!).toBe(false);
  });
});
