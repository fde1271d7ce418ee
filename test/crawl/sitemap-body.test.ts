/**
 * A sitemap is judged by its body, not its Content-Type, and decoded in its own encoding (crawl/sitemap-body.ts):
 * a valid XML sitemap served as text/html was ignored, an HTML page served as XML is still no sitemap, and an
 * ISO-8859-1 sitemap's `café` came out as `caf\uFFFD` (listed as `caf%EF%BF%BD`) while a UTF-16 one gave nothing.
 * Read through the real engine from a local server, as a map reads them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readSitemaps } from "../../src/crawl/sitemap.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine } from "../../src/engines/types.ts";

/** path → [Content-Type, body]; the body may hold `ORIGIN`. */
const files: Record<string, [string, (origin: string) => Uint8Array | string]> = {
  "/as-html.xml": ["text/html; charset=utf-8", (o) => `\uFEFF  <?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${o}/a</loc></url></urlset>`],
  "/index-as-html": ["text/html", (o) => `<sitemapindex><sitemap><loc>${o}/as-html.xml</loc></sitemap></sitemapindex>`],
  "/text-as-html.txt": ["text/html", (o) => `${o}/t1\n${o}/t2\n`],
  "/page.xml": ["application/xml", (o) => `<!DOCTYPE html>\n<html><body><urlset><url><loc>${o}/no</loc></url></urlset></body></html>`],
  "/xhtml.xml": ["application/xml", (o) => `<?xml version="1.0"?><!-- a page --><html xmlns="http://www.w3.org/1999/xhtml"><body><urlset><url><loc>${o}/no</loc></url></urlset></body></html>`],
  "/latin1-declared.xml": ["application/xml", (o) => Buffer.from(`<?xml version="1.0" encoding="ISO-8859-1"?><urlset><url><loc>${o}/café</loc></url></urlset>`, "latin1")],
  "/latin1-header.xml": ["text/xml; charset=iso-8859-1", (o) => Buffer.from(`<urlset><url><loc>${o}/crème</loc></url></urlset>`, "latin1")],
  "/declared-beats-header.xml": ["text/xml; charset=utf-8", (o) => Buffer.from(`<?xml version="1.0" encoding="windows-1252"?><urlset><url><loc>${o}/déjà</loc></url></urlset>`, "latin1")],
  "/utf16le-bom.xml": ["application/xml", (o) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`<?xml version="1.0" encoding="UTF-16"?><urlset><url><loc>${o}/naïve</loc></url></urlset>`, "utf16le")])],
  "/utf16be-no-bom.xml": ["application/xml", (o) => Buffer.from(Buffer.from(`<?xml version="1.0" encoding="UTF-16"?><urlset><url><loc>${o}/über</loc></url></urlset>`, "utf16le").swap16())],
  "/utf8.xml": ["application/xml", (o) => `<urlset><url><loc>${o}/日本</loc></url></urlset>`],
};

let server: ReturnType<typeof Bun.serve>;
let origin: string;
let gate: EgressGate;
let engine: Engine;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const { pathname, origin: o } = new URL(req.url);
      const file = files[pathname];
      if (!file) return new Response("", { status: 404 });
      const body = file[1](o);
      return new Response(typeof body === "string" ? body : new Uint8Array(body), { headers: { "content-type": file[0] } });
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  gate = await createEgressGate({ allowPrivateNetwork: true });
  engine = createHttpEngine({ gate });
});
afterAll(async () => {
  await gate.close();
  server.stop(true);
});

const read = async (path: string) => readSitemaps([{ url: `${origin}${path}` }], { engine });

describe("a sitemap by its body", () => {
  test("a valid XML sitemap served as text/html is read (BOM and whitespace before it)", async () => {
    expect((await read("/as-html.xml")).urls).toEqual([`${origin}/a`]);
    expect((await read("/index-as-html")).urls).toEqual([`${origin}/a`]);
  });
  test("a plain-text sitemap served as text/html is read", async () => {
    expect((await read("/text-as-html.txt")).urls).toEqual([`${origin}/t1`, `${origin}/t2`]);
  });
  test("an HTML page is no sitemap whatever its type, and no failure either", async () => {
    for (const path of ["/page.xml", "/xhtml.xml"]) {
      const r = await read(path);
      expect(r.urls).toEqual([]);
      expect(r.errors).toEqual([]);
    }
  });
});

describe("a sitemap in its own encoding", () => {
  test("ISO-8859-1 by the XML declaration", async () => {
    expect((await read("/latin1-declared.xml")).urls).toEqual([`${origin}/café`]);
  });
  test("ISO-8859-1 by the Content-Type charset", async () => {
    expect((await read("/latin1-header.xml")).urls).toEqual([`${origin}/crème`]);
  });
  test("the XML declaration before the Content-Type charset", async () => {
    expect((await read("/declared-beats-header.xml")).urls).toEqual([`${origin}/déjà`]);
  });
  test("UTF-16 by its byte-order mark, and without one by its first bytes", async () => {
    expect((await read("/utf16le-bom.xml")).urls).toEqual([`${origin}/naïve`]);
    expect((await read("/utf16be-no-bom.xml")).urls).toEqual([`${origin}/über`]);
  });
  test("UTF-8 without any label", async () => {
    expect((await read("/utf8.xml")).urls).toEqual([`${origin}/日本`]);
  });
});
