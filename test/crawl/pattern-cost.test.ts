/**
 * What a caller's includePaths/excludePaths may cost the server. RE2 cannot backtrack, but it steps its program over
 * every character of every discovered URL on the main thread: 22 characters of `(?:a|aa|[^Z]){990}Y` compile to
 * ~6,000 instructions (87 ms per 1 KB URL; a page of 100 such links held the server 13 s). Such patterns are refused
 * when the request arrives, and a page's links are judged in slices that give the event loop back.
 */
import { describe, expect, test } from "bun:test";
import { parseCrawlBody } from "../../src/api/crawl.ts";
import { parseMapBody } from "../../src/api/map.ts";
import { createCrawlFilter } from "../../src/crawl/filter.ts";
import { createYielder, filterLinksYielding } from "../../src/crawl/filter-yielding.ts";
import { MAX_PATTERN_INSTRUCTIONS, pathPatternProblem } from "../../src/crawl/path-pattern.ts";

const refused = (parse: () => unknown) => {
  try {
    parse();
  } catch (e) {
    return e as { status: number; details: { path: (string | number)[]; message: string }[] };
  }
  throw new Error("accepted");
};

describe("pattern size", () => {
  test("a pattern whose matcher program is too large is a 400 naming it; ordinary ones pass", () => {
    expect(pathPatternProblem("^/(docs|api|guides|blog)/[a-z0-9-]+/?$")).toBeUndefined();
    expect(pathPatternProblem("(?:a|aa|[^Z]){990}Y")).toContain(`at most ${MAX_PATTERN_INSTRUCTIONS}`);
    const crawl = refused(() => parseCrawlBody({ url: "https://example.com", includePaths: ["^/blog/", "(?:a|aa|[^Z]){990}Y"] }));
    expect(crawl.status).toBe(400);
    expect(crawl.details[0]!.path).toEqual(["includePaths", 1]);
    expect(crawl.details[0]!.message).toStartWith("Pattern too complex");
    expect(refused(() => parseMapBody({ url: "https://example.com", excludePaths: ["[a-z]{900}[0-9]{900}[a-f]{900}[0-7]{900}[g-z]{900}"] })).status).toBe(400);
    // A literal of the longest length accepted (2,048 characters) is one instruction a character: it fits.
    expect(pathPatternProblem(`^/${"a".repeat(2046)}`)).toBeUndefined();
    expect(() => parseCrawlBody({ url: "https://example.com", includePaths: ["^/blog/", "\\.html$"], excludePaths: ["/tag/"] })).not.toThrow();
  });

  test("patterns within the limit one by one can still be too many together", () => {
    const many = Array.from({ length: 80 }, (_, i) => `^/p${i}/[a-z]{300}`); // ~307 instructions each, 24,560 in all
    expect(pathPatternProblem(many[0]!)).toBeUndefined();
    const e = refused(() => parseCrawlBody({ url: "https://example.com", includePaths: many }));
    expect(e.details[0]!.message).toContain("includePaths and excludePaths together");
  });
});

describe("judging a page's links", () => {
  test("gives the event loop back while it matches, with the same links as one pass", async () => {
    const filter = createCrawlFilter("https://example.com/", { includePaths: [`^/p/[a-z]{400}`], crawlEntireDomain: true });
    const links = Array.from({ length: 4000 }, (_, i) => `https://example.com/p/${"a".repeat(400)}${i}/${"b".repeat(1500)}`);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const accepted = await filterLinksYielding(filter, [...links, ...links.slice(0, 10)], { depth: 0 });
    clearInterval(timer);
    expect(accepted.map((a) => a.url)).toEqual(filter.filterLinks(links, { depth: 0 }).accepted.map((a) => a.url));
    expect(accepted).toHaveLength(4000);
    expect(ticks).toBeGreaterThan(3);
  });
});

describe("the yielder of long loops (links, a sitemap's URLs, a map's list)", () => {
  test("costs nothing until its slice has passed, then gives the event loop back once", async () => {
    const pause = createYielder(5);
    expect(pause()).toBeUndefined();
    const until = performance.now() + 8;
    while (performance.now() < until);
    let ran = false;
    setImmediate(() => (ran = true));
    const p = pause();
    expect(p).toBeInstanceOf(Promise);
    await p;
    expect(ran).toBe(true);
    expect(pause()).toBeUndefined(); // a new slice
  });
});
