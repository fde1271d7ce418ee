import { describe, expect, test } from "bun:test";
import { htmlToMarkdown } from "../../src/pipeline/index.ts";
import { tidy } from "../../src/pipeline/markdown/tidy.ts";

// Each expectation was checked with markdown-it (CommonMark): the comments say how the old output read.
describe("htmlToMarkdown: a list ends where the HTML list ends", () => {
  test("text after a list is a paragraph of its own, not lazy continuation text of the last item", () => {
    // Old: "- a\nTrailing text", read as the item "a Trailing text".
    expect(htmlToMarkdown("<div><ul><li>a</li></ul>Trailing text</div>")).toBe("- a\n\nTrailing text");
    expect(htmlToMarkdown('<div><ol><li>c</li></ol><a href="https://x.test/">link after list</a></div>')).toBe(
      "1. c\n\n[link after list](https://x.test/)",
    );
    expect(htmlToMarkdown("<blockquote><ul><li>a</li></ul>after</blockquote>")).toBe("> - a\n>\n> after");
  });

  test("an ordered list not starting at 1 gets a blank line before it, which it needs to interrupt a paragraph", () => {
    // Old: "Steps continued:\n3. third\n4. fourth", one paragraph.
    expect(htmlToMarkdown('<div>Steps continued: <ol start="3"><li>third</li><li>fourth</li></ol></div>')).toBe(
      "Steps continued:\n\n3. third\n4. fourth",
    );
    // Inside an item too (the item becomes loose: the only way CommonMark keeps the list).
    expect(htmlToMarkdown('<ul><li>Steps: <ol start="3"><li>x</li></ol></li></ul>')).toBe("- Steps:\n\n  3. x");
    expect(htmlToMarkdown('<ol><li>a</li><ol start="3"><li>b</li></ol></ol>')).toBe("1. a\n\n   3. b");
  });

  test("text after a nested list stays in its item, after a blank line; nested lists without it stay tight", () => {
    // Old: "- a\n  - b\n  more text\n- c", read as the nested item "b more text".
    expect(htmlToMarkdown("<ul><li>a<ul><li>b</li></ul>more text</li><li>c</li></ul>")).toBe("- a\n  - b\n\n  more text\n- c");
    expect(htmlToMarkdown("<ul><li>a<ul><li>b</li></ul></li><li>c<ol><li>d</li></ol></li></ul><p>end</p>")).toBe(
      "- a\n  - b\n- c\n  1. d\n\nend",
    );
  });

  test("adjacent lists of one kind stay two lists: the second takes the other marker", () => {
    // Old: "- one\n- two" and "1. one\n1. two", one list each.
    expect(htmlToMarkdown("<ul><li>one</li></ul><ul><li>two</li></ul>")).toBe("- one\n\n* two");
    expect(htmlToMarkdown("<ol><li>one</li></ol><ol><li>two</li></ol>")).toBe("1. one\n\n1) two");
    expect(htmlToMarkdown("<ul><li>a</li></ul> <ul><li>b</li></ul>\n<ul><li>c</li></ul><ol><li>d</li></ol>")).toBe(
      "- a\n\n* b\n\n- c\n\n1. d",
    );
    // Old: "- a\n\n- b", one loose list.
    expect(htmlToMarkdown("<div><ul><li>a</li></ul></div><div><ul><li>b</li></ul></div>")).toBe("- a\n\n* b");
    // Nested ones too, without loosening their parent; a list right after an item nests under it, unchanged.
    expect(htmlToMarkdown("<ul><li>a</li><ul><li>b</li></ul><ul><li>c</li></ul><li>d</li></ul>")).toBe("- a\n  - b\n  * c\n- d");
  });
});

describe("tidy: a code block opening a list item or in a quote", () => {
  test("the closing fence of a code block that starts an item is not taken for an opening one", () => {
    const html = '<ol><li><pre><code class="language-sh">pip install foo</code></pre></li><li>Then run it.</li></ol>';
    // Old: "1. ```sh\n   pip install foo\n\n   ```\n2. Then run it.", a blank line added to the code.
    expect(htmlToMarkdown(html)).toBe("1. ```sh\n   pip install foo\n   ```\n2. Then run it.");
    // Old: the text after was left untidied, as code, until the next fence.
    expect(tidy("1. ```sh\n   code\n   ```\n2. next   \n\n\n\nafter\t")).toBe("1. ```sh\n   code\n   ```\n2. next  \n\nafter");
  });

  test("code in a nested item keeps its blank lines", () => {
    // Old: "    x\n\n    y\n\n    ```": one blank line lost, one added.
    const html = "<ul><li>a<ul><li><pre><code>x\n\n\ny</code></pre></li><li>b</li></ul></li></ul>";
    expect(htmlToMarkdown(html)).toBe("- a\n  - ```\n    x\n\n\n    y\n    ```\n  - b");
  });

  test("code in a quote keeps its trailing spaces, and gets no unquoted blank line that would end the quote", () => {
    // Old: "> a  ", the code's third trailing space dropped.
    expect(htmlToMarkdown("<blockquote><pre>a   \nb</pre><p>after</p></blockquote>")).toBe("> ```\n> a   \n> b\n> ```\n>\n> after");
    expect(tidy("> - ```\n>   x\t\n>   ```\n> text  \n\n\nz")).toBe("> - ```\n>   x\t\n>   ```\n> text  \n\nz");
  });
});
