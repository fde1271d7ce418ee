import { describe, expect, test } from "bun:test";
import { htmlToMarkdown } from "../../src/pipeline/index.ts";

describe("htmlToMarkdown: GFM tables on the table's real grid", () => {
  test("every pipe in a cell is escaped, not only the first", () => {
    expect(htmlToMarkdown("<table><tr><th>a</th><th>b</th></tr><tr><td>a | b | c</td><td>z</td></tr></table>")).toBe(
      "| a           | b |\n| ----------- | - |\n| a \\| b \\| c | z |",
    );
  });

  test("colspan pads the row with empty cells; rowspan leaves an empty cell in the rows it spans", () => {
    const html =
      '<table><tr><th colspan="2">Wide</th><th>C</th></tr><tr><td>1</td><td>2</td><td>3</td></tr>' +
      '<tr><td rowspan="2">R</td><td>x</td><td>y</td></tr><tr><td>p</td><td>q</td></tr></table>';
    expect(htmlToMarkdown(html)).toBe("| Wide |   | C |\n| ---- | - | - |\n| 1    | 2 | 3 |\n| R    | x | y |\n|      | p | q |");
  });

  test("an empty cell keeps its column", () => {
    expect(htmlToMarkdown("<table><tr><th>A</th><th>B</th></tr><tr><td></td><td>b</td></tr></table>")).toBe("| A | B |\n| - | - |\n|   | b |");
  });

  test("line breaks and paragraphs in a cell become spaces", () => {
    expect(htmlToMarkdown("<table><tr><th>Plan</th><th>Info</th></tr><tr><td>Pro<br>yearly</td><td><p>one</p><p>two</p></td></tr></table>")).toBe(
      "| Plan       | Info    |\n| ---------- | ------- |\n| Pro yearly | one two |",
    );
  });

  test("code, images, links and emphasis in cells are written as in the text", () => {
    const html =
      '<table><tr><th>Code</th><th>Image</th><th>Link</th></tr><tr><td><code>x|y</code></td><td><img src="a b.png" alt="i"></td>' +
      '<td><a href="https://e.com/(p)" title=\'a "q"\'>link</a> <strong>s:</strong>x</td></tr></table>';
    expect(htmlToMarkdown(html).split("\n")[2]).toBe('| `x\\|y` | ![i](a%20b.png) | [link](https://e.com/%28p%29 "a \\"q\\"") **s:** x |');
  });
});
