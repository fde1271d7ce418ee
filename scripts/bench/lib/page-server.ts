/**
 * A static page server for benchmarks, run as its own process so that serving pages does not share an event
 * loop with what is measured. Serves the article-extraction pages as `/p/<index>` (UTF-8 HTML) and prints
 * `PORT <n>` on stdout once listening.
 *
 *   bun scripts/bench/lib/page-server.ts [--limit N]
 */
import { loadArticleExtraction } from "./datasets.ts";

const limitArg = process.argv.indexOf("--limit");
const limit = limitArg >= 0 ? Number(process.argv[limitArg + 1]) : Infinity;
const pages = loadArticleExtraction().slice(0, limit).map((p) => new TextEncoder().encode(p.html));

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(req) {
    const m = /^\/p\/(\d+)$/.exec(new URL(req.url).pathname);
    const body = m ? pages[Number(m[1])] : undefined;
    if (!body) return new Response("not found", { status: 404 });
    return new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
  },
});
console.log(`PORT ${server.port} PAGES ${pages.length}`);
