/** `srcset` splitting (HTML standard "parse a srcset attribute") as the `html` and `images` formats see it. */
import { describe, expect, test } from "bun:test";
import { cleanHtml, parseHtml } from "../../src/pipeline/index.ts";
import { extractImages } from "../../src/pipeline/links.ts";
import { parseSrcset } from "../../src/pipeline/srcset.ts";

const BASE = "https://site.example/gallery/page.html";

describe("parseSrcset", () => {
  test.each([
    ["s1.png 1x,s2.png 2x", [["s1.png", ["1x"]], ["s2.png", ["2x"]]]],
    ["s1.png 1x, s2.png 2x", [["s1.png", ["1x"]], ["s2.png", ["2x"]]]],
    ["a.png, b.png 2x", [["a.png", []], ["b.png", ["2x"]]]],
    ["a.png,b.png 2x", [["a.png,b.png", ["2x"]]]], // a URL runs to whitespace: the spec keeps this comma in it
    ["a.png,,, b.png", [["a.png", []], ["b.png", []]]],
    [" ,a.png 100w\n,\tb.png 200w ", [["a.png", ["100w"]], ["b.png", ["200w"]]]],
    ["img.php?w=1,2 1x, c.png 2x", [["img.php?w=1,2", ["1x"]], ["c.png", ["2x"]]]],
    ["data:image/png;base64,AAAA 1x,d.png 2x", [["data:image/png;base64,AAAA", ["1x"]], ["d.png", ["2x"]]]],
    ["e.png 100w 50h,f.png 2x", [["e.png", ["100w", "50h"]], ["f.png", ["2x"]]]],
    ["g.png foo(a, b) 1x,h.png", [["g.png", ["foo(a, b)", "1x"]], ["h.png", []]]],
    ["", []],
    [" , ,", []],
  ])("%p", (srcset, expected) => {
    expect(parseSrcset(srcset).map((c) => [c.url, c.descriptors])).toEqual(expected as [string, string[]][]);
  });
});

describe("srcset without a space after the comma", () => {
  const html = `<html><body><p>Pictures of the gallery, with enough text to count as content here.</p>
    <img src="s1.png" srcset="s1.png 1x,s2.png 2x" alt="a"><picture><source srcset="p1.webp 1x,p2.webp 2x"><img src="p1.png" alt="b"></picture></body></html>`;

  test("the html format resolves every candidate", () => {
    const out = cleanHtml(parseHtml(html), { baseUrl: BASE, onlyMainContent: false, removeBase64Images: false });
    expect(out).toContain('srcset="https://site.example/gallery/s1.png 1x, https://site.example/gallery/s2.png 2x"');
    expect(out).toContain('srcset="https://site.example/gallery/p1.webp 1x, https://site.example/gallery/p2.webp 2x"');
  });

  test("the images format lists every candidate, and no 1x,… pseudo-URL", () => {
    const images = extractImages(parseHtml(html), BASE, false);
    expect(images).toEqual([
      "https://site.example/gallery/s1.png",
      "https://site.example/gallery/s2.png",
      "https://site.example/gallery/p1.png",
      "https://site.example/gallery/p1.webp",
      "https://site.example/gallery/p2.webp",
    ]);
  });
});

describe("a hostile srcset", () => {
  test("a candidate of 200,000 commas is read in linear time (a 40k-comma run took 0.7 s), with the same answer", () => {
    const t0 = performance.now();
    const out = parseSrcset(`a${",".repeat(200_000)}a,`);
    expect(performance.now() - t0).toBeLessThan(500);
    expect(out).toEqual([{ url: `a${",".repeat(200_000)}a`, descriptors: [] }]); // one URL (no space), its last comma dropped
    expect(parseSrcset("a.png,, b.png 2x")).toEqual([{ url: "a.png", descriptors: [] }, { url: "b.png", descriptors: ["2x"] }]);
  });
});
