/**
 * @module bench/lib/crawl-timing
 * Wall-clock accounting of a crawlbox server during the crawl benchmark (`--timing <file>`), loaded with
 * `bun --preload` into the server process. It wraps, on their prototypes, the job store's writes, the scrape
 * service's page scrape, the page cache, the robots.txt cache and the worker pool's task run, and writes the
 * totals as JSON to `CRAWLBOX_BENCH_TIMING_FILE` when the process exits. Off-CPU waits (robots.txt fetches,
 * HTTP) show here and not in a CPU profile.
 *
 * What it derives: `task` is a worker's whole page (scrape + discovery + store); `task − scrapePage −
 * store.complete` is the discovery step (robots.txt loading for every linked origin, then the link filter).
 */
import { writeFileSync } from "node:fs";
import { RobotsCache } from "../../../src/crawl/robots-cache.ts";
import { SqliteJobStore } from "../../../src/jobs/sqlite-store.ts";
import { WorkerPool } from "../../../src/jobs/worker-pool.ts";
import { ScrapeService } from "../../../src/scrape/service.ts";
import { PageCache } from "../../../src/storage/page-cache.ts";

/** Calls and total milliseconds per wrapped method. */
const totals: Record<string, { calls: number; ms: number }> = {};
/** robots.txt fetches (cache misses) by whether the origin is the crawled site's. */
const robotsFetches = { local: 0, external: 0 };

function add(name: string, ms: number): void {
  const t = (totals[name] ??= { calls: 0, ms: 0 });
  t.calls++;
  t.ms += ms;
}

type AnyFn = (...args: unknown[]) => unknown;

/** Wraps `proto[method]` to time it (sync or async). */
function wrap(proto: object, method: string, name: string): void {
  const target = proto as Record<string, AnyFn>;
  const original = target[method];
  if (typeof original !== "function") throw new Error(`crawl-timing: ${name} is not a method`);
  target[method] = function timed(this: unknown, ...args: unknown[]) {
    const t0 = performance.now();
    const out = original.apply(this, args);
    if (out instanceof Promise) return out.finally(() => add(name, performance.now() - t0));
    add(name, performance.now() - t0);
    return out;
  };
}

for (const m of ["claim", "complete", "renew", "retry", "fail"]) wrap(SqliteJobStore.prototype, m, `store.${m}`);
wrap(ScrapeService.prototype, "scrapePage", "scrapePage");
wrap(PageCache.prototype, "put", "cache.put");
wrap(PageCache.prototype, "get", "cache.get");
wrap(RobotsCache.prototype, "get", "robots.get");
wrap(RobotsCache.prototype, "fetchEntry", "robots.fetch");
wrap(WorkerPool.prototype, "runTask", "task");
const fetchEntry = (RobotsCache.prototype as unknown as Record<string, AnyFn>).fetchEntry!;
(RobotsCache.prototype as unknown as Record<string, AnyFn>).fetchEntry = function counted(this: unknown, origin: unknown) {
  if (/^https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/.test(String(origin))) robotsFetches.local++;
  else robotsFetches.external++;
  return fetchEntry.call(this, origin);
};

const startedAt = performance.now();
process.on("exit", () => {
  const file = process.env.CRAWLBOX_BENCH_TIMING_FILE;
  if (file) writeFileSync(file, JSON.stringify({ uptimeMs: performance.now() - startedAt, totals, robotsFetches }, null, 2));
});
