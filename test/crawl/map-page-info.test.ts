/**
 * The title and description a map lists for a fetched page (crawl/map-page.ts): the document's own title, not an
 * inline SVG's (a page without a head title was listed as "Close icon"); whitespace collapsed in both (descriptions
 * kept their newlines and indentation); both cut at a word before 300 and 1000 characters (a 20,000-character title
 * came back whole); the first description with some text (an empty one hid the real one after it); the title of
 * the page at the listed URL itself, not of a query variant fetched first (`/events` was listed as "Events on
 * 2026-11-01"); and the titles of the pages fetched in the batch that reached `limit` (they were dropped). Local
 * `Bun.serve({ port: 0 })` sites.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { htmlPage, startMapTestSite, type MapTestSite } from "../helpers/map-test-site.ts";

const CLOSE_ICON = `<svg viewBox="0 0 10 10"><title>Close icon</title><path d="M0 0L10 10"/></svg>`;
/** "word0 word1 …": 20,000+ characters. */
const LONG = Array.from({ length: 3000 }, (_, i) => `word${i}`).join(" ");

const PAGES: Record<string, string> = {
  "/svg-only": `<html><body>${CLOSE_ICON}<p>No title of its own.</p></body></html>`,
  "/svg-first": `<html><body>${CLOSE_ICON}<title>The page's own title</title><p>A title outside the head.</p></body></html>`,
  "/head-and-svg": `<html><head><title>
      Head   title
    </title></head><body>${CLOSE_ICON}</body></html>`,
  "/described": `<html><head><title>Described</title><meta name="Description" content="
      First line of the description,
        indented	second line.
    "></head><body></body></html>`,
  "/long": `<html><head><title>${LONG}</title><meta name="description" content="${LONG}"></head><body></body></html>`,
  "/empty-description-first": `<html><head><title>Described late</title><meta name="description" content=""><meta name="description" content="  ">
    <meta name="description" content="The real description."></head><body></body></html>`,
};
/** Linked from the home page with a query only: the variant is fetched first, and links the page itself. */
const VARIANTS = ["/events?date=2026-11-01", "/x/3?page=2"];

/** `/events?date=D` is "Events on D" and links `/events` ("Events"); `/x/3?page=N` is "X3 ?page=N" and links `/x/3`. */
function variantPage(u: URL): Response {
  if (u.pathname === "/events") return htmlPage(u.search ? `Events on ${u.searchParams.get("date")}` : "Events", ["/events"]);
  return htmlPage(u.search ? `X3 ${u.search}` : "X3", ["/x/3"]);
}

let site: MapTestSite;

beforeAll(async () => {
  site = await startMapTestSite((u) => {
    if (u.pathname === "/") return htmlPage("Home", [...Object.keys(PAGES), ...VARIANTS]);
    if (u.pathname === "/events" || u.pathname === "/x/3") return variantPage(u);
    const body = PAGES[u.pathname];
    return body === undefined ? new Response("not found", { status: 404 }) : new Response(body, { headers: { "content-type": "text/html" } });
  });
});
afterAll(() => site.close());

describe("map: titles and descriptions", () => {
  let byPath: Map<string, { title?: string; description?: string }>;
  beforeAll(async () => {
    const r = await site.map();
    byPath = new Map(r.links.map(({ url, ...info }) => [new URL(url).pathname, info]));
  });

  test("only the document's own title counts, never an inline SVG's", () => {
    expect(byPath.get("/svg-only")).toEqual({});
    expect(byPath.get("/svg-first")).toEqual({ title: "The page's own title" });
    expect(byPath.get("/head-and-svg")).toEqual({ title: "Head title" });
  });

  test("a description has its whitespace collapsed, as a title does", () => {
    expect(byPath.get("/described")!.description).toBe("First line of the description, indented second line.");
  });

  test("titles are cut at a word before 300 characters, descriptions before 1000", () => {
    const { title, description } = byPath.get("/long")!;
    for (const [text, max] of [[title!, 300], [description!, 1000]] as const) {
      expect(text.length).toBeLessThanOrEqual(max);
      expect(text.length).toBeGreaterThan(max - 12);
      expect(LONG.startsWith(`${text} `)).toBe(true); // whole words, the next one left out
    }
  });
});

describe("map: whose title a listed URL gets", () => {
  test("the first description with some text: empty ones before it do not hide it", async () => {
    const r = await site.map();
    expect(r.links.find((l) => l.url.endsWith("/empty-description-first"))).toMatchObject({ title: "Described late", description: "The real description." });
  });

  test("the page at the listed URL itself, not a query variant fetched before it", async () => {
    const r = await site.map();
    const title = (path: string) => r.links.find((l) => new URL(l.url).pathname === path)?.title;
    expect(site.hits).toContain("/events?date=2026-11-01");
    expect(title("/events")).toBe("Events"); // before: "Events on 2026-11-01"
    expect(title("/x/3")).toBe("X3"); // before: "X3 ?page=2"
  });

  test("with the budget for the variant only, its title stands in for the page's", async () => {
    const r = await site.map({}, { maxPages: 1 + Object.keys(PAGES).length + VARIANTS.length });
    expect(site.hits).not.toContain("/events");
    expect(r.links.find((l) => new URL(l.url).pathname === "/events")?.title).toBe("Events on 2026-11-01");
  });

  test("pages fetched in the batch that reached limit keep their titles", async () => {
    // /a, /b, /c and /d are fetched together; /a's links fill the list, and the other three were then not read.
    const sections = ["a", "b", "c", "d"];
    const hub = await startMapTestSite((u) => {
      if (u.pathname === "/") return htmlPage("Hub", sections.map((s) => `/${s}`));
      return htmlPage(`Section ${u.pathname}`, Array.from({ length: 10 }, (_, i) => `${u.pathname}/${i}`));
    });
    try {
      const r = await hub.map({ limit: 10 });
      expect(r.links.map((l) => new URL(l.url).pathname)).toEqual(["/", "/a", "/b", "/c", "/d", "/a/0", "/a/1", "/a/2", "/a/3", "/a/4"]);
      expect(r.links.slice(1, 5).map((l) => l.title)).toEqual(sections.map((s) => `Section /${s}`)); // before: /b, /c, /d had none
    } finally {
      await hub.close();
    }
  });
});
