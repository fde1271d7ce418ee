/**
 * Map's `search` order (crawl/search-rank.ts) and its early stop with a small `limit` (crawl/map-discovery.ts).
 * `search:"pricing", limit:1` answered an uppercase 404 variant `/Pricing` or `/blog/post-1-pricing-update`, not
 * `/pricing`: discovery stopped at the first weak match, before the pages whose titles count were fetched, ties kept
 * discovery order, and nothing preferred a path that is the query. Words under 4 letters had no plural: `search:"faqs"`
 * found nothing though `/docs/faq` existed. The exact last segment then came before any score, so an unfetched tag page
 * `/blog/tag/python-sdk` beat `/docs/sdk/python` titled "Python SDK"; it is now a bonus. A title bonus as large, given
 * to any title with the words, then put `/docs` ("Documentation") behind its children titled "… | Acme Docs"; only a
 * title's leading part counts now, for less. One-letter and numeric words matched inside any word (`"a guide"` kept
 * `/about`, `"page 2"` gave `/blog/page-21` the phrase bonus); they match whole words now.
 * Local `Bun.serve({ port: 0 })` site.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rankBySearch } from "../../src/crawl/search-rank.ts";
import { htmlPage, startMapTestSite, type MapTestSite } from "../helpers/map-test-site.ts";

const HOME_LINKS = ["/blog/post-1-pricing-update", "/Pricing", "/about", "/team", "/pricing", "/en/pricing", "/docs/faq"];

let site: MapTestSite;
beforeAll(async () => {
  site = await startMapTestSite((u) => {
    const path = u.pathname;
    if (path === "/robots.txt" || path.endsWith(".xml") || path === "/Pricing") return new Response("not found", { status: 404 });
    return htmlPage(path === "/pricing" ? "Pricing plans" : path === "/" ? "Home" : `Page ${path}`, path === "/" ? HOME_LINKS : []);
  });
});
afterAll(() => site.close());

const fetchedTimes = (path: string) => site.hits.filter((h) => h === path).length;
const urls = (r: { links: { url: string }[] }) => r.links.map((l) => l.url);
const at = (...paths: string[]) => paths.map((p) => `https://example.com${p}`);
const ranked = (paths: string[], search: string) => rankBySearch(at(...paths).map((url) => ({ url })), search).map((l) => l.url);
/** The paths of `[path, title?]` links ranked for `search`. */
const rankedWith = (links: [string, string?][], search: string) =>
  rankBySearch(links.map(([path, title]) => ({ url: `https://example.com${path}`, ...(title ? { title } : {}) })), search).map((l) => new URL(l.url).pathname);

describe("search order", () => {
  test("a path whose last segment is the query comes first: in lower case, then the shortest", () => {
    expect(ranked(["/blog/post-1-pricing-update", "/Pricing", "/en/pricing/", "/pricing"], "pricing")).toEqual(at("/pricing", "/en/pricing/", "/Pricing", "/blog/post-1-pricing-update"));
    expect(ranked(["/blog/getting-started-with-tags", "/docs/getting-started"], "getting started")).toEqual(at("/docs/getting-started", "/blog/getting-started-with-tags"));
    expect(ranked(["/pricing-old", "/pricing.html"], "pricing")).toEqual(at("/pricing.html", "/pricing-old"));
    // Other links keep their order on equal scores.
    expect(ranked(["/b/pricing-x", "/a/pricing-y"], "pricing")).toEqual(at("/b/pricing-x", "/a/pricing-y"));
  });

  test("an exact last segment is a bonus, not a tier above every score: a page titled as the query outranks a bare one", () => {
    expect(rankedWith([["/blog/tag/python-sdk"], ["/docs/sdk/python", "Python SDK"]], "python sdk")).toEqual(["/docs/sdk/python", "/blog/tag/python-sdk"]);
    expect(rankedWith([["/blog/tag/api"], ["/docs/api-reference", "API Reference"]], "api")).toEqual(["/docs/api-reference", "/blog/tag/api"]);
    expect(rankedWith([["/careers/jobs/security"], ["/trust/security-overview", "Security at Acme"]], "security")).toEqual(["/trust/security-overview", "/careers/jobs/security"]);
    expect(rankedWith([["/blog/2019/03/pricing"], ["/en-us/pricing-plans", "Pricing"]], "pricing")).toEqual(["/en-us/pricing-plans", "/blog/2019/03/pricing"]);
  });

  test("a section's root stays first: a title that only names the site after a separator (\"… | Acme Docs\") gets no bonus", () => {
    const children = ["quickstart", "install", "api", "sdk/python", "sdk/node", "guides/auth", "guides/webhooks", "faq"];
    const separators = [" | ", " - ", " — ", ": "];
    const links = [
      { url: "https://example.com/about", title: "About Acme" },
      ...children.map((c, i) => ({ url: `https://example.com/docs/${c}`, title: `${c.replace(/.*\//, "")}${separators[i % 4]}Acme Docs` })),
      { url: "https://example.com/docs", title: "Documentation" },
      { url: "https://example.com/pricing", title: "Pricing | Acme" },
    ];
    const paths = rankBySearch(links, "docs").map((l) => new URL(l.url).pathname);
    expect(paths[0]).toBe("/docs"); // before: 9th of 9 (children scored 3 + 2 + 3 = 8, /docs 3 + 3 = 6)
    expect(paths).toHaveLength(9);
    // A title whose own name has the words still gets its bonus (with its title words, more than an untitled exact segment).
    const named = rankBySearch([{ url: "https://example.com/docs" }, { url: "https://example.com/x/docs-hub", title: "Docs hub | Acme" }], "docs");
    expect(named.map((l) => new URL(l.url).pathname)).toEqual(["/x/docs-hub", "/docs"]);
  });

  test("an index file is its folder: /pricing/index.html is an exact match, as shallow as /pricing", () => {
    expect(ranked(["/blog/pricing-news", "/en/pricing", "/pricing/index.html"], "pricing")).toEqual(at("/pricing/index.html", "/en/pricing", "/blog/pricing-news"));
  });

  test("words under 4 letters match their plural, both ways", () => {
    expect(ranked(["/docs/faq"], "faqs")).toEqual(at("/docs/faq"));
    expect(ranked(["/reference/api"], "apis")).toEqual(at("/reference/api"));
    expect(ranked(["/account/keys"], "key")).toEqual(at("/account/keys"));
    expect(ranked(["/shop/boxes"], "box")).toEqual(at("/shop/boxes"));
  });

  test("not every word ending in s is a plural", () => {
    expect(ranked(["/whats-new"], "news")).toEqual([]);
    expect(ranked(["/les"], "less")).toEqual([]); // a word ending in s takes no +s
    expect(ranked(["/notes"], "not")).toEqual(at("/notes")); // a substring still counts, as before…
    expect(ranked(["/notes", "/not"], "not")).toEqual(at("/not", "/notes")); // …below the word itself
    expect(ranked(["/go"], "gos")).toEqual([]); // two letters: no plural rule
  });
});

describe("short and numeric query words", () => {
  test("a one-letter word matches a whole word only: 'a guide' does not keep every URL or title with an 'a'", () => {
    const links: [string, string?][] = [["/about", "About us"], ["/data", "Data guide"], ["/guides/setup", "Setup guide"], ["/blog/a-guide-to-maps", "A guide to maps"], ["/team", "Our team"]];
    // Before: /about kept (an 'a' in its URL and title), "Data guide" given the phrase bonus ("a guide" inside it) and
    // put before the setup guide: ["/blog/a-guide-to-maps", "/data", "/guides/setup", "/about", "/team"].
    expect(rankedWith(links, "a guide")).toEqual(["/blog/a-guide-to-maps", "/guides/setup", "/data"]);
    expect(rankedWith([["/about"], ["/faq"], ["/x/a"]], "a")).toEqual(["/x/a"]);
  });

  test("a word with a digit matches whole words only: 'page 2' is not in page-21 or page-12, 'v2' not in v20, '2024' not in 20245", () => {
    // Before: ["/blog/page-2", "/blog/page-21", "/blog/page-12"] (page-21 had the phrase bonus, page-12 a point for its "2").
    expect(rankedWith([["/blog/page-12"], ["/blog/page-2"], ["/blog/page-21"]], "page 2")).toEqual(["/blog/page-2", "/blog/page-12", "/blog/page-21"]);
    // Before: /releases/v20 and /v2beta kept (last) for the "v2" inside them.
    expect(rankedWith([["/releases/v20", "Release v20"], ["/docs/v1/api", "API v1"], ["/v2beta"], ["/docs/v2/api", "API v2"]], "v2 api")).toEqual(["/docs/v2/api", "/docs/v1/api"]);
    expect(rankedWith([["/archive/20245"], ["/archive/2024"]], "2024")).toEqual(["/archive/2024"]);
  });

  test("the exact segment and leading-title bonuses still apply, and longer words keep their stems and substrings", () => {
    expect(rankedWith([["/blog/v2-release-notes"], ["/docs/v2", "Docs"]], "v2")).toEqual(["/docs/v2", "/blog/v2-release-notes"]);
    expect(rankedWith([["/x/ai-news", "News | AI"], ["/y/ai-tools", "AI tools"]], "ai")).toEqual(["/y/ai-tools", "/x/ai-news"]);
    expect(rankedWith([["/guides/setup"], ["/guidebook"]], "guide")).toEqual(["/guides/setup", "/guidebook"]);
    // Words in a script written without spaces keep substring matching: one character is a word there.
    expect(rankedWith([["/x", "猫の写真"], ["/y", "犬"]], "猫")).toEqual(["/x"]);
  });

  test("short words of scripts that attach particles or prefixes keep substring matching: Korean, Hebrew", () => {
    // Hangul: particles and compounds are written onto a noun of mostly 2 syllables. The whole-word rule answered [] [].
    expect(rankedWith([["/ko/a", "서울의 회사 소개"], ["/ko/b", "서울시 관광"], ["/ko/c", "부산 관광"]], "서울")).toEqual(["/ko/a", "/ko/b"]);
    expect(rankedWith([["/ko/p", "요금제 가격표"], ["/ko/q", "회사 소개"]], "가격")).toEqual(["/ko/p"]);
    expect(rankedWith([["/ko/%EC%84%9C%EC%9A%B8%EC%8B%9C"]], "서울")).toEqual(["/ko/%EC%84%9C%EC%9A%B8%EC%8B%9C"]);
    // Hebrew: "in the garden" is one word, בגן.
    expect(rankedWith([["/he/g", "בגן החיות"]], "גן")).toEqual(["/he/g"]);
  });

  test("a number is whole beside digits and Latin letters, not beside a script that writes words on: '2024' in 2024年度, 2024년", () => {
    // The whole-word rule dropped both; "20245" and "v20" still do not match.
    expect(rankedWith([["/ja/r", "2024年度報告"], ["/x/20245"], ["/ko/r", "2024년 보고서"]], "2024")).toEqual(["/ja/r", "/ko/r"]);
    expect(rankedWith([["/ko/v2%EB%B2%84%EC%A0%84"], ["/v20"]], "v2")).toEqual(["/ko/v2%EB%B2%84%EC%A0%84"]);
    // The phrase bonus too: "報告 2024年" has it (and so comes first), "報告 20245年 2024" not.
    expect(rankedWith([["/a", "報告 2024年"], ["/b", "報告 20245年 2024"]], "報告 2024")).toEqual(["/a", "/b"]);
  });
});

describe("map: search with a small limit", () => {
  test("limit 1 answers the page that is the query, fetched for its title; unrelated pages are not fetched", async () => {
    const r = await site.map({ search: "pricing", limit: 1 });
    expect(r.links).toEqual([{ url: `${site.origin}/pricing`, title: "Pricing plans" }]);
    expect(fetchedTimes("/pricing")).toBe(1);
    expect(fetchedTimes("/about")).toBe(0);
    expect(fetchedTimes("/team")).toBe(0);
  });

  test("with no page fetched past the start page, the order alone puts /pricing first", async () => {
    const r = await site.map({ search: "pricing" }, { maxPages: 1 });
    expect(urls(r)).toEqual(["/pricing", "/en/pricing", "/Pricing", "/blog/post-1-pricing-update"].map((p) => `${site.origin}${p}`));
  });

  test("search:'faqs' finds /docs/faq", async () => {
    expect(urls(await site.map({ search: "faqs" }))).toEqual([`${site.origin}/docs/faq`]);
  });
});
