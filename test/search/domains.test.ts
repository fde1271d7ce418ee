/**
 * `includeDomains` / `excludeDomains` as callers write them, reduced to host names (src/search/query.ts), in linear
 * time: the reduction cut a path with `/[/?#].*$/`, which rescanned the rest of the text from every `/` when a line
 * break followed (250 KB of slashes held the server 20 s), and ran again for every hit and domain.
 */
import { describe, expect, test } from "bun:test";
import { domainOf, inDomain, siteTerms } from "../../src/search/query.ts";

describe("search domains", () => {
  test("spellings of one domain reduce to its host", () => {
    for (const d of ["example.com", "*.example.com", ".example.com", "www.example.com", "https://www.example.com/path?q=1#f", "Example.com:8080", "example.com.", " example.com/ "]) {
      expect(domainOf(d)).toBe("example.com");
    }
    expect(domainOf("example.com?x")).toBe("example.com");
    expect(domainOf("example.com#x")).toBe("example.com");
    expect(inDomain("docs.example.com", "https://example.com/")).toBe(true);
    expect(inDomain("notexample.com", "example.com")).toBe(false);
    expect(siteTerms(["https://www.example.com/a"], [])).toBe(" site:example.com");
  });

  test("a hostile domain of 250,000 slashes before a line break is reduced in linear time", () => {
    const t0 = performance.now();
    expect(domainOf(`a${"/".repeat(250_000)}\nb`)).toBe("a");
    expect(performance.now() - t0).toBeLessThan(200);
  });
});
