/**
 * The bare loop behind HTTP, for the scrape benchmark: a minimal `Bun.serve` that answers `POST /v2/scrape` with
 * exactly the bare loop's work (fetch, `parseHtml`, `cleanHtml` with main content, `htmlToMarkdown`) and a
 * Firecrawl-shaped JSON body. It has no validation, egress gate, metadata, detection, storage or credits, so the
 * difference between it and the in-process bare loop is what the process hop alone costs (client ↔ server
 * JSON over loopback), and the difference between it and crawlbox is what crawlbox adds on top.
 *
 *   PORT=<n> bun scripts/bench/lib/bare-scrape-server.ts
 */
import { cleanHtml, htmlToMarkdown, parseHtml } from "../../../src/pipeline/index.ts";

Bun.serve({
  port: Number(process.env.PORT),
  hostname: "127.0.0.1",
  async fetch(req) {
    if (new URL(req.url).pathname === "/health") return new Response("ok");
    const { url } = (await req.json()) as { url: string };
    const html = await (await fetch(url)).text();
    const markdown = htmlToMarkdown(cleanHtml(parseHtml(html), { baseUrl: url, onlyMainContent: true, removeBase64Images: true }));
    return Response.json({ success: true, data: { markdown, metadata: { url, statusCode: 200 } } });
  },
});
