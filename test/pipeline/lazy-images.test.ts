/**
 * Lazy-loaded images (pipeline/lazy-images.ts): the `images` format lists the URL every lazy-loading attribute
 * holds, as the `html` format of the same scrape shows it as the image's `src` (it listed `data-src` only, so
 * `data-lazy-src` and `data-original` pictures were in the html and missing from `images`).
 */
import { describe, expect, test } from "bun:test";
import { cleanHtml, htmlToMarkdown, parseHtml } from "../../src/pipeline/index.ts";
import { extractImages } from "../../src/pipeline/links.ts";

const BASE = "https://site.example/gallery/";
const PLACEHOLDER = "data:image/gif;base64,R0lGODlhAQABAAAAACw=";
const html = `<html><body><main><p>Photos of the bridge at dawn and at night, taken from the east bank.</p>
  <img src="${PLACEHOLDER}" data-src="/a.png" alt="a"><img data-lazy-src="/b.png" alt="b"><img src="" data-original="/c.png" alt="c">
  <img src="/d.png" data-lazy="/d-large.png" alt="d"></main></body></html>`;

describe("lazy-loaded images", () => {
  test("images lists what each lazy-loading attribute holds", () => {
    expect(extractImages(parseHtml(html), BASE, false)).toEqual([
      "https://site.example/a.png",
      "https://site.example/b.png",
      "https://site.example/c.png",
      "https://site.example/d.png",
      "https://site.example/d-large.png",
    ]);
  });

  test("every image the html format shows is in the images format", () => {
    const cleaned = cleanHtml(parseHtml(html), { baseUrl: BASE, onlyMainContent: false, removeBase64Images: true });
    const shown = [...cleaned.matchAll(/<img[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]);
    expect(shown).toEqual(["https://site.example/a.png", "https://site.example/b.png", "https://site.example/c.png", "https://site.example/d.png"]);
    const listed = extractImages(parseHtml(html), BASE, false);
    for (const url of shown) expect(listed).toContain(url!);
  });

  test("a lazy attribute that is no URL (JSON, a word) and src='#' give no image (they resolved into garbage URLs)", () => {
    const page = `<main><p>Photos.</p><img src="/real.png" data-src='{"default":"//img.example/a.jpg"}' alt="msn"><img data-src="Facebook" alt="word"><img src="#" alt="hash"><img data-src="pics/ok.jpg" alt="ok"></main>`;
    expect(extractImages(parseHtml(page), BASE, false)).toEqual(["https://site.example/real.png", "https://site.example/gallery/pics/ok.jpg"]);
    const md = htmlToMarkdown(cleanHtml(parseHtml(page), { baseUrl: BASE, onlyMainContent: false, removeBase64Images: true }));
    expect(md).not.toContain("Facebook)");
    expect(md).toContain("![ok](https://site.example/gallery/pics/ok.jpg)");
  });
});
