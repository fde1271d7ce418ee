/**
 * @module bench/lib/crawl-bare
 * The crawl benchmark's floor, in its own process: a bare loop with `concurrency` workers doing fetch +
 * parse + link extraction + clean + markdown with crawlbox's own pipeline functions, a same-origin filter and a
 * `Set` of seen URLs, results kept in memory. No job store, no API, no robots.txt, no retries.
 *
 *   bun scripts/bench/lib/crawl-bare.ts --url http://127.0.0.1:1234/ --concurrency 8 --limit 2000
 */
import { cleanHtml, htmlToMarkdown, parseHtml } from "../../../src/pipeline/index.ts";
import { extractLinks } from "../../../src/pipeline/links.ts";
import { finish, peerArgs, progressReporter } from "./crawl-peer.ts";

const { url, concurrency, limit } = peerArgs();
const origin = new URL(url).origin;
const seen = new Set<string>([url]);
const queue: string[] = [url];
const results: { url: string; markdown: string }[] = [];
const tick = progressReporter(limit);
let inflight = 0;
let waiting: (() => void)[] = [];
const wakeAll = () => {
  const w = waiting;
  waiting = [];
  for (const f of w) f();
};

async function crawlOne(pageUrl: string): Promise<void> {
  const res = await fetch(pageUrl);
  const html = await res.text();
  const doc = parseHtml(html);
  // Links first: cleanHtml reads the same DOM (as crawlbox's render context does).
  for (const link of extractLinks(doc, pageUrl)) {
    const u = link.split("#")[0]!;
    if (seen.size >= limit || seen.has(u) || !u.startsWith(origin + "/")) continue;
    seen.add(u);
    queue.push(u);
  }
  const markdown = htmlToMarkdown(cleanHtml(doc, { baseUrl: pageUrl, onlyMainContent: true, removeBase64Images: true }));
  results.push({ url: pageUrl, markdown });
  tick();
}

async function worker(): Promise<void> {
  for (;;) {
    const next = queue.shift();
    if (next === undefined) {
      if (inflight === 0) return wakeAll();
      await new Promise<void>((r) => waiting.push(r));
      continue;
    }
    inflight++;
    try {
      await crawlOne(next);
    } finally {
      inflight--;
      wakeAll();
    }
  }
}

console.log("START");
const t0 = performance.now();
await Promise.all(Array.from({ length: concurrency }, worker));
const ms = performance.now() - t0;
await finish(results.length, ms, results.reduce((s, r) => s + r.markdown.length, 0));
