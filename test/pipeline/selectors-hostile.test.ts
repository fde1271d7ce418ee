/**
 * The caller's CSS selectors (`includeTags`/`excludeTags`, the `attributes` format) against pages built to make
 * css-select slow, through linkedom as patched in scripts/patches/. Unpatched, a chain of descendant combinators
 * backtracked exponentially (`span div div div div div div` on 60 nested <div>: 4 s, 80: a minute), and every
 * sibling test was quadratic: linkedom rebuilt a parent's child list for each element tested and css-select scanned
 * the siblings before each element (`p:nth-child(2n)` on 16,000 <p>: 2 s; a 1 MiB page holds 150,000). Each
 * timing is a ceiling far above the patched code's time and far below the old code's; the last tests pin what
 * ordinary selectors match, which the patches must not change.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { extractAttributes } from "../../src/pipeline/attributes.ts";
import { cleanHtml, parseHtml } from "../../src/pipeline/index.ts";

/** Milliseconds `fn` takes, and what it returned. */
function timed<T>(fn: () => T): { ms: number; value: T } {
  const start = performance.now();
  const value = fn();
  return { ms: performance.now() - start, value };
}

const clean = (html: string, tags: { includeTags?: string[]; excludeTags?: string[] }) =>
  cleanHtml(parseHtml(html), { baseUrl: "https://example.com/", onlyMainContent: false, removeBase64Images: true, ...tags });

/** How many elements `selector` matches in `doc` (the attributes format, reading an attribute all of them have). */
const count = (doc: Document, selector: string) => extractAttributes(doc, [{ selector, attribute: "data-n" }])[0]!.values.length;

const nested = (depth: number) => `<html><body>${"<div data-n=1>".repeat(depth)}x${"</div>".repeat(depth)}</body></html>`;

beforeAll(() => {
  clean(nested(3), { excludeTags: ["span div div"] });
});

describe("descendant chains: linear, not exponential in the chain's length", () => {
  for (const depth of [80, 250]) {
    test(`excludeTags "span div div div div div div" on ${depth} nested <div> (old: 60 s at 80)`, () => {
      const { ms, value } = timed(() => clean(nested(depth), { excludeTags: ["span div div div div div div"] }));
      expect(value.match(/<div/g)?.length).toBe(depth);
      expect(ms).toBeLessThan(500);
    });
  }

  test("the attributes format and includeTags with chains of 12 on 250 nested <div> (about the depth kept, MAX_DOM_DEPTH)", () => {
    const doc = parseHtml(nested(250));
    const chain = `section ${"div ".repeat(11)}div`;
    const { ms, value } = timed(() => [count(doc, chain), count(doc, `body ${"div ".repeat(11)}div`), clean(nested(250), { includeTags: [chain] })]);
    expect(value).toEqual([0, 250 - 11, ""]);
    expect(ms).toBeLessThan(1_000);
  });
});

describe("sibling tests: linear in the number of siblings", () => {
  const SIBLINGS = 64_000;
  const page = `<html><body>${'<p data-n="1">a</p>'.repeat(SIBLINGS)}</body></html>`;
  let doc: Document;
  beforeAll(() => {
    doc = parseHtml(page);
  });

  // [selector, matches]; old times at 16,000 <p> on a 2-core VM (at 64,000: 16 times as long).
  const cases: [string, number][] = [
    ["p:first-child", 1], // 1.6 s
    ["p + p", SIBLINGS - 1], // 1.8 s
    ["a ~ p", 0], // 2.4 s
    ["p:nth-child(2n)", SIBLINGS / 2], // 2.0 s
    ["p:nth-last-child(2n)", SIBLINGS / 2], // 1.7 s
    ["p:nth-of-type(3)", 1], // 2.7 s
    ["p:nth-child(2n of p)", SIBLINGS / 2], // 2.6 s
    ["p:last-child", 1], // 1.5 s
    [":first-of-type", 1], // 1.6 s
    ["p:only-child", 0], // 1.6 s
  ];
  for (const [selector, matches] of cases) {
    test(`"${selector}" on ${SIBLINGS.toLocaleString("en")} <p> (old: ~25 s)`, () => {
      const { ms, value } = timed(() => count(doc, selector));
      expect(value).toBe(matches);
      expect(ms).toBeLessThan(1_000);
    });
  }

  test(`includeTags "p:first-child" on ${SIBLINGS.toLocaleString("en")} <p>: the html format of one paragraph`, () => {
    const { ms, value } = timed(() => clean(page, { includeTags: ["p:first-child"] }));
    expect(value).toBe('<p data-n="1">a</p>');
    expect(ms).toBeLessThan(2_000);
  });

  test("siblings of other names or not elements in between: the -of-type and last tests do not scan them", () => {
    const n = 40_000;
    const mixed = parseHtml(`<html><body><div>${"<b data-n=1></b>".repeat(n)}${"<i data-n=1></i>".repeat(n)}</div><div>${"<p data-n=1></p>".repeat(n)}${"<!---->".repeat(n)}</div></body></html>`);
    const { ms, value } = timed(() => ["i:first-of-type", "b:last-of-type", "b:only-of-type", "p:last-child", "p:nth-last-child(1)", "i ~ b"].map((s) => count(mixed, s)));
    expect(value).toEqual([1, 1, 0, 1, 1, 0]);
    expect(ms).toBeLessThan(2_000);
  });
});

describe("ordinary selectors match what they matched", () => {
  const PAGE = `<html><body>
    <ul><li data-n=l1>1</li><li data-n=l2>2</li> <!-- c --> <li data-n=l3>3</li>t<li data-n=l4>4</li><li data-n=l5>5</li></ul>
    <div data-n=d><h2 data-n=h1>A</h2><p data-n=p1>a</p><span data-n=s1>s</span><p data-n=p2>b</p><h2 data-n=h2>B</h2><p data-n=p3>c</p></div>
    <section data-n=sec><article><div data-n=d2><p class=x data-n=x1><span data-n=x2>y</span></p></div></article></section>
  </body></html>`;
  const CASES: [string, string[]][] = [
    ["li:nth-child(2n)", ["l2", "l4"]],
    ["li:nth-last-child(2)", ["l4"]],
    ["li:first-child, li:last-child", ["l1", "l5"]],
    ["li:nth-child(n+2):nth-last-child(n+2)", ["l2", "l3", "l4"]],
    ["h2 ~ p", ["p1", "p2", "p3"]],
    ["h2 + p", ["p1", "p3"]],
    ["span ~ h2 + p", ["p3"]],
    ["p:first-of-type", ["p1", "x1"]],
    ["p:last-of-type", ["p3", "x1"]],
    ["span:only-of-type", ["s1", "x2"]],
    ["span:only-child", ["x2"]],
    ["p:nth-child(2 of p)", ["p2"]],
    ["p:nth-last-of-type(2)", ["p2"]],
    ["section div p.x span", ["x2"]],
    ["section article > div p span", ["x2"]],
    ["body div span", ["s1", "x2"]],
    ["div:has(> h2 ~ p) p:nth-last-of-type(1)", ["p3"]],
    ["div :is(h2, span) + p", ["p1", "p2", "p3"]],
    ["div:not(section div) > p:not(:first-of-type)", ["p2", "p3"]],
  ];
  for (const [selector, expected] of CASES) {
    test(selector, () => {
      expect(extractAttributes(parseHtml(PAGE), [{ selector, attribute: "data-n" }])[0]!.values).toEqual(expected);
    });
  }

  test("includeTags and excludeTags with combinators and positions", () => {
    expect(clean(PAGE, { includeTags: ["ul li:nth-child(odd)"], excludeTags: ["li + li + li + li + li"] })).toBe("<li data-n=\"l1\">1</li>\n<li data-n=\"l3\">3</li>");
    expect(clean(PAGE, { includeTags: ["div h2 ~ p"], excludeTags: ["span + p"] })).toBe('<p data-n="p1">a</p>\n<p data-n="p3">c</p>');
  });
});
