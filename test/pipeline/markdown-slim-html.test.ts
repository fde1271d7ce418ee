import { describe, expect, test } from "bun:test";
import { htmlToMarkdown } from "../../src/pipeline/index.ts";

describe("htmlToMarkdown: inline SVG is dropped without touching attribute values", () => {
  test("an attribute value that mentions <svg> does not swallow the page up to the next </svg>", () => {
    const html = '<p>Before</p><a href="/x" title="Export as <svg> or PNG">Export</a><p>middle text</p><svg><path d="M0"/></svg><p>After</p>';
    expect(htmlToMarkdown(html)).toBe('Before\n\n[Export](/x "Export as <svg> or PNG")\n\nmiddle text\n\nAfter');
  });

  test("an svg data: image source is kept whole", () => {
    const html = `<p><img src="data:image/svg+xml;utf8,<svg xmlns='http://www.w3.org/2000/svg'><rect/></svg>" alt="icon"> tail</p>`;
    expect(htmlToMarkdown(html)).toBe("![icon](data:image/svg+xml;utf8,%3Csvg%20xmlns='http://www.w3.org/2000/svg'%3E%3Crect/%3E%3C/svg%3E) tail");
  });

  test("inline svg goes with its text, nested svg included; an unclosed one loses only its tag", () => {
    expect(htmlToMarkdown("<p>a<svg><title>icon</title><svg><text>x</text></svg><text>y</text></svg>b</p>")).toBe("ab");
    expect(htmlToMarkdown("<p>a<SVG/>b<svg viewBox='0 0 1 1' />c</p>")).toBe("abc");
    expect(htmlToMarkdown("<p>keep <svg>this</p><p>and this</p>")).toBe("keep this\n\nand this");
  });

  test("<svg> inside a script or a comment is not markup", () => {
    expect(htmlToMarkdown('<p>one</p><script>var s = "<svg>";</script><p>two</p><!-- <svg> --><p>three</p></svg><p>four</p>')).toBe(
      "one\n\ntwo\n\nthree\n\nfour",
    );
  });

  test("attributes the converter reads survive, including rowspan", () => {
    const html = '<table data-x="1"><tr><td rowspan="2" style="x">a</td><td class="c">b</td></tr><tr><td>c</td></tr></table>';
    expect(htmlToMarkdown(html)).toBe("| a | b |\n| - | - |\n|   | c |");
  });
});

describe("htmlToMarkdown: buttons that label content", () => {
  test("an accordion's question (a button in a heading, or one with aria-expanded) is kept; it was dropped", () => {
    expect(
      htmlToMarkdown('<h2 class="accordion-header"><button class="accordion-button" type="button">How do I reset my password?</button></h2><div class="accordion-body">Click "Forgot password".</div>'),
    ).toBe('## How do I reset my password?\n\nClick "Forgot password".');
    expect(htmlToMarkdown('<div><button class="q" aria-expanded="false" aria-controls="a1">Can I cancel?</button><div id="a1"><p>Yes, any time.</p></div></div>')).toBe(
      "Can I cancel?\n\nYes, any time.",
    );
    expect(htmlToMarkdown("<details><summary><button>Show the terms</button></summary><p>Terms.</p></details>")).toContain("Show the terms");
  });

  test("tab labels are kept apart; other buttons (Copy, Add to cart) still go", () => {
    expect(htmlToMarkdown('<div role="tablist"><button role="tab" aria-selected="true">Python</button><button role="tab">JavaScript</button></div><pre><code>print(1)</code></pre>')).toBe(
      "Python JavaScript\n\n```\nprint(1)\n```",
    );
    expect(htmlToMarkdown("<p>Reply with <button>Copy</button> code</p><button>Add to cart</button>")).toBe("Reply with  code");
    expect(htmlToMarkdown('<p>Show <button aria-expanded="false">more</button>.</p>')).toBe("Show more.");
    // A kept button's end tag closes only what it opened: a dropped button inside it stays dropped.
    expect(htmlToMarkdown('<button aria-expanded="true">Outer<button>inner</button></button> tail')).toBe("Outer tail");
  });
});
