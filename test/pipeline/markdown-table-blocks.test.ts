/**
 * Tables whose cells hold blocks (lists, code, quotes, headings). Any such table used to be written as a layout
 * table, one cell per line: a pricing table's rows ran into one paragraph and into the feature list above them
 * (`- 1 GB\nPro\n$10`, "Pro $10" read as part of the last item). A table with header cells on a regular grid is
 * now a GFM table with each cell on one line; page layouts (no header cells, nested tables, forms, long cells)
 * stay plain blocks, kept apart by blank lines. `<tfoot>` comes last, wherever it is in the source.
 */
import { describe, expect, test } from "bun:test";
import { htmlToMarkdown } from "../../src/pipeline/index.ts";

/** Milliseconds `fn` takes, and what it returned. */
function timed<T>(fn: () => T): { ms: number; value: T } {
  const start = performance.now();
  const value = fn();
  return { ms: performance.now() - start, value };
}

describe("htmlToMarkdown: data tables whose cells hold blocks are GFM tables", () => {
  test("a pricing table with a feature list per plan: the items keep their markers on the cell's line", () => {
    const html =
      "<table><thead><tr><th>Plan</th><th>Price</th><th>Features</th></tr></thead><tbody>" +
      "<tr><td>Free</td><td>$0</td><td><ul><li>1 user</li><li>1 GB</li></ul></td></tr>" +
      "<tr><td>Pro</td><td>$10</td><td><ul><li>5 users</li></ul></td></tr></tbody></table>";
    expect(htmlToMarkdown(html)).toBe(
      "| Plan | Price | Features        |\n| ---- | ----- | --------------- |\n| Free | $0    | - 1 user - 1 GB |\n| Pro  | $10   | - 5 users       |",
    );
  });

  test("an API reference table: <pre> examples become code spans, numbered lists keep their numbers", () => {
    const html =
      "<table><tr><th>Parameter</th><th>Description</th></tr>" +
      "<tr><td><code>limit</code></td><td>Max items.<pre><code>GET /items?limit=10\nAccept: json</code></pre></td></tr>" +
      '<tr><td>mode</td><td><pre><span>a | b</span>\n  c</pre><ol start="3"><li>x</li><li>y</li></ol></td></tr></table>';
    expect(htmlToMarkdown(html).split("\n").slice(2)).toEqual([
      "| `limit`   | Max items. `GET /items?limit=10 Accept: json` |",
      "| mode      | `a \\| b c` 3. x 4. y                          |",
    ]);
  });

  test("headings and quotes in cells, row headers (<th> in the first column) instead of a header row", () => {
    const html =
      "<table><tr><th>Name</th><td><h3>Alpha</h3></td></tr><tr><th>Notes</th><td><blockquote>quoted</blockquote></td></tr></table>";
    expect(htmlToMarkdown(html)).toBe("| Name  | Alpha  |\n| ----- | ------ |\n| Notes | quoted |");
  });

  test("a first row of <td>s each holding only a heading is a header row (a recipe's quantities table)", () => {
    const html =
      "<table><tr><td><h4>Ingredient</h4></td><td> <h4>Per person</h4> </td></tr>" +
      '<tr><td colspan="2"><h5>Vegetables</h5></td></tr><tr><td>Onions</td><td>1 and a half</td></tr></table>';
    expect(htmlToMarkdown(html)).toBe(
      "| Ingredient | Per person   |\n| ---------- | ------------ |\n| Vegetables |              |\n| Onions     | 1 and a half |",
    );
  });
});

describe("htmlToMarkdown: layout tables stay plain blocks, kept apart", () => {
  test("without header cells: a cell's list ends before the next cell, each row is its own paragraph", () => {
    const html = "<table><tr><td><ul><li>a</li></ul></td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>";
    expect(htmlToMarkdown(html)).toBe("- a\n\nb\n\nc\nd");
  });

  test("a cell's heading and text do not run into the next cell", () => {
    expect(htmlToMarkdown("<table><tr><td><h2>News</h2>text</td><td>More</td></tr></table>")).toBe("## News\n\ntext\n\nMore");
  });

  test("a nested table keeps a headed table a layout table; its cells are blocks, its rows paragraphs", () => {
    const html =
      "<table><tr><th>A</th><th>B</th></tr><tr><td><table><tr><td>x</td></tr></table></td><td><ul><li>y</li></ul></td></tr>" +
      "<tr><td>z</td><td>w</td></tr><tr><td>u</td><td>v</td></tr></table>";
    expect(htmlToMarkdown(html)).toBe("A\nB\n\n| x |\n| - |\n\n- y\n\nz\nw\n\nu\nv");
  });

  test("a <th> beside rows that are whole lists (a navbox) does not make a data table", () => {
    const html =
      '<table><tr><td colspan="2"><ul><li>a</li><li>b</li></ul></td></tr>' +
      "<tr><th>by region</th><td><ul><li>c</li><li>d</li></ul></td></tr><tr><th>p</th><td>q</td></tr><tr><th>r</th><td>s</td></tr></table>";
    expect(htmlToMarkdown(html)).toBe("- a\n- b\n\nby region\n\n- c\n- d\n\np\nq\n\nr\ns");
  });

  test("a headed table with a cell over 1,000 characters (a page's article column) is a layout table", () => {
    const article = `<h1>Title</h1>${"<p>Lorem ipsum dolor sit amet.</p>".repeat(50)}`;
    const html =
      `<table><tr><th>Menu</th><th>Site</th></tr><tr><td><ul><li>Home</li></ul></td><td>${article}</td></tr>` +
      "<tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>";
    const md = htmlToMarkdown(html);
    expect(md.startsWith("Menu\nSite\n\n- Home\n\n# Title\n\nLorem ipsum dolor sit amet.\n\n")).toBe(true);
    expect(md.endsWith("amet.\n\na\nb\n\nc\nd")).toBe(true);
    expect(md).not.toContain("|");
  });

  test("a headed table whose rows are ragged, or of one column, is a layout table", () => {
    const ragged = "<table><tr><th>A</th><th>B</th></tr><tr><td>x</td></tr><tr><td><ul><li>a</li></ul></td><td>b</td></tr></table>";
    expect(htmlToMarkdown(ragged)).toBe("A\nB\n\nx\n\n- a\n\nb");
    expect(htmlToMarkdown("<table><tr><th>Steps</th></tr><tr><td><ol><li>a</li><li>b</li></ol></td></tr></table><p>z</p>")).toBe(
      "Steps\n\n1. a\n2. b\n\nz",
    );
  });
});

describe("htmlToMarkdown: <tfoot> comes after the body, as a browser shows it", () => {
  test("in a data table", () => {
    const html =
      "<table><thead><tr><th>Item</th><th>Cost</th></tr></thead><tfoot><tr><td>Total</td><td>3</td></tr></tfoot>" +
      "<tbody><tr><td>a</td><td>1</td></tr><tr><td>b</td><td>2</td></tr></tbody></table>";
    expect(htmlToMarkdown(html)).toBe("| Item  | Cost |\n| ----- | ---- |\n| a     | 1    |\n| b     | 2    |\n| Total | 3    |");
  });

  test("in a layout table, and a <thead> written after the body comes first", () => {
    const html = "<table><tfoot><tr><td>foot</td></tr></tfoot><tbody><tr><td><ul><li>body</li></ul></td></tr></tbody><thead><tr><td>head</td></tr></thead></table>";
    expect(htmlToMarkdown(html)).toBe("head\n\n- body\n\nfoot");
  });
});

describe("htmlToMarkdown: large and nested tables with blocks stay fast", () => {
  test("10,000 rows with a list in each are a GFM table, in well under 2 s", () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => `<tr><td>r${i}</td><td><ul><li>a</li><li>b</li></ul></td></tr>`).join("");
    const { ms, value } = timed(() => htmlToMarkdown(`<table><tr><th>Row</th><th>List</th></tr>${rows}</table>`));
    const lines = value.split("\n");
    expect(lines).toHaveLength(10_002);
    expect(lines[10_001]).toBe("| r9999 | - a - b |");
    expect(ms).toBeLessThan(2_000);
  });

  test("10,000 rows below a list, without header cells, are a layout table, one paragraph per row, in well under 2 s", () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => `<tr><td>r${i}</td><td>n</td></tr>`).join("");
    const { ms, value } = timed(() => htmlToMarkdown(`<table><tr><td><ul><li>a</li></ul></td></tr>${rows}</table>`));
    expect(value.startsWith("- a\n\nr0\nn\n\nr1\nn\n\nr2\nn\n\n")).toBe(true);
    expect(value.split("\n\n")).toHaveLength(10_001);
    expect(ms).toBeLessThan(2_000);
  });

  test("tables nested 500 deep, each with rows of text and a list, rows apart, in well under 2 s", () => {
    const depth = 500;
    const level = "<table><tr><td>t</td><td>u</td></tr><tr><td>v</td><td>w</td></tr><tr><td><ul><li>i</li></ul></td><td>";
    const html = `${level.repeat(depth)}x${"</td></tr></table>".repeat(depth)}`;
    const { ms, value } = timed(() => htmlToMarkdown(html));
    expect(value.startsWith("t\nu\n\nv\nw\n\n")).toBe(true);
    expect(value.split("\n\n")).toHaveLength(3 * depth + 1); // two rows and a list per level, then the text
    expect(value.endsWith("i\n\nx")).toBe(true);
    expect(ms).toBeLessThan(2_000);
  });
});
