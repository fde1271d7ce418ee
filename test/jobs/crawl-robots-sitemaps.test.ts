/**
 * `ignoreRobotsTxt: true` ignores robots.txt's rules, not the sitemaps it names (api-v2.md §5.2: upstream reads the
 * `Sitemap:` lines whatever the option; map did already): a crawl still reads them, and neither the file's
 * `Disallow` nor its `Crawl-delay` applies.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHarness, type Harness } from "../helpers/harness.ts";

let server: ReturnType<typeof Bun.serve>;
let base: string;
let h: Harness;
const hits: string[] = [];

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      hits.push(path);
      if (path === "/robots.txt") return new Response(`User-agent: *\nDisallow: /private/\nCrawl-delay: 5\nSitemap: ${base}/custom-sitemap.xml\n`);
      if (path === "/custom-sitemap.xml") {
        return new Response(`<urlset><url><loc>${base}/orphan</loc></url><url><loc>${base}/private/page</loc></url></urlset>`, { headers: { "content-type": "application/xml" } });
      }
      if (path.endsWith(".xml")) return new Response("", { status: 404 });
      return new Response(`<!doctype html><html><head><title>${path}</title></head><body>${path}</body></html>`, { headers: { "content-type": "text/html" } });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
  h = await createHarness({ jobConcurrency: 4, perHostConcurrency: 4 });
});
afterAll(async () => {
  await h.close();
  server.stop(true);
});

test("ignoreRobotsTxt still reads the sitemaps robots.txt names, and applies neither its rules nor its Crawl-delay", async () => {
  const created = (await (await h.request("/v2/crawl", { method: "POST", json: { url: `${base}/`, sitemap: "only", limit: 10, ignoreRobotsTxt: true } })).json()) as { id: string };
  let status: { status: string; data: { metadata: { sourceURL: string } }[] } | undefined;
  for (let i = 0; i < 400; i++) {
    status = (await (await h.request(`/v2/crawl/${created.id}`)).json()) as typeof status;
    if (status!.status !== "scraping") break;
    await Bun.sleep(50);
  }
  expect(status!.status).toBe("completed");
  expect(status!.data.map((d) => d.metadata.sourceURL).sort()).toEqual([`${base}/`, `${base}/orphan`, `${base}/private/page`]);
  expect(hits).toContain("/custom-sitemap.xml");
  // The 5 s Crawl-delay did not become the crawl's delay.
  const row = h.services.db.query<{ options: string }, [string]>("SELECT options FROM jobs WHERE id = ?").get(created.id)!;
  expect(JSON.parse(row.options).delayMs).toBeUndefined();
});
