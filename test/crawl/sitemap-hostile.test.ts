/**
 * Sitemap parsing against hostile files: entries, extension elements and `<loc>`s that are never closed, and tags
 * that never end, cost linear time (the lazy regexes before rescanned to the end of the file for each: seconds for a
 * few hundred KB, and a sitemap may be 50 MiB), and the results are those of the regexes on ordinary and malformed
 * files alike.
 */
import { describe, expect, test } from "bun:test";
import { parseSitemap } from "../../src/crawl/sitemap.ts";

/** The parser before the linear one, as the reference: the same steps with the lazy regexes. */
function regexParse(text: string): { kind: string; urls: string[]; sitemaps: string[] } {
  const body = text.replace(/^\uFEFF/, "").trimStart();
  if (!body.startsWith("<")) return parseSitemap(text); // plain text did not change
  const index = /<(?:[\w-]+:)?sitemapindex[\s>]/i.test(body);
  if (!index && !/<(?:[\w-]+:)?urlset[\s>]/i.test(body)) return { kind: "none", urls: [], sitemaps: [] };
  const own = new Set<string>([""]);
  const root = /<(?:([\w.-]+):)?(?:urlset|sitemapindex)[\s>]/i.exec(body);
  if (root?.[1]) own.add(root[1].toLowerCase());
  for (const m of body.matchAll(/\bxmlns:([\w.-]+)\s*=\s*["']([^"']*)["']/gi)) if (m[2]!.includes("sitemaps.org/schemas/sitemap")) own.add(m[1]!.toLowerCase());
  const locs: string[] = [];
  for (const entry of body.matchAll(/<(?:([\w.-]+):)?(url|sitemap)(?:\s[^>]*)?>([\s\S]*?)<\/(?:[\w.-]+:)?\2\s*>/gi)) {
    if (!own.has((entry[1] ?? "").toLowerCase())) continue;
    const content = entry[3]!
      .replace(/<([\w.-]+):([\w.-]+)(?:\s[^>]*)?>[\s\S]*?<\/\1:\2\s*>/g, (m, prefix: string) => (own.has(prefix.toLowerCase()) ? m : ""))
      .replace(/<([\w.-]+):[\w.-]+(?:\s[^>]*)?\/>/g, (m, prefix: string) => (own.has(prefix.toLowerCase()) ? m : ""));
    const m = [...content.matchAll(/<(?:([\w.-]+):)?loc\s*>([\s\S]*?)<\/(?:[\w.-]+:)?loc\s*>/gi)].find((l) => own.has((l[1] ?? "").toLowerCase()));
    if (!m) continue;
    const loc = m[2]!
      .replace(/^\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*$/, "$1")
      .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (e, v: string) => {
        if (v[0] !== "#") return ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" } as Record<string, string>)[v.toLowerCase()] ?? e;
        const cp = v[1] === "x" || v[1] === "X" ? parseInt(v.slice(2), 16) : parseInt(v.slice(1), 10);
        return Number.isFinite(cp) && cp <= 0x10ffff ? String.fromCodePoint(cp) : e;
      })
      .trim();
    if (/^https?:\/\/[^\s]+$/i.test(loc) && URL.canParse(loc)) locs.push(loc);
  }
  if (index) return { kind: "sitemapindex", urls: [], sitemaps: locs };
  const nested = (u: string) => /\.xml(\.gz)?$/i.test(new URL(u).pathname);
  return { kind: "urlset", urls: locs.filter((u) => !nested(u)), sitemaps: locs.filter(nested) };
}

/** A seeded generator, so a failure names its input. */
function random(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s % n;
  };
}

const TOKENS = ["<url>", "</url>", "<URL >", "</Url\n>", "<url a='x>'>", "<sm:url>", "</sm:url>", "</zz:url>", "<sitemap>", "</sitemap >", "<loc>", "</loc>", "<LOC >", "<sm:loc>", "</x:loc>",
  "<image:image>", "</image:image>", "<image:loc>", "</image:loc>", "<Image:image>", "<a:b>", "</a:b >", "</a:bc>", "<sm:foo>", "</sm:foo>", "<xhtml:link href='a'/>", "<a:b />", "<a:b x/ >",
  "<![CDATA[", "]]>", "&amp;", "&#233;", "https://a.com/", "https://b.org/p.xml", "x", " ", "\t", "\n", "\r\n", "<", ">", "/", ":", "</", "<url", "sm:", "\u00a0"];
const ROOTS = ['<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">', "<sm:urlset>", "<sitemapindex>", "<URLSET>"];

/** Time of one parse, in ms. */
function parseMs(text: string): number {
  const t = performance.now();
  parseSitemap(text);
  return performance.now() - t;
}

describe("parseSitemap on hostile files", () => {
  // Each took 3–30 s with the lazy regexes at these sizes (60k repetitions, 0.3–0.8 MB); now a few ms.
  const N = 60_000;
  const hostile: [string, string][] = [
    ["unclosed <url> entries", `<urlset>${"<url>".repeat(N)}`],
    ["<url tags that never end", `<urlset>${"<url x".repeat(N)}`],
    ["unclosed extension elements in one entry", `<urlset><url>${"<image:image>".repeat(N)}</url>`],
    ["unclosed extension elements of many names", `<urlset><url>${Array.from({ length: N }, (_, i) => `<a${i}:b>`).join("")}</url>`],
    ["extension tags that never end", `<urlset><url>${"<a:b x".repeat(N)}</url>`],
    ["unclosed <loc> in one entry", `<urlset><url>${"<loc>".repeat(N)}</url>`],
  ];
  for (const [name, text] of hostile) {
    test(`${name}: linear`, () => {
      expect(parseMs(text)).toBeLessThan(1500);
      expect(parseSitemap(text)).toEqual({ kind: "urlset", urls: [], sitemaps: [] });
    });
  }

  test("good entries after unclosed ones are still found", () => {
    const text = `<urlset><sitemap><loc>https://a.com/x</loc>${"<sitemap>".repeat(N)}<url><loc>https://a.com/1</loc></url><url><loc>https://a.com/2</loc></url>`;
    expect(parseMs(text)).toBeLessThan(1500);
    expect(parseSitemap(text).urls).toEqual(["https://a.com/1", "https://a.com/2"]);
  });

  test("a well-formed 200k-entry sitemap with images (28 MB) still parses well within 10 s", () => {
    const text = `<urlset>${Array.from({ length: 200_000 }, (_, i) => `<url><loc>https://a.com/p/${i}</loc><lastmod>2024-01-01</lastmod><image:image><image:loc>https://a.com/i/${i}.jpg</image:loc></image:image></url>`).join("\n")}</urlset>`;
    const t = performance.now();
    expect(parseSitemap(text).urls.length).toBe(200_000);
    expect(performance.now() - t).toBeLessThan(10_000);
  });
});

describe("parseSitemap gives the regexes' results", () => {
  test("malformed files: nested, truncated, unclosed", () => {
    const cases: [string, string[]][] = [
      ["<urlset><url><loc>https://a.com/1</loc><url><loc>https://a.com/2</loc></url></urlset>", ["https://a.com/1"]],
      ["<urlset><url><loc>https://a.com/1</loc></url><url><loc>https://a.com/2</lo", ["https://a.com/1"]],
      ["<urlset><url><loc>https://a.com/1</url><url><loc>https://a.com/2</loc></url>", ["https://a.com/2"]],
      ["<urlset><url><image:image><loc>https://a.com/img</loc></url><url><loc>https://a.com/2</loc></url>", ["https://a.com/img", "https://a.com/2"]],
      ["<urlset><url><x:loc>https://a.com/no</x:loc><loc>https://a.com/yes</loc></url>", ["https://a.com/yes"]],
      ["<urlset><URL><LOC >https://a.com/1</Loc\n></url ></urlset>", ["https://a.com/1"]],
    ];
    for (const [text, urls] of cases) {
      expect(parseSitemap(text).urls).toEqual(urls);
      expect(regexParse(text).urls).toEqual(urls);
    }
  });

  test("3000 random sitemap-like files: namespaces, CDATA, entities, whitespace, nesting, truncation", () => {
    const rnd = random(7);
    let found = 0;
    for (let i = 0; i < 3000; i++) {
      let text = ROOTS[rnd(ROOTS.length)]!;
      const n = rnd(40);
      for (let k = 0; k < n; k++) text += rnd(4) === 0 ? `<url><loc>https://a.com/${k}</loc></url>` : TOKENS[rnd(TOKENS.length)]!;
      if (rnd(3) === 0) text = text.slice(0, rnd(text.length + 1));
      const expected = regexParse(text);
      const actual = parseSitemap(text);
      if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`differs on ${JSON.stringify(text)}`);
      found += actual.urls.length + actual.sitemaps.length;
    }
    expect(found).toBeGreaterThan(1000);
  });
});
