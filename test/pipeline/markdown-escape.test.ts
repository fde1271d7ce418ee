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
});
