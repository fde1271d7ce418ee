/**
 * lazysizes' responsive images (pipeline/lazy-images.ts): `<img data-srcset>` and `<picture><source data-srcset>`
 * keep the picture in `data-srcset` until the library's script copies it to `srcset`. They were missing from the
 * `images` format, the `html` format kept `data-srcset` with relative URLs and no `src`, and `markdown` dropped
 * the image. Through the API too, against a local page.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cleanHtml, htmlToMarkdown, parseHtml } from "../../src/pipeline/index.ts";
import { imageSource, largestCandidate } from "../../src/pipeline/lazy-images.ts";
import { extractImages } from "../../src/pipeline/links.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

const BASE = "https://site.example/gallery/";
const PLACEHOLDER = "data:image/gif;base64,R0lGODlhAQABAAAAACw=";
const html = `<html><body><main><p>Photos of the bridge at dawn and at night, taken from the east bank of the river.</p>
  <img data-srcset="set-1.png 1x, set-2.png 2x" class="lazyload" alt="set">
  <img srcset="${PLACEHOLDER}" data-lazy-srcset="/wide-320.png 320w, /wide-1280.png 1280w, /wide-640.png 640w" alt="wide">
  <picture><source srcset="pic.webp" type="image/webp"><source data-srcset="pic-lazy.avif" type="image/avif"><img src="pic.jpg" alt="pic"></picture>
  </main></body></html>`;

describe("lazysizes data-srcset", () => {
  test("images lists every candidate of data-srcset and data-lazy-srcset, img and picture source alike", () => {
    const images = extractImages(parseHtml(html), BASE, false);
    for (const url of ["set-1.png", "set-2.png", "pic-lazy.avif", "pic.webp", "pic.jpg"]) expect(images).toContain(BASE + url);
    for (const url of ["wide-320.png", "wide-1280.png", "wide-640.png"]) expect(images).toContain(`https://site.example/${url}`);
  });

  test("an img with only a lazy srcset shows its largest candidate as src, as upstream picks the biggest image", () => {
    const doc = parseHtml(html);
    const [set, wide] = Array.from(doc.querySelectorAll("img"));
    expect(imageSource(set!)).toBe("set-2.png");
    expect(imageSource(wide!)).toBe("/wide-1280.png");
    expect(largestCandidate(`${PLACEHOLDER} 4x, a.png, b.png 1.5x`)).toBe("b.png");
    expect(largestCandidate(PLACEHOLDER)).toBeUndefined();
  });

  test("html: the lazy srcset becomes the srcset (absolute, replacing a data: stand-in), data-srcset is absolute too", () => {
    const cleaned = cleanHtml(parseHtml(html), { baseUrl: BASE, onlyMainContent: false, removeBase64Images: true });
    expect(cleaned).toContain(`data-srcset="${BASE}set-1.png 1x, ${BASE}set-2.png 2x"`);
    expect(cleaned).toContain(`src="${BASE}set-2.png" srcset="${BASE}set-1.png 1x, ${BASE}set-2.png 2x">`);
    expect(cleaned).toContain(`<img srcset="https://site.example/wide-320.png 320w, https://site.example/wide-1280.png 1280w, https://site.example/wide-640.png 640w"`);
    expect(cleaned).toContain(`<source data-srcset="${BASE}pic-lazy.avif" type="image/avif" srcset="${BASE}pic-lazy.avif">`);
    expect(cleaned).not.toContain("data:image");
    expect(cleaned).not.toMatch(/srcset="(?!https:)/);
  });

  test("markdown shows the lazily loaded images", () => {
    const md = htmlToMarkdown(cleanHtml(parseHtml(html), { baseUrl: BASE, onlyMainContent: false, removeBase64Images: true }));
    expect(md).toContain(`![set](${BASE}set-2.png)`);
    expect(md).toContain("![wide](https://site.example/wide-1280.png)");
    expect(md).toContain(`![pic](${BASE}pic.jpg)`);
  });

  test("an img with a real src keeps it; a lazy srcset does not replace a real srcset", () => {
    const doc = parseHtml(`<img src="real.png" srcset="r-1.png 1x, r-2.png 2x" data-srcset="lazy.png 2x">`);
    const img = doc.querySelector("img")!;
    expect(imageSource(img)).toBe("real.png");
    const cleaned = cleanHtml(doc, { baseUrl: BASE, onlyMainContent: false, removeBase64Images: true });
    expect(cleaned).toContain(`src="${BASE}real.png" srcset="${BASE}r-1.png 1x, ${BASE}r-2.png 2x" data-srcset="${BASE}lazy.png 2x"`);
  });
});

describe("images without src (valid HTML: the browser picks a srcset candidate)", () => {
  const page = `<main><p>Our river photographs, one for each season of the year, all taken from the same spot.</p>
    <img srcset="/s-320.jpg 320w, /s-640.jpg 640w" alt="srcset only">
    <picture><source srcset="/only-source.webp" type="image/webp"><img alt="src-less"></picture>
    <picture><source media="(min-width: 800px)" srcset="${PLACEHOLDER}"><source srcset="/second.avif 1x, /second-2x.avif 2x"><img src="" alt="empty src"></picture></main>`;

  test("markdown shows the largest own srcset candidate, else the first picture source's (they had their alt text only)", () => {
    const md = htmlToMarkdown(cleanHtml(parseHtml(page), { baseUrl: BASE, onlyMainContent: false, removeBase64Images: true }));
    expect(md).toContain("![srcset only](https://site.example/s-640.jpg)");
    expect(md).toContain("![src-less](https://site.example/only-source.webp)");
    expect(md).toContain("![empty src](https://site.example/second-2x.avif)");
  });

  test("a placeholder src with a real srcset shows the srcset's picture; a real src is never replaced", () => {
    const doc = parseHtml(`<img src="${PLACEHOLDER}" srcset="a-1.png 1x, a-2.png 2x"><picture><source srcset="s.webp"><img src="real.jpg"></picture>`);
    const [placeholder, real] = Array.from(doc.querySelectorAll("img"));
    expect(imageSource(placeholder!)).toBe("a-2.png");
    expect(imageSource(real!)).toBe("real.jpg");
    // A source for small screens (`media`) gives way to one without a condition, as a desktop browser picks.
    const picture = parseHtml('<picture><source media="(max-width:600px)" srcset="m.jpg"><source srcset="d.jpg"><img alt="x"></picture>');
    expect(imageSource(picture.querySelector("img")!)).toBe("d.jpg");
  });
});

describe("through the API", () => {
  let h: Harness;
  let site: ReturnType<typeof Bun.serve>;
  beforeAll(async () => {
    site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(html, { headers: { "content-type": "text/html" } }) });
    h = await createHarness();
  });
  afterAll(async () => {
    await h.close();
    site.stop(true);
  });

  test("images, html and markdown of a scrape carry the lazysizes images", async () => {
    const base = `http://127.0.0.1:${site.port}/gallery/`;
    const res = await h.request("/v2/scrape", { method: "POST", json: { url: base, formats: ["images", "html", "markdown"], maxAge: 0 } });
    expect(res.status).toBe(200);
    const data = ((await res.json()) as any).data;
    expect(data.images).toEqual(expect.arrayContaining([`${base}set-1.png`, `${base}set-2.png`, `${base}pic-lazy.avif`]));
    expect(data.html).toContain(`data-srcset="${base}set-1.png 1x, ${base}set-2.png 2x"`);
    expect(data.markdown).toContain(`![set](${base}set-2.png)`);
  });
});
