/**
 * robots.txt parsing and matching after RFC 9309 (reliability.md B5): groups, agent selection, longest match
 * with Allow winning ties, wildcards, end anchors, percent-encoding, Crawl-delay, Sitemap lines, garbage.
 */
import { describe, expect, test } from "bun:test";
import { DEFAULT_ROBOTS_AGENTS, normalizeRobotsPath, robotsAgents, robotsPatternMatches, RobotsTxt } from "../../src/crawl/robots.ts";

const U = (path: string) => `https://example.com${path}`;

describe("robotsPatternMatches", () => {
  test("prefix, wildcard and end anchor", () => {
    expect(robotsPatternMatches("/fish/salmon.html", "/fish")).toBe(true);
    expect(robotsPatternMatches("/Fish.asp", "/fish")).toBe(false);
    expect(robotsPatternMatches("/fish/x.php?id=1", "/*.php")).toBe(true);
    expect(robotsPatternMatches("/x.php", "/*.php$")).toBe(true);
    expect(robotsPatternMatches("/x.php?y", "/*.php$")).toBe(false);
    expect(robotsPatternMatches("/a/b/c", "/a*c")).toBe(true);
    expect(robotsPatternMatches("/a/b/c", "/a*d")).toBe(false);
    expect(robotsPatternMatches("/", "/$")).toBe(true);
    expect(robotsPatternMatches("/x", "/$")).toBe(false);
    expect(robotsPatternMatches("/anything", "*")).toBe(true);
  });
  test("a $ that is not last is a literal", () => {
    expect(robotsPatternMatches("/a$b", "/a$b")).toBe(true);
  });
  test("adversarial pattern × long path stays fast (no backtracking)", () => {
    const pattern = `/${"a*".repeat(200)}b`;
    const path = `/${"a".repeat(5000)}`;
    const t = performance.now();
    expect(robotsPatternMatches(path, pattern)).toBe(false);
    expect(performance.now() - t).toBeLessThan(2000);
  });
});

describe("normalizeRobotsPath", () => {
  test("upper-cases escapes, decodes unreserved, encodes non-ASCII", () => {
    expect(normalizeRobotsPath("/a%7eb")).toBe("/a~b");
    expect(normalizeRobotsPath("/a%2fb")).toBe("/a%2Fb");
    expect(normalizeRobotsPath("/ä")).toBe("/%C3%A4");
    expect(normalizeRobotsPath("/a b")).toBe("/a%20b");
  });
});

describe("RobotsTxt", () => {
  test("longest match wins regardless of order; Allow wins a tie", () => {
    const r = RobotsTxt.parse("User-agent: *\nAllow: /p\nDisallow: /\nDisallow: /folder/\nAllow: /folder/page\nDisallow: /tie\nAllow: /tie\n");
    expect(r.isAllowed(U("/page"))).toBe(true); // "/p" (2) beats "/" (1)
    expect(r.isAllowed(U("/other"))).toBe(false);
    expect(r.isAllowed(U("/folder/x"))).toBe(false);
    expect(r.isAllowed(U("/folder/page"))).toBe(true);
    expect(r.isAllowed(U("/tie"))).toBe(true);
    expect(r.check(U("/folder/x")).rule).toEqual({ allow: false, pattern: "/folder/" });
  });
  test("wildcard rules against the query and the end anchor", () => {
    const r = RobotsTxt.parse("User-agent: *\nDisallow: /*?session=\nDisallow: /*.cgi$\nAllow: /$\nDisallow: /");
    expect(r.isAllowed(U("/"))).toBe(true);
    expect(r.isAllowed(U("/x"))).toBe(false);
    const q = RobotsTxt.parse("User-agent: *\nDisallow: /*?session=\nDisallow: /*.cgi$");
    expect(q.isAllowed(U("/a?session=1"))).toBe(false);
    expect(q.isAllowed(U("/a?x=1"))).toBe(true);
    expect(q.isAllowed(U("/run.cgi"))).toBe(false);
    expect(q.isAllowed(U("/run.cgi?x"))).toBe(true);
  });
  test("our agents first (FireCrawlAgent, product token, case-insensitive), else *", () => {
    const txt = "User-agent: *\nDisallow: /star\n\nUser-agent: firecrawlagent/2.0\nDisallow: /fc\n";
    const r = RobotsTxt.parse(txt);
    expect(r.isAllowed(U("/fc"))).toBe(false);
    expect(r.isAllowed(U("/star"))).toBe(true); // the * group does not apply once ours matched
    expect(r.isAllowed(U("/star"), ["OtherBot"])).toBe(false);
    expect(r.isAllowed(U("/fc"), ["OtherBot"])).toBe(true);
  });
  test("FirecrawlAgent spelling and a custom robotsUserAgent", () => {
    const r = RobotsTxt.parse("User-agent: FirecrawlAgent\nDisallow: /a\n\nUser-agent: MyBot\nDisallow: /b\n");
    expect(r.isAllowed(U("/a"), DEFAULT_ROBOTS_AGENTS)).toBe(false);
    expect(r.isAllowed(U("/a"), robotsAgents("MyBot"))).toBe(true);
    expect(r.isAllowed(U("/b"), robotsAgents("MyBot/1.0"))).toBe(false);
    expect(robotsAgents(undefined)).toBe(DEFAULT_ROBOTS_AGENTS);
    expect(robotsAgents("  ")).toBe(DEFAULT_ROBOTS_AGENTS);
  });
  test("several User-agent lines share a group; a later group for the same agent merges", () => {
    const r = RobotsTxt.parse("User-agent: a\nUser-agent: FireCrawlAgent\nDisallow: /one\n\nUser-agent: b\nDisallow: /two\n\nUser-agent: FireCrawlAgent\nDisallow: /three\n");
    expect(r.isAllowed(U("/one"))).toBe(false);
    expect(r.isAllowed(U("/two"))).toBe(true);
    expect(r.isAllowed(U("/three"))).toBe(false);
    expect(r.isAllowed(U("/one"), ["a"])).toBe(false);
    expect(r.isAllowed(U("/three"), ["a"])).toBe(true);
  });
  test("rules before any User-agent are ignored; no group at all allows everything", () => {
    expect(RobotsTxt.parse("Disallow: /\n").isAllowed(U("/x"))).toBe(true);
    expect(RobotsTxt.parse("User-agent: other\nDisallow: /\n").isAllowed(U("/x"))).toBe(true);
  });
  test("empty Disallow allows all; comments, CRLF and odd spacing are handled", () => {
    const r = RobotsTxt.parse("# hello\r\nUser-Agent : *   # everyone\r\nDisallow:\r\nDisallow: /tmp/ # temp\r\n");
    expect(r.isAllowed(U("/x"))).toBe(true);
    expect(r.isAllowed(U("/tmp/a"))).toBe(false);
  });
  test("percent-encoding: rules and paths compare normalised", () => {
    const r = RobotsTxt.parse("User-agent: *\nDisallow: /%7Euser/\nDisallow: /caf%c3%a9\nDisallow: /ünï\n");
    expect(r.isAllowed(U("/~user/x"))).toBe(false);
    expect(r.isAllowed(U("/café"))).toBe(false);
    expect(r.isAllowed(U("/%C3%BCn%C3%AF"))).toBe(false);
  });
  test("/robots.txt is always allowed", () => {
    expect(RobotsTxt.parse("User-agent: *\nDisallow: /").isAllowed(U("/robots.txt"))).toBe(true);
    expect(RobotsTxt.disallowAll().isAllowed(U("/robots.txt"))).toBe(true);
  });
  test("Crawl-delay per group; invalid values ignored", () => {
    const r = RobotsTxt.parse("User-agent: *\nCrawl-delay: 5\n\nUser-agent: FireCrawlAgent\nCrawl-delay: 0.5\nDisallow: /x\n\nUser-agent: bad\nCrawl-delay: soon\n");
    expect(r.crawlDelaySeconds()).toBe(0.5);
    expect(r.crawlDelaySeconds(["Other"])).toBe(5);
    expect(r.crawlDelaySeconds(["bad"])).toBeUndefined();
  });
  test("Sitemap lines are global, resolved and deduplicated; they do not end a group", () => {
    const r = RobotsTxt.parse("User-agent: *\nSitemap: /s1.xml\nDisallow: /x\nSitemap: https://cdn.example.com/s2.xml\nSitemap: /s1.xml\nSitemap: http://[bad", "https://example.com/robots.txt");
    expect(r.sitemaps).toEqual(["https://example.com/s1.xml", "https://cdn.example.com/s2.xml"]);
    expect(r.isAllowed(U("/x"))).toBe(false);
  });
  test("garbage, HTML and empty files allow everything", () => {
    for (const t of ["", "\u0000\u0001garbage", "<html><body>Not found</body></html>", "User-agent *\nDisallow /"]) {
      expect(RobotsTxt.parse(t).isAllowed(U("/anything"))).toBe(true);
    }
  });
  test("allowAll and disallowAll", () => {
    expect(RobotsTxt.allowAll().isAllowed(U("/x"))).toBe(true);
    expect(RobotsTxt.disallowAll().isAllowed(U("/x"))).toBe(false);
    expect(RobotsTxt.disallowAll().isAllowed(U("/"))).toBe(false);
  });
  test("a 500 KiB file with thousands of rules parses and answers quickly", () => {
    const lines = ["User-agent: *"];
    for (let i = 0, size = 0; size < 500 * 1024; i++) {
      const line = `Disallow: /generated/path-${i}/*/segment$`;
      lines.push(line);
      size += line.length + 1;
    }
    lines.push("Disallow: /last-rule");
    const t = performance.now();
    const r = RobotsTxt.parse(lines.join("\n"));
    expect(r.isAllowed(U("/last-rule/x"))).toBe(false);
    expect(r.isAllowed(U("/generated/path-7/a/segment"))).toBe(false);
    expect(r.isAllowed(U("/free"))).toBe(true);
    expect(performance.now() - t).toBeLessThan(1000);
  });
});
