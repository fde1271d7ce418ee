/**
 * parseHtml and cleanHtml against markup built to make them slow: a `<![CDATA[` followed by many unclosed `<svg>`,
 * `<math>`, `<script>` or `<style>` (the CDATA handling cut the page around those elements with a regex that rescanned
 * the rest of the input from each one), and one element with very many attributes (cleanHtml looked each value up by
 * name). Each timing is a ceiling far above the fixed code's time and far below the old code's.
 */
import { describe, expect, test } from "bun:test";
import { cleanHtml, parseHtml } from "../../src/pipeline/index.ts";

/** Milliseconds `fn` takes. */
function timeMs(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

const CLEAN = { baseUrl: "https://example.com/dir/page", onlyMainContent: false, removeBase64Images: true };

describe("parseHtml: CDATA next to unclosed raw-text and foreign elements", () => {
  for (const [tag, xml] of [["svg", false], ["math", false], ["script", false], ["style", false], ["script", true], ["style", true]] as const) {
    test(`<![CDATA[ then 60,000 unclosed <${tag}${xml ? " (XML)" : ""}: linear (took 4 to 9 s)`, () => {
      // `<svg<svg…` and `<math<math…`: start tags the old regex tried one by one, without building 60,000 nested elements.
      const hostile = `<![CDATA[x]]>${(tag === "svg" || tag === "math" ? `<${tag}` : `<${tag}>`).repeat(60_000)}`;
      expect(timeMs(() => parseHtml(hostile, { xml }))).toBeLessThan(1_500);
    });
  }

  test("CDATA outside script, style, svg and math is still neutralised; inside them it is kept", () => {
    const doc = parseHtml(
      "<p>a</p><![CDATA[ <p>b</p><script>//<![CDATA[\nx()//]]></script><svg><![CDATA[s]]></svg><STYLE>/*<![CDATA[*/</STYLE >" +
        "<math><![CDATA[m]]></math><p>c</p>",
    );
    expect(doc.body.innerHTML).toBe(
      "<p>a</p> <p>b</p><script>//<![CDATA[\nx()//]]></script><svg><!--[CDATA[s]]--></svg><style>/*<![CDATA[*/</style>" +
        "<math><!--[CDATA[m]]--></math><p>c</p>",
    );
  });

  test("an unclosed <svg> does not protect a CDATA after it (as before): the page after it is kept", () => {
    // Had the unclosed <svg> run to the end of the input, the CDATA would have swallowed "after".
    const doc = parseHtml("<html><body><p>x</p><svg><path/></svg><svg><g><![CDATA[ <p>after</p></body></html>");
    expect(doc.body.innerHTML).toBe("<p>x</p><svg><path /></svg><svg><g><!--[CDATA[--> <p>after</p></g></svg>");
    // Elements of another kind after an unclosed one are still found.
    const later = parseHtml("<svg><p>x</p><script>//<![CDATA[\n</script><![CDATA[ <p>after</p>");
    expect(later.body.innerHTML).toBe("<svg><p>x</p><script>//&lt;![CDATA[\n</script><!--[CDATA[--> <p>after</p></svg>");
  });

  test("XML: CDATA sections become text, except inside script and style", () => {
    const doc = parseHtml("<p><![CDATA[a <b> & c]]></p><script><![CDATA[ if (a < b) {} ]]></script><p><![CDATA[open", { xml: true });
    expect(doc.body.innerHTML).toBe("<p>a &lt;b&gt; &amp; c</p><script><![CDATA[ if (a < b) {} ]]></script><p>open</p>");
  });
});

describe("cleanHtml: an element with very many attributes", () => {
  test("60,000 attributes on one <div>: linear (took 4.8 s)", () => {
    const attributes = Array.from({ length: 60_000 }, (_, i) => ` data-a${i}="v${i}"`).join("");
    const doc = parseHtml(`<div${attributes}>x</div>`);
    let html = "";
    expect(timeMs(() => (html = cleanHtml(doc, CLEAN)))).toBeLessThan(1_000);
    expect(html.startsWith('<div data-a0="v0" data-a1="v1"')).toBe(true);
    expect(html.endsWith(' data-a59999="v59999">x</div>')).toBe(true);
  });

  // The first <img>'s tiny data: src is a placeholder: its srcset's largest candidate is what a browser shows, so it
  // is the src (lazy-images.ts imageSource); it used to be dropped with no src at all.
  // `HREF` and `href` on one element are one attribute, the first, as a browser's tokenizer reads them (names are
  // lower-cased in HTML; the second `href` is a duplicate and dropped).
  test("attributes are written as before: in order, class normalised, URLs resolved (lower-case names), data images dropped", () => {
    const doc = parseHtml(
      `<div id="d" class="  b  a b " data-q='say "hi" &amp; bye' hidden><a HREF="../x?a=1&amp;b=2" href="/y">l</a>` +
        `<img alt="p" src="data:image/png;base64,AAAA" srcset="a.png 1x, b.png 2x"><img data-src="lazy.png" alt="z"></div>`,
    );
    expect(cleanHtml(doc, CLEAN)).toBe(
      '<div id="d" class="b a" data-q="say &quot;hi&quot; &amp; bye" hidden="">' +
        '<a href="https://example.com/x?a=1&amp;b=2">l</a>' +
        '<img alt="p" src="https://example.com/dir/b.png" srcset="https://example.com/dir/a.png 1x, https://example.com/dir/b.png 2x">' +
        '<img data-src="lazy.png" alt="z" src="https://example.com/dir/lazy.png"></div>',
    );
  });
});
