import { describe, expect, test } from "bun:test";
import { parseHtml } from "../../src/pipeline/index.ts";

describe("parseHtml", () => {
  test("a fragment gets an html/head/body shell", () => {
    const doc = parseHtml("<p>Hello <b>world</b></p><p>Second</p>");
    expect(doc.documentElement.tagName).toBe("HTML");
    expect(doc.body.innerHTML).toBe("<p>Hello <b>world</b></p><p>Second</p>");
  });

  test("plain text and empty input do not throw", () => {
    expect(parseHtml("just text").body.textContent).toBe("just text");
    expect(parseHtml("").body.childNodes.length).toBe(0);
  });

  test("scripts between </head> and <body> do not hide the body", () => {
    const doc = parseHtml("<html><head><title>T</title></head><script>x()</script><body><p>Visible</p></body></html>");
    expect(doc.body.innerHTML).toBe("<p>Visible</p>");
    expect(doc.title).toBe("T");
  });

  test("content after </body> and </html> is moved into the body", () => {
    const doc = parseHtml("<html><body><p>a</p></body></html><p>after</p>");
    expect(doc.body.innerHTML).toBe("<p>a</p><p>after</p>");
  });

  test("a stray <![CDATA[ in HTML content does not swallow the page", () => {
    const doc = parseHtml("<html><body><![CDATA[ <div>Thread title</div><p>First post text</p></body></html>");
    expect(doc.body.textContent).toContain("First post text");
    const withScript = parseHtml("<html><body><script>//<![CDATA[\nvar a=1;//]]></script><p>ok</p></body></html>");
    expect(withScript.body.textContent).not.toContain("script");
    expect(withScript.body.querySelector("p")?.textContent).toBe("ok");
  });

  test("a large page parses", () => {
    const html = `<html><body>${"<div><p>Paragraph of text, with words.</p></div>".repeat(20000)}</body></html>`;
    const doc = parseHtml(html);
    expect(doc.body.querySelectorAll("p").length).toBe(20000);
  });
});
