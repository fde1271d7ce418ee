/**
 * Formulas, superscripts and subscripts (src/pipeline/markdown/math.ts). They came out as bare text that changed
 * their meaning (`10<sup>6</sup> km<sup>2</sup>` → "106 km2", MathML `y²` → "y2"), and a formula carrying its TeX
 * two or three times over (Wikipedia: `E=mc2{\displaystyle E=mc^{2}}![…](….svg)`; KaTeX: `eiπe^{i\pi}eiπ`).
 */
import { describe, expect, test } from "bun:test";
import { cleanHtml, htmlToMarkdown, parseHtml } from "../../src/pipeline/index.ts";

/** A Wikipedia formula as the site serves it: hidden MathML with the TeX, and an SVG fallback whose alt is the TeX. */
const WIKIPEDIA =
  `<p>Energy is <span class="mwe-math-element"><span class="mwe-math-mathml-inline mwe-math-mathml-a11y" style="display: none;">` +
  `<math xmlns="http://www.w3.org/1998/Math/MathML" alttext="{\\displaystyle E=mc^{2}}"><semantics><mrow><mstyle displaystyle="true"><mi>E</mi><mo>=</mo><mi>m</mi>` +
  `<msup><mi>c</mi><mrow><mn>2</mn></mrow></msup></mstyle></mrow><annotation encoding="application/x-tex">{\\displaystyle E=mc^{2}}</annotation></semantics></math></span>` +
  `<img src="https://wikimedia.org/api/rest_v1/media/math/render/svg/abc" class="mwe-math-fallback-image-inline mw-invert" aria-hidden="true" alt="{\\displaystyle E=mc^{2}}"></span> in physics.</p>`;
/** KaTeX's output: MathML with the TeX for machines, and a visual copy for the eye. */
const KATEX =
  `<p>Euler: <span class="katex"><span class="katex-mathml"><math xmlns="http://www.w3.org/1998/Math/MathML"><semantics><mrow><msup><mi>e</mi><mrow><mi>i</mi><mi>π</mi></mrow></msup></mrow>` +
  `<annotation encoding="application/x-tex">e^{i\\pi}</annotation></semantics></math></span><span class="katex-html" aria-hidden="true"><span class="base"><span class="mord">e</span><span class="msupsub">iπ</span></span></span></span> holds.</p>`;

describe("superscripts and subscripts", () => {
  test("inside code they are the code's text, not tags", () => {
    expect(htmlToMarkdown("<p><code>x<sup>2</sup></code></p>")).toBe("`x2`");
  });

  test("stay HTML: 10<sup>6</sup> is not 106", () => {
    expect(htmlToMarkdown("<p>10<sup>6</sup> km<sup>2</sup> and H<sub>2</sub>O</p>")).toBe("10<sup>6</sup> km<sup>2</sup> and H<sub>2</sub>O");
    expect(htmlToMarkdown("<table><tr><th>unit</th></tr><tr><td>m<sup>2</sup></td></tr></table>")).toContain("| m<sup>2</sup> |");
  });

  test("a footnote mark (a link in a sup) stays its link", () => {
    expect(htmlToMarkdown('<p>Claim.<sup id="r1"><a href="#cite_note-1">[1]</a></sup></p>')).toBe("Claim.[\\[1\\]](#cite_note-1)");
  });
});

describe("formulas", () => {
  test("Wikipedia's formula is its TeX, once, with or without main content", () => {
    for (const onlyMainContent of [true, false]) {
      const page = `<html><body><article><h1>Mass–energy</h1>${WIKIPEDIA}<p>${"A paragraph about relativity and its history. ".repeat(8)}</p></article></body></html>`;
      const md = htmlToMarkdown(cleanHtml(parseHtml(page), { baseUrl: "https://en.wikipedia.org/wiki/X", onlyMainContent, removeBase64Images: true }));
      expect(md).toContain("Energy is $`E=mc^{2}`$ in physics.");
      expect(md).not.toContain("displaystyle");
    }
  });

  test("KaTeX: the TeX once, its visual copy dropped", () => {
    expect(htmlToMarkdown(KATEX)).toBe("Euler: $`e^{i\\pi}`$ holds.");
  });

  test("display math is a ```math block; MathML without TeX writes its scripts; a '<' in TeX cannot open a tag", () => {
    expect(htmlToMarkdown('<p>So</p><math display="block"><semantics><mi>x</mi><annotation encoding="application/x-tex">\\int_0^1 x\\,dx</annotation></semantics></math><p>done</p>')).toBe(
      "So\n\n```math\n\\int_0^1 x\\,dx\n```\n\ndone",
    );
    expect(htmlToMarkdown("<p><math><msup><mi>y</mi><mn>2</mn></msup><mo>+</mo><msub><mi>x</mi><mn>0</mn></msub></math></p>")).toBe("y<sup>2</sup>+x<sub>0</sub>");
    // The TeX is code (GitHub's math syntax): a page's TeX cannot write markdown or HTML, nor end early at a `$`.
    expect(htmlToMarkdown('<p><math alttext="a<b>c [x](https://evil.example/) $"><mi>a</mi></math></p>')).toBe("$`a<b>c [x](https://evil.example/) $`$");
    expect(htmlToMarkdown('<math display="block" alttext="a\n\n# h"><mi>a</mi></math>')).toBe("```math\na\n\n# h\n```");
    expect(htmlToMarkdown("<p><math><msup><mi>[a](x)</mi><mn>2</mn></msup></math></p>")).toBe("\\[a\\](x)<sup>2</sup>");
  });
});
