/**
 * HTML attribute names are case-insensitive: a browser's tokenizer lower-cases them, and so does crawlbox's parse
 * (scripts/patches/linkedom, `lowerCaseAttributeNames` in HTML). linkedom kept them as written, so `<A HREF>`,
 * React's `<img srcSet>`, eBay's `<meta Property="og:title" Content>` and `<BASE HREF>` were invisible to every
 * stage: on 67 of the 682 dataset pages, 6,872 image URLs were missing from `images`, og fields and `robots` from
 * metadata, and one page's links all (0 of 35), while the links found resolved against the wrong base.
 */
import { describe, expect, test } from "bun:test";
import { extractAttributes } from "../../src/pipeline/attributes.ts";
import { cleanHtml, htmlToMarkdown, parseHtml } from "../../src/pipeline/index.ts";
import { extractImages, extractLinks } from "../../src/pipeline/links.ts";
import { extractMetadata } from "../../src/pipeline/metadata.ts";
import { documentBaseUrl } from "../../src/pipeline/url.ts";

const PAGE = "https://ex.com/p/q";
const HTML = `<HTML LANG="de"><HEAD><BASE HREF="/sub/"><LINK REL="icon" HREF="/fav.ico"><META NAME="robots" CONTENT="index, follow">
  <meta Property="og:title" Content="Auction"><TITLE>Old page</TITLE></HEAD>
  <BODY><P>An old page, written in capitals, with a few links and pictures on it.</P><A HREF="a.html">a</A> <a href="b.html">b</a>
  <IMG SRC="i.png" ALT="old"><img srcSet="s-1.png 1x, s-2.png 2x" alt="react"><svg viewBox="0 0 1 1"></svg></BODY></HTML>`;

describe("attribute names in any case", () => {
  test("links, base and images: found, and resolved against <BASE HREF>", () => {
    const doc = parseHtml(HTML);
    const base = documentBaseUrl(doc, PAGE);
    expect(base).toBe("https://ex.com/sub/");
    expect(extractLinks(doc, base)).toEqual(["https://ex.com/sub/a.html", "https://ex.com/sub/b.html"]);
    expect(extractImages(doc, base, false)).toEqual(["https://ex.com/sub/i.png", "https://ex.com/sub/s-1.png", "https://ex.com/sub/s-2.png"]);
  });

  test("metadata: language, favicon, robots and og fields", () => {
    const meta = extractMetadata(parseHtml(HTML), PAGE) as Record<string, unknown>;
    expect(meta.language).toBe("de");
    expect(meta.favicon).toBe("https://ex.com/fav.ico");
    expect(meta.robots).toBe("index, follow");
    expect(meta.ogTitle).toBe("Auction");
  });

  test("markdown and html: the srcSet picture and the upper-case links, resolved", () => {
    const html = cleanHtml(parseHtml(HTML), { baseUrl: PAGE, onlyMainContent: false, removeBase64Images: true });
    expect(html).toContain('<a href="https://ex.com/sub/a.html">a</a>');
    const md = htmlToMarkdown(html);
    expect(md).toContain("[a](https://ex.com/sub/a.html)");
    expect(md).toContain("![old](https://ex.com/sub/i.png)");
    expect(md).toContain("![react](https://ex.com/sub/s-2.png)");
  });

  test("the attributes format asks for a name in any case (data-testId, viewBox), as a browser's getAttribute", () => {
    const doc = parseHtml('<div data-testId="card-1"></div><svg viewBox="0 0 24 24"></svg>');
    expect(extractAttributes(doc, [{ selector: "[data-testId]", attribute: "data-testId" }, { selector: "svg", attribute: "viewBox" }]).map((r) => r.values)).toEqual([["card-1"], ["0 0 24 24"]]);
  });

  test("SVG attributes keep their case, as a browser adjusts them (viewBox, preserveAspectRatio)", () => {
    const html = parseHtml('<svg viewBox="0 0 1 1" preserveAspectRatio="none"><linearGradient gradientUnits="userSpaceOnUse"/></svg><div viewBox="k"></div>').body.innerHTML;
    expect(html).toContain('<svg viewBox="0 0 1 1" preserveAspectRatio="none">');
    expect(html).toContain('gradientUnits="userSpaceOnUse"');
    expect(html).toContain('<div viewbox="k">'); // an HTML element's attribute is lower-case
  });

  test("links lose a user:password@ (as upstream lists them) and a mailto its line breaks", () => {
    const doc = parseHtml('<a href="http://user:pw@host.example/p?q=a@b">x</a><a href="/u/@name">y</a><a href="mailto:a@b.example?subject=Hi&#10;&#13;">m</a>');
    expect(extractLinks(doc, PAGE)).toEqual(["http://host.example/p?q=a@b", "https://ex.com/u/@name", "mailto:a@b.example?subject=Hi"]);
    // The credentials of the page's own URL (an intranet crawled with them) stay on its links.
    expect(extractLinks(parseHtml('<a href="/next">n</a>'), "http://me:secret@intranet.example/start")).toEqual(["http://me:secret@intranet.example/next"]);
  });

  test("duplicates: the first of HREF and href is the attribute, as in a browser", () => {
    expect(parseHtml('<a HREF="/first" href="/second">x</a>').querySelector("a")!.getAttribute("href")).toBe("/first");
  });
});
