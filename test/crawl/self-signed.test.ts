/**
 * A site behind a certificate crawlbox cannot verify (self-signed, an intranet CA) is discovered as it is scraped:
 * robots.txt, sitemaps and a map's pages skip the check as a scrape does by default (DISCOVERY_SKIPS_TLS_VERIFICATION).
 * Before, a map listed only its start URL and a crawl stopped at its start page (robots.txt "unreachable").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runCrawl } from "../helpers/crawl-run.ts";
import { createHarness, type Harness } from "../helpers/harness.ts";

let site: ReturnType<typeof Bun.serve>;
let base: string;
let h: Harness;

const html = (body: string) => new Response(`<html><head><title>Intranet</title></head><body><main>${body}</main></body></html>`, { headers: { "content-type": "text/html" } });

beforeAll(async () => {
  const dir = join(import.meta.dir, "..", "fixtures", "tls");
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    tls: { cert: Bun.file(join(dir, "cert.pem")), key: Bun.file(join(dir, "key.pem")) },
    fetch(req) {
      const { pathname } = new URL(req.url);
      if (pathname === "/robots.txt") return new Response("User-agent: *\nAllow: /\n");
      if (pathname === "/sitemap.xml") return new Response(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${base}/listed</loc></url></urlset>`, { headers: { "content-type": "application/xml" } });
      if (pathname === "/") return html(`<h1>Home</h1><p>The intranet's home page, with links.</p><a href="/a">A</a> <a href="/b">B</a>`);
      return html(`<h1>${pathname}</h1><p>A page of the intranet: ${pathname}.</p>`);
    },
  });
  base = `https://127.0.0.1:${site.port}`;
  h = await createHarness();
});
afterAll(async () => {
  await h.close();
  site.stop(true);
});

describe("a site whose certificate cannot be verified", () => {
  test("map lists its links and its sitemap's URLs", async () => {
    const res = await h.request("/v2/map", { method: "POST", json: { url: base } });
    const body = (await res.json()) as { success: boolean; links: { url: string }[] };
    expect(body.success).toBe(true);
    expect(body.links.map((l) => new URL(l.url).pathname).sort()).toEqual(["/", "/a", "/b", "/listed"]);
  });

  test("a crawl follows its links under its robots.txt", async () => {
    const status = await runCrawl(h, { url: `${base}/`, limit: 10 });
    expect(status.status).toBe("completed");
    expect(status.data.map((d: any) => new URL(d.metadata.sourceURL).pathname).sort()).toEqual(["/", "/a", "/b", "/listed"]);
    expect(status.warning ?? "").not.toContain("robots");
  });
});
