/**
 * Browser engine benchmark (issue 3), one run on local pages (test/fixtures/js-pages.ts):
 *
 * 1. Browser scrapes/s and p50/p95 latency at concurrency 1, 2, 4, 8 (the pool sized to the concurrency), for the
 *    small client-rendered page `/bench`, through the browser engine (smart wait included), and through the
 *    engine router (HTTP first, then the browser because the page is a JS shell).
 * 2. The naive baseline: launch Chromium per request (launch, page, goto, content, close), same page.
 * 3. Peak memory: PSS of the Chromium process tree plus this process's RSS, sampled every 100 ms.
 * 4. Pool overhead: acquire a pooled page + goto(load) + content + release, against a bare puppeteer
 *    goto(load) + content on one warm page (no smart wait in either, so only the pool's cost differs).
 *
 * Usage: bun scripts/bench/browser.ts [--requests N] [--naive N]
 */
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import puppeteer from "puppeteer-core";
import { createEgressGate } from "../../src/egress/index.ts";
import { CHROMIUM_ARGS, findChromium } from "../../src/engines/browser/chromium.ts";
import { createBrowserEngine, prepareWarmPage, type BrowserRequest } from "../../src/engines/browser/engine.ts";
import { BrowserPool } from "../../src/engines/browser/pool.ts";
import { createHttpEngine } from "../../src/engines/http/index.ts";
import { createEngineRouter } from "../../src/engines/router.ts";
import { silentLogger } from "../../src/log.ts";
import type { ScrapeSpec } from "../../src/scrape/spec.ts";
import { startJsSite } from "../../test/fixtures/js-pages.ts";

const args = process.argv.slice(2);
const arg = (name: string, def: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const REQUESTS = arg("--requests", 48);
const NAIVE = arg("--naive", 8);
const LEVELS = [1, 2, 4, 8];

const chromium = findChromium(process.env.CHROME_PATH ?? "");
if (!chromium) throw new Error("no Chromium found");
const site = startJsSite();
const gate = await createEgressGate({ allowPrivateNetwork: true });
const URL_ = `${site.url}/bench`;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

/** PSS (KiB) of every process in the process groups of `pids`. */
function treePssKb(pgids: number[]): number {
  let kb = 0;
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      const pgid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      if (!pgids.includes(pgid)) continue;
      const m = /^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${e}/smaps_rollup`, "utf8"));
      if (m) kb += Number(m[1]);
    } catch {
      // gone
    }
  }
  return kb;
}

let peakMb = 0;
let peakChromeMb = 0;
const groups = new Set<number>();
const sampler = setInterval(() => {
  const chrome = treePssKb([...groups]) / 1024;
  peakChromeMb = Math.max(peakChromeMb, chrome);
  peakMb = Math.max(peakMb, chrome + process.memoryUsage().rss / 1024 / 1024);
}, 100);

/** Runs `n` calls of `fn` with `c` at a time; returns latencies and wall time. */
async function run(n: number, c: number, fn: () => Promise<unknown>): Promise<{ lat: number[]; wallMs: number }> {
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < n) {
        next++;
        const t = performance.now();
        await fn();
        lat.push(performance.now() - t);
      }
    }),
  );
  return { lat, wallMs: performance.now() - t0 };
}

const fmt = (r: { lat: number[]; wallMs: number }) =>
  `${((r.lat.length / r.wallMs) * 1000).toFixed(1).padStart(5)} /s   p50 ${pct(r.lat, 50).toFixed(0).padStart(5)} ms   p95 ${pct(r.lat, 95).toFixed(0).padStart(5)} ms`;

const request: BrowserRequest = {
  url: URL_,
  headers: {},
  skipTlsVerification: true,
  timeoutMs: 30_000,
  maxBodyBytes: 10 << 20,
  mobile: false,
  waitForMs: 0,
  blockAds: true,
  actions: [],
  stealth: false,
};
const spec = {
  url: URL_, sourceUrl: URL_, formats: [{ type: "markdown" }], onlyMainContent: true, includeTags: [], excludeTags: [],
  removeBase64Images: true, headers: {}, timeoutMs: 30_000, waitForMs: 0, skipTlsVerification: true, mobile: false,
  proxy: "basic", blockAds: true, maxAgeMs: 0, lockdown: false, storeInCache: false, zeroDataRetention: false, parsers: [], actions: [],
} as unknown as ScrapeSpec;

console.log(`crawlbox browser bench: ${chromium}, ${REQUESTS} requests per level, load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
const rows: string[] = [];
for (const c of LEVELS) {
  const pool = new BrowserPool({ executablePath: chromium, proxyUrl: gate.proxyUrl, concurrency: c, retireAfterPages: 10_000, log: silentLogger, prepare: prepareWarmPage });
  const engine = createBrowserEngine({ pool, gate });
  const router = createEngineRouter({ http: createHttpEngine({ gate }), browser: engine, closeBrowser: () => pool.close(), formatNeedsBrowser: () => false, log: silentLogger });
  await pool.warmUp();
  for (const pid of pool.pids()) groups.add(pid);
  await run(4, c, () => engine.fetch(request)); // warm-up
  const eng = await run(REQUESTS, c, () => engine.fetch(request));
  const rtr = await run(REQUESTS, c, () => router.fetch(spec, 10 << 20));
  rows.push(`| ${c} | ${fmt(eng)} | ${fmt(rtr)} |`);
  console.log(`c=${c}  engine ${fmt(eng)}   router ${fmt(rtr)}`);
  await pool.close();
}

// Naive baseline: a Chromium per request.
const naiveRows: string[] = [];
for (const c of [1, 2, 4]) {
  const r = await run(NAIVE, c, async () => {
    const b = await puppeteer.launch({ executablePath: chromium, headless: true, pipe: true, args: [...CHROMIUM_ARGS, `--proxy-server=${gate.proxyUrl}`, "--proxy-bypass-list=<-loopback>"] });
    const pid = b.process()?.pid;
    if (pid) groups.add(pid);
    const p = await b.newPage();
    await p.goto(URL_, { waitUntil: "load" });
    await p.content();
    await b.close();
  });
  naiveRows.push(`| ${c} | ${fmt(r)} |`);
  console.log(`naive c=${c}  ${fmt(r)}`);
}

// Pool overhead vs bare puppeteer on a warm page (no smart wait in either).
const pool = new BrowserPool({ executablePath: chromium, proxyUrl: gate.proxyUrl, concurrency: 1, retireAfterPages: 10_000, log: silentLogger, prepare: prepareWarmPage });
await pool.warmUp();
const browser = await pool.browser();
const ctx = await browser.createBrowserContext();
const bare = await ctx.newPage();
await bare.goto(URL_);
const bareLat: number[] = [];
const poolLat: number[] = [];
for (let i = 0; i < REQUESTS; i++) {
  let t = performance.now();
  await bare.goto(URL_, { waitUntil: "load" });
  await bare.content();
  bareLat.push(performance.now() - t);
  await Bun.sleep(30); // let the pool's warm page be ready, as between real requests
  t = performance.now();
  const lease = await pool.acquire({ deadline: performance.now() + 30_000 });
  await lease.page.goto(URL_, { waitUntil: "load" });
  await lease.page.content();
  lease.release();
  poolLat.push(performance.now() - t);
  await Bun.sleep(30);
}
await ctx.close();
await pool.close();
clearInterval(sampler);
const overhead = pct(poolLat, 50) - pct(bareLat, 50);
console.log(`bare warm page p50 ${pct(bareLat, 50).toFixed(0)} ms; pooled fresh context p50 ${pct(poolLat, 50).toFixed(0)} ms; overhead ${overhead.toFixed(0)} ms`);
console.log(`peak memory: Chromium trees ${peakChromeMb.toFixed(0)} MB PSS, with this process ${peakMb.toFixed(0)} MB`);
console.log("\n| concurrency | browser engine | router (HTTP, then browser) |\n|---|---|---|\n" + rows.join("\n"));
console.log("\n| concurrency | Chromium per request |\n|---|---|\n" + naiveRows.join("\n"));
console.log(`load average after: ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
await gate.close();
site.stop();
