import { describe, expect, test } from "bun:test";
import { htmlToMarkdown } from "../../src/pipeline/index.ts";

describe("htmlToMarkdown: links and images", () => {
  test("a card link keeps its heading and teaser apart, and its code", () => {
    expect(htmlToMarkdown('<a href="/post"><h2>Title</h2><p>Teaser <code>code</code></p></a>')).toBe("[Title Teaser `code`](/post)");
    expect(htmlToMarkdown('<a href="https://e.com"><img src="https://e.com/i.png" alt="Logo"><div>Card</div></a>')).toBe(
      "[![Logo](https://e.com/i.png) Card](https://e.com)",
    );
  });

  test("a title with double quotes is escaped", () => {
    expect(htmlToMarkdown(`<a href="/x" title='say "hi"'>t</a>`)).toBe('[t](/x "say \\"hi\\"")');
    expect(htmlToMarkdown(`<img src="/i.png" alt="i" title='a "b" \\ c'>`)).toBe('![i](/i.png "a \\"b\\" \\\\ c")');
  });

  test("parentheses and spaces in image and link URLs are percent-encoded", () => {
    expect(htmlToMarkdown('<img src="https://e.com/a)b.png" alt="x">')).toBe("![x](https://e.com/a%29b.png)");
    expect(htmlToMarkdown('<a href="https://e.com/Foo_(bar) x">p</a>')).toBe("[p](https://e.com/Foo_%28bar%29%20x)");
  });

  test("an autolink shows its URL unchanged; a relative URL is not written as an HTML tag", () => {
    expect(htmlToMarkdown('<a href="https://e.com/a_b">https://e.com/a_b</a>')).toBe("<https://e.com/a_b>");
    expect(htmlToMarkdown('<a href="/docs">/docs</a>')).toBe("[/docs](/docs)");
  });

  test("alt text cannot end the image description", () => {
    expect(htmlToMarkdown('<img src="/i.png" alt="a [b] \\ <script>">')).toBe("![a \\[b\\] \\\\ \\<script>](/i.png)");
  });
});
