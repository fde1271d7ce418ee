/**
 * Sitemap reads bounded by what is in scope (api-v2.md §5.2: upstream filters each sitemap chunk before it counts):
 * a site whose sitemap lists many pages of other sections before the section crawled or mapped still yields that
 * section, and a read is still bounded however little of a huge sitemap is in scope.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readSitemaps } from "../../src/crawl/sitemap.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine } from "../../src/engines/types.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

/** Pages of other sections listed first, then the blog's. */
const OTHER_PAGES = 1100;
const BLOG_POSTS = 5;

let server: ReturnType<typeof Bun.serve>;
let base: string;
let gate: EgressGate;
let engine: Engine;
let h: Harness;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/robots.txt") return new Response("User-agent: *\nAllow: /\n");
      if (path === "/sitemap.xml") {
        const locs = [...Array.from({ length: OTHER_PAGES }, (_, i) => `/other/${i}`), ...Array.from({ length: BLOG_POSTS }, (_, i) => `/blog/post-${i}`)];
        const body = locs.map((l) => `<url><loc>${base}${l}</loc></url>`).join("");
        return new Response(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${body}</urlset>`, { headers: { "content-type": "application/xml" } });
      }
      if (path.endsWith(".xml")) return new Response("", { status: 404 });
      return new Response(`<!doctype html><html><head><title>${path}</title></head><body><p>${path}</p></body></html>`, { headers: { "content-type": "text/html" } });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
  gate = await createEgressGate({ allowPrivateNetwork: true });
  engine = createHttpEngine({ gate });
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
  await gate.close();
  server.stop(true);
});

const blogPosts = () => Array.from({ length: BLOG_POSTS }, (_, i) => `${base}/blog/post-${i}`);

describe("readSitemaps keep", () => {
  test("only kept URLs count towards maxUrls: in-scope URLs listed late are found", async () => {
    const r = await readSitemaps([{ url: `${base}/sitemap.xml` }], { engine, maxUrls: 20, keep: (u) => new URL(u).pathname.startsWith("/blog") });
    expect(r.urls).toEqual(blogPosts());
    expect(r.scanned).toBe(OTHER_PAGES + BLOG_POSTS);
    expect(r.truncated).toBe(false);
  });

  test("maxUrlsScanned bounds the read however few URLs are kept", async () => {
    const r = await readSitemaps([{ url: `${base}/sitemap.xml` }], { engine, maxUrls: 20, maxUrlsScanned: 500, keep: (u) => new URL(u).pathname.startsWith("/blog") });
    expect(r.urls).toEqual([]);
    expect(r.scanned).toBe(500);
    expect(r.truncated).toBe(true);
  });
});

describe("crawl and map of a section listed late in the sitemap", () => {
  test("crawl of /blog with a small limit and sitemap:only still gets the blog's posts", async () => {
    const created = (await (await h.request("/v2/crawl", { method: "POST", json: { url: `${base}/blog`, limit: 5, sitemap: "only" } })).json()) as { id: string };
    let status: { status: string; data: { metadata: { sourceURL: string } }[] } | undefined;
    for (let i = 0; i < 600; i++) {
      status = (await (await h.request(`/v2/crawl/${created.id}`)).json()) as typeof status;
      if (status!.status !== "scraping") break;
      await Bun.sleep(50);
    }
    expect(status!.status).toBe("completed");
    const got = status!.data.map((d) => d.metadata.sourceURL).sort();
    // The start page and four of the five posts (limit 5); none of the other sections.
    expect(got.length).toBe(5);
    expect(got).toContain(`${base}/blog`);
    expect(got.filter((u) => u.startsWith(`${base}/blog/post-`)).length).toBe(4);
  });

  test("map of /blog with a small limit and sitemap:only lists the blog's posts", async () => {
    // 2 × 3 + 1000 = 1006 URLs were read before filtering, all of them /other/….
    const res = (await (await h.request("/v2/map", { method: "POST", json: { url: `${base}/blog`, limit: 3, sitemap: "only" } })).json()) as { success: boolean; links: { url: string }[] };
    expect(res.success).toBe(true);
    expect(res.links.length).toBe(3);
    for (const l of res.links) expect(l.url.startsWith(`${base}/blog/post-`)).toBe(true);
  });
});
