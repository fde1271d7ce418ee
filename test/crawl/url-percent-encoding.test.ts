/**
 * Percent-encoding spellings of one URL are one page (RFC 3986 §6.2.2, crawl/url-normalize.ts `dedupKey`):
 * `/caf%C3%A9` and `/caf%c3%a9`, `/~u` and `/%7Eu`, `/a-b` and `/a%2Db` were each listed twice by map (and crawled
 * twice). Escapes of reserved characters stay apart: `/a%2Fb` is not `/a/b`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mapSite } from "../../src/crawl/map.ts";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import { dedupKey } from "../../src/crawl/url-normalize.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";

const SAME: [string, string][] = [
  ["https://a.com/caf%C3%A9", "https://a.com/caf%c3%a9"],
  ["https://a.com/café", "https://a.com/caf%c3%a9"],
  ["https://a.com/~u", "https://a.com/%7Eu"],
  ["https://a.com/~u", "https://a.com/%7eu"],
  ["https://a.com/a-b", "https://a.com/a%2Db"],
  ["https://a.com/a.b_c", "https://a.com/a%2Eb%5Fc"],
  ["https://a.com/x?q=%7e&r=%c3%a9", "https://a.com/x?q=~&r=%C3%A9"],
  ["https://www.a.com/%7Edocs/index.html", "http://a.com/~docs"],
];
const APART: [string, string][] = [
  ["https://a.com/a%2Fb", "https://a.com/a/b"],
  ["https://a.com/x?a=1%26b=2", "https://a.com/x?a=1&b=2"],
  ["https://a.com/a%20b", "https://a.com/a+b"],
  ["https://a.com/%41", "https://a.com/%61"],
];

describe("dedupKey and percent-encoding", () => {
  test("spellings RFC 3986 calls equal share a key, with and without deduplicateSimilarURLs", () => {
    for (const [a, b] of SAME) {
      expect(dedupKey(a)).toBe(dedupKey(b));
      if (!a.includes("www.")) expect(dedupKey(a, { deduplicateSimilarURLs: false })).toBe(dedupKey(b, { deduplicateSimilarURLs: false }));
    }
  });
  test("escapes of reserved characters, and different characters, stay apart", () => {
    for (const [a, b] of APART) expect(dedupKey(a)).not.toBe(dedupKey(b));
  });
  test("the key spells escapes in upper case and unreserved characters plainly", () => {
    expect(dedupKey("https://a.com/caf%c3%a9/%7Eu?x=%2d")).toBe("a.com/caf%C3%A9/~u?x=-");
    expect(dedupKey("https://a.com/caf%c3%a9", { deduplicateSimilarURLs: false })).toBe("https://a.com/caf%C3%A9");
  });
});

describe("map lists one spelling", () => {
  let server: ReturnType<typeof Bun.serve>;
  let gate: EgressGate;
  beforeAll(async () => {
    server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(req) {
        const { pathname: p, origin: o } = new URL(req.url);
        if (p === "/robots.txt") return new Response(`User-agent: *\nSitemap: ${o}/sitemap.xml\n`);
        if (p === "/sitemap.xml") return new Response(`<urlset>${["/caf%C3%A9", "/~u", "/a-b"].map((u) => `<url><loc>${o}${u}</loc></url>`).join("")}</urlset>`, { headers: { "content-type": "application/xml" } });
        const links = p === "/" ? `<a href="/caf%c3%a9">1</a><a href="/%7Eu">2</a><a href="/a%2Db">3</a><a href="/a%2Fb">4</a>` : "";
        return new Response(`<html><body>${links}</body></html>`, { headers: { "content-type": "text/html" } });
      },
    });
    gate = await createEgressGate({ allowPrivateNetwork: true });
  });
  afterAll(async () => {
    await gate.close();
    server.stop(true);
  });

  test("a page linked and listed in three spellings is one result; /a%2Fb is its own", async () => {
    const engine = createHttpEngine({ gate });
    const origin = `http://127.0.0.1:${server.port}`;
    const r = await mapSite({ url: `${origin}/` }, { engine, robots: new RobotsCache({ engine }), gate });
    const paths = r.links.map((l) => new URL(l.url).pathname);
    expect(paths.length).toBe(5); // before: 8
    expect(new Set(paths.map((p) => dedupKey(`${origin}${p}`))).size).toBe(5);
    expect(paths).toContain("/a%2Fb");
  });
});
