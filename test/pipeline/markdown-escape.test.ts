import { describe, expect, test } from "bun:test";
import { htmlToMarkdown } from "../../src/pipeline/index.ts";

describe("htmlToMarkdown: text that would be read as hiding HTML or as an entity is escaped", () => {
  test("escaped script, style and comment markup stays visible text", () => {
    expect(htmlToMarkdown("<p>Use &lt;script&gt;alert(1)&lt;/script&gt; or &lt;STYLE&gt;</p>")).toBe("Use \\<script>alert(1)\\</script> or \\<STYLE>");
    expect(htmlToMarkdown("<p>&lt;!-- c --&gt; &lt;?php &lt;!DOCTYPE html&gt; &lt;pre&gt;</p>")).toBe("\\<!-- c --> \\<?php \\<!DOCTYPE html> \\<pre>");
  });

  test("escaped entities stay text", () => {
    expect(htmlToMarkdown("<p>&amp;copy; &amp;#169; &amp;#xA9;</p>")).toBe("\\&copy; \\&#169; \\&#xA9;");
  });

  test("a < or & that starts nothing is written as is", () => {
    expect(htmlToMarkdown("<p>Tom &amp; Jerry &lt;3, 1 &lt; 2 &amp;&amp; a&amp;b, &lt;scripted&gt;</p>")).toBe("Tom & Jerry <3, 1 < 2 && a&b, <scripted>");
  });

  test("other tag-like text is written as is, as turndown does (see test/scrape/xml-cdata.test.ts)", () => {
    expect(htmlToMarkdown("<p>Hello &lt;world&gt; &amp; &lt;b&gt;friends&lt;/b&gt;</p>")).toBe("Hello <world> & <b>friends</b>");
  });

  test("code is not escaped", () => {
    expect(htmlToMarkdown("<pre><code>&lt;script&gt; &amp;copy;</code></pre><p><code>&lt;style&gt;</code></p>")).toBe("```\n<script> &copy;\n```\n\n`<style>`");
  });

  test("block markers are escaped at a line's start only: '2) x' is no list item, 'in 2023. Then' gets no backslash", () => {
    expect(htmlToMarkdown("<p>2) also not a list</p>")).toBe("2\\) also not a list");
    expect(htmlToMarkdown("<p>It was 2023. Then more. Section 4. Ok</p>")).toBe("It was 2023. Then more. Section 4. Ok");
    expect(htmlToMarkdown("<p>a<br>3. b</p><p>1. c</p><p>- d</p><p># e</p><p>&gt; f</p>")).toBe("a  \n3\\. b\n\n1\\. c\n\n\\- d\n\n\\# e\n\n\\> f");
    expect(htmlToMarkdown("<p>1234567890. too long for a marker; 2023.5 is a number; see (2) below</p>")).toBe("1234567890. too long for a marker; 2023.5 is a number; see (2) below");
  });
});
