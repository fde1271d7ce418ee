/**
 * @module bench/lib/crawl-crawlee
 * The crawl benchmark's peer, in its own process: Crawlee's `CheerioCrawler` (from npm, used by the bench
 * only) at a fixed concurrency, turndown for the markdown of each page (scripts, styles and noscript removed,
 * the body converted), same-hostname `enqueueLinks`, in-memory storage (`persistStorage: false`), results
 * pushed to the default dataset as a Crawlee user would.
 *
 *   bun scripts/bench/lib/crawl-crawlee.ts --url http://127.0.0.1:1234/ --concurrency 8 --limit 2000
 */
import { CheerioCrawler, Configuration, log, LogLevel } from "@crawlee/cheerio";
import TurndownService from "turndown";
import { finish, peerArgs, progressReporter } from "./crawl-peer.ts";

const { url, concurrency, limit } = peerArgs();
log.setLevel(LogLevel.WARNING);
const config = new Configuration({ persistStorage: false, purgeOnStart: true });
const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" });
const tick = progressReporter(limit);
let chars = 0;

const crawler = new CheerioCrawler(
  {
    minConcurrency: concurrency,
    maxConcurrency: concurrency,
    maxRequestsPerCrawl: limit,
    async requestHandler({ request, $, enqueueLinks, pushData }) {
      await enqueueLinks({ strategy: "same-hostname" });
      $("script, style, noscript").remove();
      const markdown = turndown.turndown($("body").html() ?? "");
      chars += markdown.length;
      await pushData({ url: request.loadedUrl ?? request.url, markdown });
      tick();
    },
  },
  config,
);

console.log("START");
const t0 = performance.now();
const stats = await crawler.run([url]);
const ms = performance.now() - t0;
await finish(stats.requestsFinished, ms, chars);
