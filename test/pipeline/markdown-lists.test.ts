import { describe, expect, test } from "bun:test";
import { htmlToMarkdown } from "../../src/pipeline/index.ts";

describe("htmlToMarkdown: list items keep their block content inside them", () => {
  test("a code block in an item keeps its blank lines, gets no trailing spaces, and is indented into the item", () => {
    const html = "<ul><li>Step<pre><code>line1\n\nline3</code></pre></li><li>next</li></ul>";
    expect(htmlToMarkdown(html)).toBe("- Step\n\n  ```\n  line1\n\n  line3\n  ```\n\n- next");
  });

  test("a nested list is indented by its item's marker width: 2 under '- ', 3 under '1. ', 4 under '10. '", () => {
    expect(htmlToMarkdown("<ol><li>One<ul><li>nested</li></ul></li><li>Two<ol><li>a</li><li>b</li></ol></li></ol>")).toBe(
      "1. One\n   - nested\n2. Two\n   1. a\n   2. b",
    );
    expect(htmlToMarkdown("<ul><li>a<ul><li>b<ul><li>c</li></ul></li></ul></li></ul>")).toBe("- a\n  - b\n    - c");
    const ten = `<ol start="10"><li>ten<ul><li>nested</li></ul></li></ol>`;
    expect(htmlToMarkdown(ten)).toBe("10. ten\n    - nested");
  });

  test("paragraphs in an item stay paragraphs of the item, not hard breaks", () => {
    expect(htmlToMarkdown("<ul><li><p>para one</p><p>para two</p></li><li>x</li></ul>")).toBe("- para one\n\n  para two\n- x");
    expect(htmlToMarkdown("<ol><li>line<br>break</li></ol>")).toBe("1. line  \n   break");
  });

  test("a list written directly inside a list nests under the previous item, as browsers show it", () => {
    expect(htmlToMarkdown("<ul><li>a</li><ul><li>b</li></ul><li>c</li></ul>")).toBe("- a\n  - b\n- c");
    expect(htmlToMarkdown("<ol><li>a</li><ol><li>b</li></ol></ol>")).toBe("1. a\n   1. b");
  });

  test("an item inside a quote keeps its code block", () => {
    expect(htmlToMarkdown("<blockquote><ul><li>q<pre>x\n\ny</pre></li></ul></blockquote>")).toBe("> - q\n>\n>   ```\n>   x\n>\n>   y\n>   ```");
    expect(htmlToMarkdown("<blockquote><p>a</p><blockquote><p>b</p></blockquote></blockquote>")).toBe("> a\n>\n> > b");
  });
});
