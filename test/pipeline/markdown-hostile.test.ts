/**
 * htmlToMarkdown against markup built to make it slow or huge. The translators trimmed and collapsed whitespace with
 * regexes that rescanned a long whitespace run from each of its characters (a link holding 6,000 `<br>` took 31 s),
 * node-html-markdown's blank-line pass backtracked ~400 ms on any 25 newlines in a row, node-html-parser rescanned a
 * parent's children for every text node (patched in scripts/patches/), and a few bytes of `rowspan`/`colspan` per
 * row built a grid of gigabytes. Each timing is a ceiling far above the fixed code's time and far below the old
 * code's; the last tests pin the output for ordinary markup, which the fixes must not change.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { parse } from "node-html-parser";
import { htmlToMarkdown } from "../../src/pipeline/index.ts";

/** Milliseconds `fn` takes, and what it returned. */
function timed<T>(fn: () => T): { ms: number; value: T } {
  const start = performance.now();
  const value = fn();
  return { ms: performance.now() - start, value };
}

beforeAll(() => {
  htmlToMarkdown("<p>warm <a href=/x>up</a></p><table><tr><td>a</td></tr></table><pre>b</pre>");
});

describe("htmlToMarkdown: long whitespace runs", () => {
  const cases: [string, string, string, number][] = [
    // [name, html, expected markdown (or its start), ceiling ms]; old times on a 2-core VM in the comments.
    ["a link holding 3,000 <br> (old: seconds, cubic)", `<a href=/x>a${"<br>".repeat(3_000)}b</a>`, "[a b](/x)", 1_000],
    ["a <pre> holding 100,000 spaces (old: ~4 s)", `<pre>a${" ".repeat(100_000)}b</pre>`, `\`\`\`\na${" ".repeat(100_000)}b\n\`\`\``, 1_000],
    ["a list item holding 30,000 <br> (old: 4 s)", `<ul><li>a${"<br>".repeat(30_000)}b</li></ul>`, "- a  \n\n  b", 1_000],
    ["a table cell holding 80,000 <br> (old: ~5 s)", `<table><tr><td>a${"<br>".repeat(80_000)}b</td></tr></table>`, "| a b |\n| --- |", 2_000],
    ["a <pre> with 60,000 blank lines in a quote (old: ~3 s)", `<blockquote><pre>a${"\n".repeat(60_000)}b</pre></blockquote>`, "> ```\n> a\n>\n>", 1_000],
    ["a <pre> with 60,000 spaces in <b> (old: ~4 s)", `<b>a<pre>a${" ".repeat(60_000)}b</pre></b>`, "**a**\n\n**```**\n**a ", 1_000],
    ["a <pre> with 60,000 spaces in a heading (old: ~4 s)", `<h2>a<pre>a${" ".repeat(60_000)}b</pre></h2>`, "## a ``` a ", 1_000],
  ];
  for (const [name, html, expected, ceilingMs] of cases) {
    test(`${name}: linear`, () => {
      const { ms, value } = timed(() => htmlToMarkdown(html));
      expect(value.startsWith(expected)).toBe(true);
      expect(ms).toBeLessThan(ceilingMs);
    });
  }

  test("a table row padded by 80,000 spaces (a wide cell above it): tidy's trailing-space pass is linear (old: ~3 s)", () => {
    const html = `<table><tr><td>${"x".repeat(80_000)}</td><td>b</td></tr><tr><td>a</td><td>c</td></tr></table>`;
    const { ms, value } = timed(() => htmlToMarkdown(html));
    expect(value.split("\n")[2]).toBe(`| a${" ".repeat(79_999)} | c |`);
    expect(ms).toBeLessThan(1_000);
  });

  test("30 newlines in a row, in five documents: no blank-line pass backtracking ~400 ms on each", () => {
    const html = `<pre>a${"\n".repeat(30)}b</pre><p>after</p>`;
    const { ms, value } = timed(() => Array.from({ length: 5 }, () => htmlToMarkdown(html)));
    expect(value[0]).toBe(`\`\`\`\na${"\n".repeat(30)}b\n\`\`\`\n\nafter`);
    expect(ms).toBeLessThan(800);
  });
});

describe("htmlToMarkdown: many text siblings (node-html-parser patch)", () => {
  test("the patched parser still gives every text node its parent, once in the parent's children", () => {
    const root = parse("<p>a<b>b</b>c<i>d</i>e</p>");
    const p = root.childNodes[0]!;
    expect(p.childNodes.map((child) => child.rawText)).toEqual(["a", "b", "c", "d", "e"]);
    for (const child of p.childNodes) expect(child.parentNode).toBe(p as typeof child.parentNode);
    expect(p.childNodes[1]!.childNodes[0]!.parentNode).toBe(p.childNodes[1] as typeof p.parentNode);
  });

  test("a paragraph of 40,000 `<br>x` parses in linear time (old: ~5 s)", () => {
    const { ms, value } = timed(() => htmlToMarkdown(`<p>${"<br>x".repeat(40_000)}</p>`));
    expect(value.split("\n").length).toBe(40_000);
    expect(ms).toBeLessThan(2_000);
  });

  test("40,000 links in one container (old: ~5 s)", () => {
    const { ms, value } = timed(() => htmlToMarkdown(`<div>${'<a href="/a">l</a> '.repeat(40_000)}</div>`));
    expect(value.startsWith("[l](/a) [l](/a) ")).toBe(true);
    expect(ms).toBeLessThan(2_000);
  });
});

describe("htmlToMarkdown: tables whose spans would make a huge grid", () => {
  const spanningRows = (rows: number) => `<table>${'<tr><td rowspan="0" colspan="1000">x</td></tr>'.repeat(rows)}</table>`;

  test("200 rows of rowspan=0 colspan=1000 are written as a layout table, each cell on its line (old: 16 MB)", () => {
    expect(htmlToMarkdown(spanningRows(200))).toBe(Array.from({ length: 200 }, () => "x").join("\n"));
  });

  test("1,000 such rows (50 KB; old: 4 GB and out of memory): bounded time and output", () => {
    const { ms, value } = timed(() => htmlToMarkdown(spanningRows(1_000)));
    expect(value.length).toBeLessThan(5_000);
    expect(ms).toBeLessThan(2_000);
  });

  test("a 2,000-cell row over 2,000 one-cell rows (old: a 16 MB grid) is a layout table too", () => {
    const html = `<table><tr>${"<td>c</td>".repeat(2_000)}</tr>${"<tr><td>x</td></tr>".repeat(2_000)}</table>`;
    const { ms, value } = timed(() => htmlToMarkdown(html));
    expect(value).toBe([...Array.from({ length: 2_000 }, () => "c"), ...Array.from({ length: 2_000 }, () => "x")].join("\n"));
    expect(ms).toBeLessThan(2_000);
  });
});

describe("htmlToMarkdown: ordinary markup is written as before", () => {
  const cases: [string, string][] = [
    ['<p>See <a href="/x">\n  <h3>Title</h3>\n  <p>Teaser<br>line two</p>\n</a> now.</p>', "See [Title Teaser line two](/x) now."],
    ['<a href="/c"><code>a<br>b</code></a>', "[`a b`](/c)"],
    ['<pre><code class="language-py">\n\nprint(1)   \n\n  x = 2\t\n\n</code></pre>', "```py\nprint(1)   \n\n  x = 2\n```"],
    ["<ul><li>\n  one<br>two  \n</li><li><p>a</p><p>b</p></li></ul>", "- one  \n  two\n- a\n\n  b"],
    ["<table><tr><th> A <br> B </th><th>C</th></tr><tr><td>\n x \n</td><td>y<br><br>z</td></tr></table>", "| A B | C   |\n| --- | --- |\n| x   | y z |"],
    ['<table><tr><td rowspan="0">L</td><td>1</td></tr><tr><td>2</td></tr><tr><td>3</td></tr></table>', "| L | 1 |\n| - | - |\n|   | 2 |\n|   | 3 |"],
    ["<p>hard<br>break and <strong>bold:</strong>text <em>it </em>x</p>", "hard  \nbreak and **bold:** text *it* x"],
    ["<h2>Issue <br> #</h2>", "## Issue \\#"],
    ["<blockquote>\n<p>q1</p>\n<pre>a\n\n\nb</pre>\n</blockquote>", "> q1\n>\n> ```\n> a\n>\n>\n> b\n> ```"],
  ];
  for (const [html, markdown] of cases) {
    test(JSON.stringify(html).slice(0, 80), () => {
      expect(htmlToMarkdown(html)).toBe(markdown);
    });
  }
});

describe("large data tables stay GFM tables", () => {
  test("5,000 rows of 50 cells (250,000 slots, one per cell) are a GFM table", () => {
    const row = `<tr>${Array.from({ length: 50 }, (_, i) => `<td>c${i}</td>`).join("")}</tr>`;
    const md = htmlToMarkdown(`<table>${row.repeat(5000)}</table>`);
    expect(md.split("\n")).toHaveLength(5001); // a header row, the delimiter row, 4,999 more
    expect(md.startsWith("| c0 | c1 |")).toBe(true);
  });
});

describe("node-html-markdown's own trim (patched in scripts/patches/)", () => {
  test("a <pre> with 100,000 blank lines inside converts in linear time (3.9 s before the patch)", () => {
    const html = `<pre>a${"\n".repeat(100_000)}b</pre>`;
    const t0 = performance.now();
    const md = htmlToMarkdown(html);
    expect(performance.now() - t0).toBeLessThan(1500);
    expect(md.startsWith("```\na\n")).toBe(true);
    expect(md.endsWith("b\n```")).toBe(true);
  });
});
