/**
 * Metadata fields the SDKs type as one string, and the icon and share images a page names (src/pipeline/metadata.ts,
 * links.ts). Found on the dataset pages: `language` was an array on 5 of 682 (`["en", "English"]`: `<html lang>` and
 * a `<meta name="language">`); 3 pages without `<title>` had no title though `og:title` named them (upstream falls
 * back); 66 pages reported their 180 px apple-touch-icon as favicon though a `rel="icon"` followed; share images
 * named `og:image:secure_url` (Shopify) or `twitter:image:src` were missing from `images`; and 40,000 repeats of a
 * meta name took 3 to 8 s (a dedup by `Array.includes`).
 */
import { describe, expect, test } from "bun:test";
import { parseHtml } from "../../src/pipeline/index.ts";
import { extractImages } from "../../src/pipeline/links.ts";
import { extractMetadata } from "../../src/pipeline/metadata.ts";

const PAGE = "https://shop.example/p";
const meta = (head: string, attrs = "") => extractMetadata(parseHtml(`<html${attrs}><head>${head}</head><body><p>x</p></body></html>`), PAGE) as Record<string, unknown>;

describe("string fields stay strings", () => {
  test("language: <html lang>, else Content-Language, else <meta name=language>; never an array", () => {
    expect(meta('<meta name="language" content="English">', ' lang="en"').language).toBe("en");
    expect(meta('<meta name="language" content="English"><meta http-equiv="content-language" content="en-GB">').language).toBe("en-GB");
    expect(meta('<meta name="language" content="English">').language).toBe("English");
  });

  test("title: <title>, else og:title, twitter:title, <meta name=title>", () => {
    expect(meta('<title>Own</title><meta property="og:title" content="OG">').title).toBe("Own");
    expect(meta('<meta name="twitter:title" content="Tw"><meta property="og:title" content="OG  title">').title).toBe("OG title");
    expect(meta('<meta name="twitter:title" content="Tw">').title).toBe("Tw");
    expect(meta('<meta name="title" content="Named">').title).toBe("Named");
  });

  test("favicon: rel=icon before an apple-touch-icon that comes first", () => {
    expect(meta('<link rel="apple-touch-icon" href="/touch-180.png"><link rel="icon" href="/favicon-32.png">').favicon).toBe("https://shop.example/favicon-32.png");
    expect(meta('<link rel="apple-touch-icon" href="/touch-180.png">').favicon).toBe("https://shop.example/touch-180.png");
    expect(meta('<link rel="shortcut icon" href="/f.ico">').favicon).toBe("https://shop.example/f.ico");
  });

  test("a repeated name is linear: 40,000 distinct values in well under a second", () => {
    const head = Array.from({ length: 40_000 }, (_, i) => `<meta name="x" content="v${i}">`).join("");
    const doc = parseHtml(`<html><head>${head}</head><body></body></html>`);
    const started = performance.now();
    const m = extractMetadata(doc, PAGE) as Record<string, string[]>;
    expect(performance.now() - started).toBeLessThan(1000); // was 3.1 s
    expect(m.x!.length).toBe(40_000);
  });
});

describe("share images", () => {
  test("og:image:secure_url, og:image:url, twitter:image:src and itemprop=image are listed", () => {
    const doc = parseHtml(
      `<html><head><meta property="og:image:secure_url" content="https://cdn.example/og.jpg"><meta property="og:image:url" content="/og-url.jpg">` +
        `<meta name="twitter:image:src" content="/tw.jpg"><meta itemprop="image" content="/schema.jpg"></head><body></body></html>`,
    );
    expect(extractImages(doc, PAGE, false)).toEqual(["https://cdn.example/og.jpg", "https://shop.example/og-url.jpg", "https://shop.example/tw.jpg", "https://shop.example/schema.jpg"]);
  });
});
