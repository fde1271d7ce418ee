import { describe, expect, test } from "bun:test";
import { htmlToMarkdown } from "../../src/pipeline/index.ts";

describe("htmlToMarkdown: emphasis that renders", () => {
  test("punctuation at the edge of emphasis next to a letter gets a space, so the run can close (or open)", () => {
    expect(htmlToMarkdown("<p><strong>Warning:</strong>do this</p>")).toBe("**Warning:** do this");
    expect(htmlToMarkdown("<p>do<strong>:this</strong></p>")).toBe("do **:this**");
    expect(htmlToMarkdown("<p><strong>Note:</strong> text, <b>end.</b></p>")).toBe("**Note:** text, **end.**");
  });

  test("intraword emphasis uses *, which may open and close inside a word", () => {
    expect(htmlToMarkdown("<p>foo<em>bar</em>baz</p>")).toBe("foo*bar*baz");
    expect(htmlToMarkdown("<p>some <em>soft</em> text</p>")).toBe("some _soft_ text");
  });

  test("adjacent runs of one kind merge instead of gaining a space", () => {
    expect(htmlToMarkdown("<p><strong>a</strong><strong>b</strong></p>")).toBe("**ab**");
    expect(htmlToMarkdown("<p><em>x</em><i>y</i> and <b>a</b> <b>b</b></p>")).toBe("*xy* and **a** **b**");
  });

  test("emphasis nested in its own kind adds no delimiters; URLs inside emphasis are left alone", () => {
    expect(htmlToMarkdown("<p><b>bold <b>inner</b> more</b></p>")).toBe("**bold inner more**");
    expect(htmlToMarkdown('<p><em>see <a href="https://e.com/a_b">it</a></em></p>')).toBe("_see [it](https://e.com/a_b)_");
  });

  test("an empty icon element keeps its link out of the output, as before", () => {
    expect(htmlToMarkdown('<p><a href="/s"><i class="fa-search"></i></a>Search <a href="/t"><b></b>Text</a></p>')).toBe("Search [Text](/t)");
  });

  test("a heading ending in # keeps it; a line break in a heading is a space", () => {
    expect(htmlToMarkdown("<h2>Issue #</h2>")).toBe("## Issue \\#");
    expect(htmlToMarkdown("<h3>C# and F#</h3><h1>#</h1>")).toBe("### C# and F#\n\n# \\#");
    expect(htmlToMarkdown("<h2>Heading with<br>break</h2><p>after</p>")).toBe("## Heading with break\n\nafter");
  });
});
