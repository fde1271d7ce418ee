/**
 * A tiny page is all content but its chrome (src/pipeline/main-content/select.ts `TINY_PAGE_CHARS`): the scorer
 * weighs blocks against each other, and a page of a heading, a sentence and a link has too few to weigh. The README's
 * first example, example.com, came out as its one paragraph (the long-standing page: heading and "More
 * information..." link dropped) or without its link (the current page); upstream keeps all three. The extraction
 * benchmark does not move (article-extraction F1 0.950, wcxb-dev word-F1 0.823, every page type the same).
 */
import { describe, expect, test } from "bun:test";
import { cleanHtml, htmlToMarkdown, parseHtml } from "../../src/pipeline/index.ts";

const markdown = (html: string, onlyMainContent = true) => htmlToMarkdown(cleanHtml(parseHtml(html), { baseUrl: "https://example.com/", onlyMainContent, removeBase64Images: true })).trim();

/** example.com as it was served for a decade (its style sheet shortened). */
const EXAMPLE_2013 = `<!doctype html>
<html>
<head>
    <title>Example Domain</title>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <style type="text/css">
    body { background-color: #f0f0f2; margin: 0; padding: 0; }
    div { width: 600px; margin: 5em auto; padding: 2em; }
    </style>
</head>

<body>
<div>
    <h1>Example Domain</h1>
    <p>This domain is for use in illustrative examples in documents. You may use this
    domain in literature without prior coordination or asking for permission.</p>
    <p><a href="https://www.iana.org/domains/example">More information...</a></p>
</div>
</body>
</html>`;

/** example.com as it is served now. */
const EXAMPLE_2025 = `<!doctype html><html lang="en"><head><title>Example Domain</title><meta name="viewport" content="width=device-width, initial-scale=1"><style>body{background:#eee;width:60vw;margin:15vh auto;font-family:system-ui,sans-serif}h1{font-size:1.5em}div{opacity:0.8}a:link,a:visited{color:#348}</style><body><div><h1>Example Domain</h1><p>This domain is for use in documentation examples without needing permission. Avoid use in operations.<p><a href="https://iana.org/domains/example">Learn more</a></div></body></html>`;

describe("a tiny page is all content but its chrome", () => {
  test("example.com, as served for a decade: the heading, the sentence and the link, as with onlyMainContent false", () => {
    const expected = [
      "# Example Domain",
      "",
      "This domain is for use in illustrative examples in documents. You may use this domain in literature without prior coordination or asking for permission.",
      "",
      "[More information...](https://www.iana.org/domains/example)",
    ].join("\n");
    expect(markdown(EXAMPLE_2013)).toBe(expected);
    expect(markdown(EXAMPLE_2013, false)).toBe(expected);
  });

  test("example.com, as served now: the link stays", () => {
    expect(markdown(EXAMPLE_2025)).toBe(
      "# Example Domain\n\nThis domain is for use in documentation examples without needing permission. Avoid use in operations.\n\n[Learn more](https://iana.org/domains/example)",
    );
  });

  test("a tiny page's navigation, site header and footer still go", () => {
    const html = `<body><header><a href="/">Shop</a> <a href="/cart">Cart</a></header><nav><a href="/a">Alpha</a> <a href="/b">Beta</a></nav>
      <h1>Opening hours</h1><p>Monday to Friday, nine to five.</p><p><a href="/map">How to find us</a></p>
      <footer>© 2026 Shop Ltd. <a href="/privacy">Privacy</a></footer></body>`;
    expect(markdown(html)).toBe("# Opening hours\n\nMonday to Friday, nine to five.\n\n[How to find us](https://example.com/map)");
  });

  test("a page past the bound is scored as before: a trailing link line after an article is boilerplate", () => {
    const sentence = "The committee met on Tuesday to discuss the harbour works, and agreed on a timetable for the repairs. ";
    const html = `<body><div><h1>Harbour works</h1>${Array.from({ length: 8 }, () => `<p>${sentence}</p>`).join("")}<p><a href="/share">Share this</a></p></div></body>`;
    const md = markdown(html);
    expect(md).toContain("# Harbour works");
    expect(md).not.toContain("Share this");
  });
});
