/**
 * Where a crawled page redirects, judged as upstream's `filterURL` judges it (crawl/filter.ts `redirect`): section
 * links, external links, `excludePaths` and robots.txt, not `includePaths` or the start path. A page moved out of the
 * crawled section, and a shortlink to a pretty URL, were lost as `CRAWL_DENIAL` errors. And the section of a crawl
 * started at `/guide/index.html`, or at `/kb/` on a site that drops trailing slashes, is `/guide/` or `/kb/`: the
 * first refused every page, the second its own start page.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";

const page = (title: string, links: string[]) =>
  new Response(`<html><head><title>${title}</title></head><body><h1>${title}</h1><p>${title} text for the crawl, long enough to be content.</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(" ")}</body></html>`, { headers: { "content-type": "text/html" } });
const moved = (to: string) => new Response(null, { status: 301, headers: { location: to } });

let server: ReturnType<typeof Bun.serve>;
let origin: string;
let h: Harness;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const p = new URL(req.url).pathname;
      switch (p) {
        case "/robots.txt":
          return new Response("User-agent: *\nDisallow: /private/\n");
        case "/docs/":
          return page("Docs", ["/docs/a", "/docs/moved", "/docs/p", "/docs/to-private", "/docs/to-excluded"]);
        case "/docs/a":
          return page("Docs A", []);
        case "/docs/moved":
          return moved("/guides/moved");
        case "/docs/p":
          return moved("/2024/05/hello");
        case "/docs/to-private":
          return moved("/private/landing");
        case "/docs/to-excluded":
          return moved("/archive/old");
        case "/guides/moved":
        case "/2024/05/hello":
        case "/private/landing":
        case "/archive/old":
          return page(`Landing ${p}`, []);
        case "/kb/":
          return moved("/kb");
        case "/kb":
          return page("Knowledge base", ["/kb/a", "/kb/b"]);
        case "/guide/index.html":
          return moved("/guide/");
        case "/guide/":
          return page("Guide", ["/guide/one", "/guide/two", "/elsewhere"]);
        case "/kb/a":
        case "/kb/b":
        case "/guide/one":
        case "/guide/two":
        case "/elsewhere":
          return page(`Page ${p}`, []);
      }
      return new Response("not found", { status: 404 });
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  h = await createHarness({ retryBaseDelayMs: 20 });
});
afterAll(async () => {
  await h.close();
  server.stop(true);
});

async function crawl(body: Record<string, unknown>) {
  const created = (await (await h.request("/v2/crawl", { method: "POST", json: { limit: 50, sitemap: "skip", ...body } })).json()) as any;
  expect(created.success).toBe(true);
  const deadline = Date.now() + 30_000;
  let status: any;
  do {
    await Bun.sleep(50);
    status = await (await h.request(`/v2/crawl/${created.id}`)).json();
  } while (status.status === "scraping" && Date.now() < deadline);
  expect(status.status).toBe("completed");
  const errors = (await (await h.request(`/v2/crawl/${created.id}/errors`)).json()) as any;
  const path = (u: string) => u.slice(origin.length);
  return {
    sources: status.data.map((d: any) => path(d.metadata.sourceURL)).sort() as string[],
    finals: status.data.map((d: any) => path(d.metadata.url)).sort() as string[],
    errors: errors.errors as { url: string; code: string; error: string }[],
    robotsBlocked: errors.robotsBlocked as string[],
  };
}

describe("a redirect's target is judged by the link rules upstream applies to it", () => {
  test("moved out of the section, or a shortlink: documents; into robots.txt's Disallow or an excluded path: errors", async () => {
    const r = await crawl({ url: `${origin}/docs/`, excludePaths: ["^/archive/"] });
    expect(r.sources).toEqual(["/docs/", "/docs/a", "/docs/moved", "/docs/p"]);
    expect(r.finals).toEqual(["/2024/05/hello", "/docs/", "/docs/a", "/guides/moved"]);
    const byUrl = new Map(r.errors.map((e) => [e.url.slice(origin.length), e]));
    expect(byUrl.get("/docs/to-private")?.error).toContain("ROBOTS_TXT");
    expect(byUrl.get("/docs/to-excluded")?.error).toContain("EXCLUDE_PATTERN");
    expect(byUrl.get("/docs/moved")).toBeUndefined();
  });

  test("includePaths judges the links a page shows, not where one of them redirects", async () => {
    const r = await crawl({ url: `${origin}/docs/`, includePaths: ["^/docs/"] });
    expect(r.sources).toContain("/docs/moved");
    expect(r.finals).toContain("/guides/moved");
  });
});

describe("the crawl's section", () => {
  test("a start page at /kb/ that drops its slash is a result, and its pages are crawled", async () => {
    const r = await crawl({ url: `${origin}/kb/` });
    expect(r.finals).toEqual(["/kb", "/kb/a", "/kb/b"]);
    expect(r.errors).toEqual([]);
  });

  test("a crawl started at /guide/index.html covers /guide/, and not the rest of the site", async () => {
    const r = await crawl({ url: `${origin}/guide/index.html` });
    expect(r.finals).toEqual(["/guide/", "/guide/one", "/guide/two"]);
  });
});
