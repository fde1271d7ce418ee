import { describe, expect, test } from "bun:test";
import { htmlToMarkdown } from "../../src/pipeline/index.ts";

describe("htmlToMarkdown: links and images", () => {
  test("a card link keeps its heading and teaser apart, and its code", () => {
    expect(htmlToMarkdown('<a href="/post"><h2>Title</h2><p>Teaser <code>code</code></p></a>')).toBe("[Title Teaser `code`](/post)");
    expect(htmlToMarkdown('<a href="https://e.com"><img src="https://e.com/i.png" alt="Logo"><div>Card</div></a>')).toBe(
      "[![Logo](https://e.com/i.png) Card](https://e.com)",
    );
  });

  test("a link around a heading and nothing else is a linked heading (it was link text: the outline lost it)", () => {
    expect(htmlToMarkdown('<p>Intro.</p><a href="/wrap"><h3>Heading inside link</h3></a><p>After.</p>')).toBe("Intro.\n\n### [Heading inside link](/wrap)\n\nAfter.");
    expect(htmlToMarkdown('<a href="/wrap">\n  <h2>Title <em>x</em></h2>\n</a>')).toBe("## [Title _x_](/wrap)");
    expect(htmlToMarkdown('<ul><li><a href="/l"><h4>Item head</h4></a></li></ul>')).toBe("- #### [Item head](/l)");
    // A heading and more stays a card link; so does a heading in a table cell, where a line is all there is.
    expect(htmlToMarkdown('<a href="/post"><h2>Title</h2><p>Teaser</p></a>')).toBe("[Title Teaser](/post)");
    expect(htmlToMarkdown('<table><tr><th>Post</th></tr><tr><td><a href="/x"><h3>In cell</h3></a></td></tr></table>')).not.toContain("#");
    // Nor in emphasis or another heading, where the hashes would print; an empty heading is no heading.
    expect(htmlToMarkdown('<b><a href="/x"><h3>T</h3></a></b>')).toBe("**[T](/x)**");
    expect(htmlToMarkdown('<h2><a href="/x"><h3>T</h3></a></h2>')).toBe("## [T](/x)");
    expect(htmlToMarkdown('<a href="/x"><h2></h2></a>')).not.toContain("#");
  });

  test("an icon link without text stays [](url), as upstream; one to the same page goes", () => {
    expect(htmlToMarkdown('<p><a href="https://twitter.com/x" aria-label="Twitter"><svg><path d="M0"/></svg></a> and more</p>')).toBe("[](https://twitter.com/x) and more");
    // A README heading's icon anchor to itself is noise: gone (it was `[](#install)`).
    const github = '<div class="markdown-heading"><h2>Install</h2><a class="anchor" aria-label="Permalink: Install" href="#install"><svg><path d="M0"/></svg></a></div><p>Run it.</p>';
    expect(htmlToMarkdown(github)).toBe("## Install\n\nRun it.");
    // As a scrape sees it: cleanHtml has made the href absolute.
    expect(htmlToMarkdown(github.replace('href="#install"', 'href="https://site.example/readme#install"'))).toBe("## Install\n\nRun it.");
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
