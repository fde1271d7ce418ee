/**
 * Sitemaps past the 50 MiB cap and sitemaps that fail (crawl/sitemap-fetch.ts, crawl/sitemap-body.ts,
 * crawl/map-sitemaps.ts): a 60 MiB file served in part (`Range`) and a gzip file inflating past the cap give the
 * complete entries of their first 50 MiB, and the map's warning names every sitemap cut or failed. Before, each of
 * them dropped out in silence with all its URLs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mapSite } from "../../src/crawl/map.ts";
import { RobotsCache } from "../../src/crawl/robots-cache.ts";
import { MAX_SITEMAP_BYTES, readSitemaps } from "../../src/crawl/sitemap.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine } from "../../src/engines/types.ts";

const FILE_BYTES = 60 * 1024 * 1024;

/**
 * A file of `head` then same-length lines (`line(i)`), generated a MiB at a time for any byte range, so that 60 MiB
 * are never held. It has no end tag: the reader stops at its cap long before.
 */
function generated(head: string, line: (i: number) => string, from: number, to: number): ReadableStream<Uint8Array> {
  const size = line(0).length;
  const encoder = new TextEncoder();
  let at = from;
  return new ReadableStream({
    pull(controller) {
      if (at > to) return controller.close();
      const end = Math.min(to + 1, at + 1024 * 1024);
      const first = at < head.length ? 0 : Math.floor((at - head.length) / size);
      let base = at < head.length ? 0 : head.length + first * size;
      let text = at < head.length ? head : "";
      for (let i = first; base + text.length < end; i++) text += line(i);
      controller.enqueue(encoder.encode(text.slice(at - base, end - base)));
      at = end;
    },
  });
}

/** The response to a GET of a generated file: its first part when asked with `Range` and `ranges` is on. */
function serveGenerated(req: Request, ranges: boolean, head: string, line: (i: number) => string): Response {
  const range = ranges ? /bytes=(\d+)-(\d+)/.exec(req.headers.get("range") ?? "") : null;
  if (!range) return new Response(generated(head, line, 0, FILE_BYTES - 1), { headers: { "content-type": "application/xml" } });
  const [from, to] = [Number(range[1]), Math.min(FILE_BYTES - 1, Number(range[2]))];
  return new Response(generated(head, line, from, to), { status: 206, headers: { "content-type": "application/xml", "content-range": `bytes ${from}-${to}/${FILE_BYTES}` } });
}

let server: ReturnType<typeof Bun.serve>;
let origin: string;
/** Another origin serving the same files: where /moved.xml redirects (a sitemap on S3 or a CDN). */
let other: ReturnType<typeof Bun.serve>;
let gate: EgressGate;
let engine: Engine;
let gzipped: Uint8Array<ArrayBuffer>;
const urlHead = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n`;
const entry = (o: string, dir: string) => (i: number) => `<url><loc>${o}/${dir}/${String(i).padStart(9, "0")}</loc><lastmod>2026-01-01</lastmod></url>\n`;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    fetch(req) {
      const { pathname: p, origin: o } = new URL(req.url);
      if (p === "/robots.txt") return new Response(`User-agent: *\nSitemap: ${o}/index.xml\n`);
      if (p === "/index.xml") return new Response(`<sitemapindex>${["broken.xml", "gone.xml", "no-range.xml", "big.xml.gz", "big.xml"].map((f) => `<sitemap><loc>${o}/${f}</loc></sitemap>`).join("")}</sitemapindex>`);
      if (p === "/big.xml") return serveGenerated(req, true, urlHead, entry(o, "big"));
      if (p === "/moved.xml") return Response.redirect(`http://127.0.0.1:${other.port}/big.xml`, 302);
      if (p === "/liar.xml") {
        // A 206 whose Content-Range claims the part is the whole file.
        const r = serveGenerated(req, true, urlHead, entry(o, "liar"));
        const m = /bytes (\d+)-(\d+)\//.exec(r.headers.get("content-range") ?? "");
        if (m) r.headers.set("content-range", `bytes ${m[1]}-${m[2]}/${Number(m[2]) + 1}`);
        return r;
      }
      if (p === "/no-range.xml") return serveGenerated(req, false, urlHead, entry(o, "nr"));
      if (p === "/big.txt") return serveGenerated(req, true, "", (i) => `${o}/txt/${String(i).padStart(9, "0")}\n`);
      if (p === "/big.xml.gz") return new Response(gzipped, { headers: { "content-type": "application/gzip" } });
      if (p === "/broken.xml") return new Response("boom", { status: 500 });
      return new Response("", { status: 404 });
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  other = Bun.serve({ port: 0, hostname: "127.0.0.1", idleTimeout: 0, fetch: (req) => server.fetch(req) });
  // Entries padded with an image caption: 60,000 of them inflate to about 64 MB.
  const caption = "x".repeat(1000);
  gzipped = Bun.gzipSync(new TextEncoder().encode(`<urlset xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">${Array.from({ length: 60_000 }, (_, i) => `<url><loc>${origin}/gz/${String(i).padStart(9, "0")}</loc><image:image><image:caption>${caption}</image:caption></image:image></url>\n`).join("")}`));
  gate = await createEgressGate({ allowPrivateNetwork: true });
  engine = createHttpEngine({ gate });
});
afterAll(async () => {
  await gate.close();
  server.stop(true);
  other.stop(true);
});

const readOne = (path: string) => readSitemaps([{ url: `${origin}${path}` }], { engine, maxUrls: 1_000_000, maxUrlsScanned: 1_000_000 });

describe("sitemaps past the cap keep their first part", () => {
  test("a 60 MiB sitemap served in part: the complete entries of its first 50 MiB, and an error saying so", async () => {
    const r = await readOne("/big.xml");
    const perEntry = entry(origin, "big")(0).length;
    expect(r.urls.length).toBe(Math.floor((MAX_SITEMAP_BYTES - urlHead.length) / perEntry)); // before: 0
    expect(r.urls.every((u) => /\/big\/\d{9}$/.test(u))).toBe(true);
    expect(r.errors).toEqual([{ url: `${origin}/big.xml`, code: "SITEMAP_TOO_LARGE", message: `larger than the cap: its first ${MAX_SITEMAP_BYTES} bytes were read, ${r.urls.length} URLs kept from them` }]);
  }, 30_000);

  test("a plain-text sitemap cut mid-line does not list the start of its last URL", async () => {
    const r = await readOne("/big.txt");
    expect(r.urls.length).toBeGreaterThan(1_000_000 - 1);
    expect(r.urls.every((u) => /\/txt\/\d{9}$/.test(u))).toBe(true);
  }, 30_000);

  test("a gzip sitemap inflating past the cap: the entries of its first 50 MiB", async () => {
    const r = await readOne("/big.xml.gz");
    expect(r.urls.length).toBeGreaterThan(40_000); // before: 0 (gunzipSync threw at the cap)
    expect(r.urls.length).toBeLessThan(60_000);
    expect(r.errors.map((e) => e.code)).toEqual(["SITEMAP_TOO_LARGE"]);
  }, 30_000);

  test("a sitemap redirected to another origin (S3, a CDN) is still asked for in part: Range survives the hop", async () => {
    const r = await readOne("/moved.xml");
    expect(r.urls.length).toBeGreaterThan(400_000); // before: 0, the Range dropped on the cross-origin hop
    expect(r.errors.map((e) => e.code)).toEqual(["SITEMAP_TOO_LARGE"]);
  }, 30_000);

  test("a 206 whose Content-Range claims the whole file is still a part: the error says the file was cut", async () => {
    const r = await readOne("/liar.xml");
    expect(r.urls.length).toBeGreaterThan(400_000);
    expect(r.errors).toEqual([{ url: `${origin}/liar.xml`, code: "SITEMAP_TOO_LARGE", message: `larger than the cap: its first ${MAX_SITEMAP_BYTES} bytes were read, ${r.urls.length} URLs kept from them` }]);
  }, 30_000);

  test("a server that ignores Range: no URLs, and the error says why", async () => {
    const r = await readOne("/no-range.xml");
    expect(r.urls).toEqual([]);
    expect(r.errors).toEqual([{ url: `${origin}/no-range.xml`, code: "SITEMAP_TOO_LARGE", message: `larger than ${MAX_SITEMAP_BYTES} bytes, and the server does not serve a part of it (Range); not read` }]);
  }, 30_000);
});

describe("the map's warning names the sitemaps cut or failed", () => {
  test("failed (500), cut (gzip, Range), too large (no Range); not the one that does not exist (404)", async () => {
    const r = await mapSite({ url: `${origin}/`, sitemap: "only", limit: 100_000 }, { engine, robots: new RobotsCache({ engine }), gate });
    expect(r.links.length).toBe(100_000);
    expect(r.warning).toStartWith("Sitemaps cut or failed: ");
    expect(r.warning).toContain(`${origin}/broken.xml (HTTP 500)`);
    expect(r.warning).toContain(`${origin}/no-range.xml (larger than`);
    expect(r.warning).toContain(`${origin}/big.xml.gz (larger than the cap`);
    expect(r.warning).toContain(`${origin}/big.xml (larger than the cap`);
    expect(r.warning).not.toContain("gone.xml");
    expect(r.warning).not.toContain("bound"); // the limit was met
  }, 60_000);
});
