/**
 * @module bench/lib/crawl-site
 * The local site of the crawl benchmark, run as its own process so that serving pages does not share an event
 * loop with a crawler being measured. `PAGES` pages (2,000 by default): even ids are small generated pages, odd
 * ids are article pages taken in turn from the article-extraction dataset. Page 0 is `/`; every page links to
 * its next four ids and to four pseudo-random ones (plus `/`), so a crawl from `/` discovers every page.
 *
 * Article pages are made self-contained: `<base>` is dropped and every `<a href>` is made absolute against the
 * article's original URL, so their own links all leave the site (a crawler filters them out) instead of
 * turning into local 404s. The benchmark's links are appended in a `<nav>` before `</body>`.
 *
 * Prints `PORT <n> PAGES <n> BYTES <n>` once listening; `GET /__stats` answers `{served, notFound, missing}` (since the
 * last `POST /__stats/reset`).
 *
 *   bun scripts/bench/lib/crawl-site.ts [--pages 2000]
 */
import { loadArticleExtraction } from "./datasets.ts";

/** Links of each page to its successors (this is what makes every page reachable from `/`). */
const NEXT_LINKS = 4;
/** Links of each page to pseudo-random others (a realistic amount of already-seen links to deduplicate). */
const RANDOM_LINKS = 4;
const MAX_MISSING_LISTED = 20;
const WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua".split(" ");

/** Path of page `id`. */
export function pagePath(id: number): string {
  if (id === 0) return "/";
  return id % 2 === 1 ? `/article/${id}` : `/page/${id}`;
}

/** Ids page `id` links to (deterministic). */
export function linksOf(id: number, pages: number): number[] {
  const out = new Set<number>([0]);
  for (let j = 1; j <= NEXT_LINKS; j++) out.add((id + j) % pages);
  let x = (id * 2654435761) >>> 0;
  for (let j = 0; j < RANDOM_LINKS; j++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out.add(x % pages);
  }
  out.delete(id);
  return [...out];
}

function nav(id: number, pages: number): string {
  const items = linksOf(id, pages).map((l) => `<li><a href="${pagePath(l)}">${l === 0 ? "Home" : `Page ${l}`}</a></li>`);
  return `<nav class="site-links"><ul>${items.join("")}</ul></nav>`;
}

function text(seed: number, words: number): string {
  const out: string[] = [];
  let x = seed >>> 0;
  for (let i = 0; i < words; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out.push(WORDS[x % WORDS.length]!);
  }
  return out.join(" ");
}

/** A small page: header nav, a heading and three short paragraphs (about 1.5 KB). */
function smallPage(id: number, pages: number): string {
  const paras = [0, 1, 2].map((p) => `<p>${text(id * 3 + p, 40)}.</p>`).join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Page ${id}</title>
<meta name="description" content="Small benchmark page ${id}"></head>
<body><header>${nav(id, pages)}</header><main><article><h1>Page ${id}</h1>
${paras}
</article></main><footer><p>Footer of page ${id}</p></footer></body></html>`;
}

const A_HREF_RE = /(<a\b[^>]*?\shref\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s>"']+))/gi;

/** The article's links made absolute against its original URL (so they leave the site) and `<base>` removed. */
export function externaliseLinks(html: string, originalUrl: string): string {
  return html.replace(/<base\b[^>]*>/gi, "").replace(A_HREF_RE, (_m, head: string, dq?: string, sq?: string, bare?: string) => {
    const href = (dq ?? sq ?? bare ?? "").trim();
    if (href.startsWith("#") || /^(mailto|javascript|tel):/i.test(href)) return `${head}"${href.replace(/"/g, "&quot;")}"`;
    let abs: string;
    try {
      abs = new URL(href.replace(/&amp;/g, "&"), originalUrl).href;
    } catch {
      abs = "#";
    }
    return `${head}"${abs.replace(/&/g, "&amp;").replace(/"/g, "&quot;")}"`;
  });
}

function articlePage(id: number, pages: number, html: string): string {
  const links = nav(id, pages);
  const at = html.toLowerCase().lastIndexOf("</body>");
  return at >= 0 ? html.slice(0, at) + links + html.slice(at) : html + links;
}

/** Builds every page of the site: path → UTF-8 bytes. */
export function buildSite(pages: number): Map<string, Uint8Array<ArrayBuffer>> {
  const articles = loadArticleExtraction().map((p) => externaliseLinks(p.html, p.url));
  const enc = new TextEncoder();
  const site = new Map<string, Uint8Array<ArrayBuffer>>();
  for (let id = 0; id < pages; id++) {
    const html = id % 2 === 1 ? articlePage(id, pages, articles[((id - 1) / 2) % articles.length]!) : smallPage(id, pages);
    site.set(pagePath(id), enc.encode(html));
  }
  return site;
}

if (import.meta.main) {
  const i = process.argv.indexOf("--pages");
  const pages = i >= 0 ? Number(process.argv[i + 1]) : 2000;
  const site = buildSite(pages);
  let served = 0;
  let notFound = 0;
  /** The first few missing paths asked for (to tell a crawler's extra requests from a broken site). */
  let missing: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/__stats") return Response.json({ served, notFound, missing });
      if (path === "/__stats/reset") {
        served = notFound = 0;
        missing = [];
        return new Response("ok");
      }
      const body = site.get(path);
      if (!body) {
        notFound++;
        if (missing.length < MAX_MISSING_LISTED) missing.push(path);
        return new Response("not found", { status: 404 });
      }
      served++;
      return new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  });
  let bytes = 0;
  for (const b of site.values()) bytes += b.byteLength;
  console.log(`PORT ${server.port} PAGES ${site.size} BYTES ${bytes}`);
}
