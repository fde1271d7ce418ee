/**
 * URL identity (api-v2.md §5.6): normalisation, upstream's permutations, and the dedup key that all
 * permutations share (checked exhaustively on examples and by property).
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { dedupKey, normalizeUrl, urlPermutations } from "../../src/crawl/url-normalize.ts";

describe("normalizeUrl", () => {
  test("drops the fragment, keeps the query by default", () => {
    expect(normalizeUrl("https://a.com/x?y=1#z")).toBe("https://a.com/x?y=1");
  });
  test("drops the query with ignoreQueryParameters", () => {
    expect(normalizeUrl("https://a.com/x?y=1#z", { ignoreQueryParameters: true })).toBe("https://a.com/x");
  });
  test("throws on a relative URL", () => {
    expect(() => normalizeUrl("/x")).toThrow(TypeError);
  });
});

describe("urlPermutations", () => {
  test("www × scheme × path forms of a bare path: 16 variants", () => {
    const p = urlPermutations("https://example.com/docs");
    expect(p).toHaveLength(16);
    for (const v of ["http://example.com/docs", "https://www.example.com/docs/", "http://www.example.com/docs/index.html", "https://example.com/docs/index.php"]) {
      expect(p).toContain(v);
    }
  });
  test("from an index file and from a trailing slash", () => {
    expect(urlPermutations("http://www.a.com/x/index.html")).toContain("https://a.com/x");
    expect(urlPermutations("http://a.com/x/")).toContain("http://www.a.com/x/index.php");
  });
  test("root keeps one slash", () => {
    const p = urlPermutations("https://a.com/");
    expect(p).toContain("http://www.a.com/index.html");
    expect(p.filter((u) => u.endsWith("//"))).toEqual([]);
  });
  test("the query is carried to every variant", () => {
    expect(urlPermutations("https://a.com/x?q=1").every((u) => u.endsWith("?q=1"))).toBe(true);
  });
});

describe("dedupKey", () => {
  test("all permutations of examples share one key", () => {
    for (const url of ["https://example.com/docs", "http://www.example.com/", "https://a.b.example.co.uk/x/y/index.php?q=1", "http://127.0.0.1:8080/a/"]) {
      const keys = new Set(urlPermutations(url).map((u) => dedupKey(u)));
      expect([...keys]).toEqual([dedupKey(url)]);
    }
  });
  test("different pages, queries and ports differ", () => {
    expect(dedupKey("https://a.com/x")).not.toBe(dedupKey("https://a.com/y"));
    expect(dedupKey("https://a.com/x?p=1")).not.toBe(dedupKey("https://a.com/x?p=2"));
    expect(dedupKey("http://a.com:8080/x")).not.toBe(dedupKey("http://a.com:8081/x"));
    expect(dedupKey("https://a.com/x")).not.toBe(dedupKey("https://b.a.com/x"));
  });
  test("ignoreQueryParameters folds query variants", () => {
    expect(dedupKey("https://a.com/x?p=1", { ignoreQueryParameters: true })).toBe(dedupKey("https://a.com/x?p=2", { ignoreQueryParameters: true }));
  });
  test("fragments never matter", () => {
    expect(dedupKey("https://a.com/x#one")).toBe(dedupKey("https://a.com/x#two"));
  });
  test("deduplicateSimilarURLs:false keeps variants apart", () => {
    const o = { deduplicateSimilarURLs: false };
    expect(dedupKey("https://a.com/x", o)).not.toBe(dedupKey("https://www.a.com/x", o));
    expect(dedupKey("https://a.com/x", o)).not.toBe(dedupKey("https://a.com/x/", o));
    expect(dedupKey("https://a.com/x#f", o)).toBe("https://a.com/x");
  });
  test("property: every permutation of any URL has the URL's key", () => {
    const segment = fc.stringMatching(/^[a-z0-9-]{1,8}$/);
    const arb = fc.record({
      https: fc.boolean(),
      www: fc.boolean(),
      host: fc.array(fc.stringMatching(/^[a-z][a-z0-9]{0,6}$/), { minLength: 2, maxLength: 3 }),
      port: fc.option(fc.integer({ min: 1024, max: 65535 }), { nil: undefined }),
      path: fc.array(segment, { maxLength: 4 }),
      tail: fc.constantFrom("", "/", "/index.html", "/index.php"),
      query: fc.option(fc.stringMatching(/^[a-z]=[0-9]{1,3}$/), { nil: undefined }),
    });
    fc.assert(
      fc.property(arb, (r) => {
        const host = `${r.www ? "www." : ""}${r.host.join(".")}`;
        const url = `${r.https ? "https" : "http"}://${host}${r.port ? `:${r.port}` : ""}/${r.path.join("/")}${r.path.length ? r.tail : r.tail.replace(/^\//, "")}${r.query ? `?${r.query}` : ""}`;
        const key = dedupKey(url);
        for (const p of urlPermutations(url)) expect(dedupKey(p)).toBe(key);
      }),
      { numRuns: 300 },
    );
  });
});
