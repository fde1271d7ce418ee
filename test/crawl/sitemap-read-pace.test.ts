/**
 * How many sitemap files a read has in flight, and how long each may take (crawl/sitemap-read.ts):
 * - more than one file at a time only once a file has given URLs and the bound is still far off: an index of files
 *   whose first alone fills the bound had four fetched and decoded (eight 45 MB files: 1.9 GB for four maps);
 * - each file may take what is left of the read: a 30 s cap of its own dropped a slow 10 MB sitemap (a crawl with
 *   `sitemap: "only"` then had its start page alone), unsaid;
 * - a file that hangs lets the others be fetched beside it after SLOW_SITEMAP_MS (with one file at a time until a
 *   file gave URLs, a hanging first child of an index lost all the others).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readSitemaps } from "../../src/crawl/sitemap.ts";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import type { Engine, FetchRequest } from "../../src/engines/types.ts";

let server: ReturnType<typeof Bun.serve>;
let origin: string;
let gate: EgressGate;
let engine: Engine;
const hits: string[] = [];
/** Part files being answered at once, and the most at one moment. */
let answering = 0;
let mostAtOnce = 0;

const urlset = (o: string, dir: string, n: number) => `<urlset>${Array.from({ length: n }, (_, i) => `<url><loc>${o}/${dir}/${i}</loc></url>`).join("")}</urlset>`;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const { pathname: p, origin: o } = new URL(req.url);
      hits.push(p);
      if (p === "/hang-index.xml") return new Response(`<sitemapindex>${["hang-1", "part-2", "part-3", "part-4", "part-5"].map((n) => `<sitemap><loc>${o}/${n}.xml</loc></sitemap>`).join("")}</sitemapindex>`);
      if (p === "/hang-1.xml") {
        await Bun.sleep(60_000); // never answers within the read
        return new Response("");
      }
      if (p === "/index.xml") return new Response(`<sitemapindex>${[1, 2, 3, 4, 5].map((n) => `<sitemap><loc>${o}/part-${n}.xml</loc></sitemap>`).join("")}</sitemapindex>`);
      const part = /^\/part-(\d)\.xml$/.exec(p);
      if (part) {
        mostAtOnce = Math.max(mostAtOnce, ++answering);
        await Bun.sleep(50);
        answering--;
        return new Response(urlset(o, `p${part[1]}`, 50));
      }
      return new Response("", { status: 404 });
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

describe("files in flight", () => {
  test("the first file of an index fills the bound: it alone is fetched (the others were fetched beside it)", async () => {
    hits.length = 0;
    mostAtOnce = 0;
    const r = await readSitemaps([{ url: `${origin}/index.xml` }], { engine, maxUrls: 50 });
    expect(r.urls).toHaveLength(50);
    expect(hits.filter((h) => h.startsWith("/part-"))).toEqual(["/part-1.xml"]);
    expect(mostAtOnce).toBe(1);
  });

  test("with room for them all, the files after the first are fetched several at a time", async () => {
    hits.length = 0;
    mostAtOnce = 0;
    const r = await readSitemaps([{ url: `${origin}/index.xml` }], { engine, maxUrls: 10_000 });
    expect(r.urls).toHaveLength(250);
    // The first alone, then the other four together (at most SITEMAP_CONCURRENCY).
    expect(mostAtOnce).toBe(4);
  });
});

describe("a file that hangs", () => {
  test("does not hold the others: one more is fetched beside it for each SLOW_SITEMAP_MS, and their URLs kept", async () => {
    hits.length = 0;
    const r = await readSitemaps([{ url: `${origin}/hang-index.xml` }], { engine, timeoutMs: 9_000 });
    // Before: the first child alone until the read's deadline, then nothing (0 URLs). At 2, 4, 6 and 8 s one more.
    expect(r.urls).toHaveLength(200);
    expect(hits.filter((h) => h.startsWith("/part-")).sort()).toEqual(["/part-2.xml", "/part-3.xml", "/part-4.xml", "/part-5.xml"]);
    expect(r.errors.map((e) => e.url)).toEqual([`${origin}/hang-1.xml`]);
  }, 20_000);
});

describe("each file's time", () => {
  test("a file may take what is left of the read, not a cap of its own", async () => {
    const asked: number[] = [];
    const recording: Pick<Engine, "fetch"> = {
      fetch: (req: FetchRequest, signal?: AbortSignal) => {
        asked.push(req.timeoutMs);
        return engine.fetch(req, signal);
      },
    };
    await readSitemaps([{ url: `${origin}/part-1.xml` }], { engine: recording, timeoutMs: 100_000 });
    expect(asked).toHaveLength(1);
    expect(asked[0]!).toBeGreaterThan(99_000); // before: 30,000
  });
});
