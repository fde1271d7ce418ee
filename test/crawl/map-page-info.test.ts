/**
 * The title and description a map lists for a fetched page (crawl/map-page.ts): the document's own title, not an
 * inline SVG's (a page without a head title was listed as "Close icon"); whitespace collapsed in both (descriptions
 * kept their newlines and indentation); both cut at a word before 300 and 1000 characters (a 20,000-character title
 * came back whole). Local `Bun.serve({ port: 0 })` site.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mapSite, type MapDeps } from "../../src/crawl/map.ts";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";

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
};

let server: ReturnType<typeof Bun.serve>;
let origin: string;
let gate: EgressGate;
let deps: MapDeps;

beforeAll(async () => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      const body = path === "/" ? `<html><head><title>Home</title></head><body>${Object.keys(PAGES).map((p) => `<a href="${p}">${p}</a>`).join("")}</body></html>` : PAGES[path];
      if (body === undefined) return new Response("not found", { status: 404 });
      return new Response(body, { headers: { "content-type": "text/html" } });
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  gate = await createEgressGate({ allowPrivateNetwork: true });
  const engine = createHttpEngine({ gate });
  deps = { engine, robots: new RobotsCache({ engine }), gate };
});
afterAll(async () => {
  await gate.close();
  server.stop(true);
});

describe("map: titles and descriptions", () => {
  let byPath: Map<string, { title?: string; description?: string }>;
  beforeAll(async () => {
    const r = await mapSite({ url: `${origin}/`, sitemap: "skip" }, deps);
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
