import { describe, expect, test } from "bun:test";
import { htmlToMarkdown } from "../../src/pipeline/index.ts";

describe("htmlToMarkdown", () => {
  test("headings, emphasis, links and lists", () => {
    const md = htmlToMarkdown(
      `<h2>Title</h2><p>Some <strong>bold</strong> and <em>soft</em> text with <a href="https://e.com/a">a link</a>.</p><ul><li>one</li><li>two</li></ul><ol><li>first</li><li>second</li></ol>`,
    );
    expect(md).toContain("## Title");
    expect(md).toContain("**bold**");
    expect(md).toContain("_soft_");
    expect(md).toContain("[a link](https://e.com/a)");
    expect(md).toContain("- one\n- two");
    expect(md).toContain("1. first\n2. second");
  });

  test("an ordered list numbers from its start, as a browser shows it (it restarted at 1)", () => {
    // The nested list is indented by the width of its item's marker (3 for "4. "), as CommonMark needs to nest it.
    // The next <ol> takes `)`: with `.` its items would read as more items of the list before it (spec 5.3).
    expect(htmlToMarkdown('<ol start="3"><li>Three</li><li>Four<ol><li>a</li></ol></li></ol><ol><li>x</li></ol>')).toBe("3. Three\n4. Four\n   1. a\n\n1) x");
    expect(htmlToMarkdown('<ol start="0"><li>zero</li></ol><ol start="x"><li>y</li></ol><ul start="5"><li>u</li></ul>')).toBe("0. zero\n\n1) y\n\n- u");
  });

  test("tables become GFM tables", () => {
    const md = htmlToMarkdown(
      "<table><thead><tr><th>Name</th><th>Price</th></tr></thead><tbody><tr><td>Apple</td><td>1.20</td></tr><tr><td>Pear</td><td>0.90</td></tr></tbody></table>",
    );
    expect(md).toContain("| Name  | Price |");
    expect(md).toMatch(/\| -+ \| -+ \|/);
    expect(md).toContain("| Apple | 1.20  |");
  });

  test("code blocks are fenced with their language", () => {
    expect(htmlToMarkdown('<pre><code class="language-typescript">const a: number = 1;</code></pre>')).toBe(
      "```typescript\nconst a: number = 1;\n```",
    );
    expect(htmlToMarkdown('<pre class="lang-py">print("hi")</pre>')).toBe('```py\nprint("hi")\n```');
    expect(htmlToMarkdown('<div class="highlight highlight-source-rust"><pre>fn main() {}</pre></div>')).toBe(
      "```rust\nfn main() {}\n```",
    );
    expect(htmlToMarkdown("<pre>plain\n\n\n  indented</pre>")).toBe("```\nplain\n\n\n  indented\n```");
  });

  test("a fence is longer than any backtick run in the code", () => {
    const md = htmlToMarkdown('<pre><code class="language-md">```js\nx\n```</code></pre>');
    expect(md.startsWith("````md\n")).toBe(true);
    expect(md.endsWith("\n````")).toBe(true);
  });

  test("no script or style survives, blank lines are collapsed", () => {
    const md = htmlToMarkdown("<p>a</p><script>alert(1)</script><style>p{}</style><br><br><br><br><p>b</p>");
    expect(md).toBe("a\n\nb");
  });

  test("images keep alt text; an image without src renders its alt", () => {
    expect(htmlToMarkdown('<img src="https://e.com/i.png" alt="A cat">')).toBe("![A cat](https://e.com/i.png)");
    expect(htmlToMarkdown('<p><img alt="Chart of sales"></p>')).toBe("Chart of sales");
  });
});
