/**
 * Browser engine benchmark (issue 3), one run on local pages (test/fixtures/js-pages.ts):
 *
 * 1. Browser scrapes/s and p50/p95 latency at concurrency 1, 2, 4, 8 (the pool sized to the concurrency), for the
 *    small client-rendered page `/bench`, through the browser engine (smart wait included), and through the
 *    engine router (HTTP first, then the browser because the page is a JS shell).
 * 2. The naive baseline: launch Chromium per request (launch, page, goto, content, close), same page.
 * 3. Peak memory: PSS of the Chromium process tree plus this process's RSS, sampled every 100 ms.
 * 4. Where the CPU goes, per engine level: CPU-ms per page of Chromium's processes by type (browser, renderer,
 *    gpu, utility…, from /proc/<pid>/stat utime+stime, sampled every 50 ms) and of this Bun process, the renderer
 *    processes started, and how many scrapes ran in a reused (wiped) context.
 * 5. Pool overhead: acquire a pooled page + goto(load) + content + release, against a bare puppeteer
 *    goto(load) + content on one warm page (no smart wait in either, so only the pool's cost differs); for the
 *    reused context of one tenant (the common case) and for a fresh context per lease (profiles, proxies).
 *
 * Usage: bun scripts/bench/browser.ts [--requests N] [--naive N] [--page-memory-mb N]
 * (the page memory limit: by default the server's default for each concurrency; 0 turns the guard off)
 */
import { readdirSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import puppeteer from "puppeteer-core";
import { createEgressGate } from "../../src/egress/index.ts";
import { CHROMIUM_ARGS, findChromium, NO_SANDBOX_ARG, wantsSandbox } from "../../src/engines/browser/chromium.ts";
import { createBrowserEngine, prepareWarmPage, type BrowserRequest } from "../../src/engines/browser/engine.ts";
import { BrowserPool } from "../../src/engines/browser/pool.ts";
import { defaultPageMemoryMb } from "../../src/config.ts";
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
/** The page memory limit (renderer-memory.ts) the pools run with, as a server does; 0 leaves the guard off. */
const PAGE_MEMORY_MB = arg("--page-memory-mb", -1);
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

/** CPU seconds of every live process in the process groups `pgids`, by pid, with its Chromium process type. */
function groupCpu(pgids: number[]): Map<number, { type: string; cpuS: number }> {
  const out = new Map<number, { type: string; cpuS: number }>();
  for (const e of readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (!pgids.includes(Number(f[2]))) continue;
      const cmd = readFileSync(`/proc/${e}/cmdline`, "utf8");
      let type = /--type=([a-z-]+)/.exec(cmd)?.[1] ?? "browser";
      if (type === "utility") type = `utility:${/--utility-sub-type=([\w]+)/.exec(cmd)?.[1] ?? "?"}`;
      out.set(Number(e), { type, cpuS: (Number(f[11]) + Number(f[12])) / CLOCK_TICKS });
    } catch {
      // gone
    }
  }
  return out;
}
const CLOCK_TICKS = 100;
const selfCpuS = () => (process.cpuUsage().user + process.cpuUsage().system) / 1e6;

/** Samples CPU of the pool's Chromium and of this process while `fn` runs; returns ms per page by type. */
async function cpuOf(pgids: number[], pages: number, fn: () => Promise<unknown>): Promise<string> {
  const seen = new Map<number, { type: string; startS: number; lastS: number }>();
  const sample = (initial: boolean) => {
    for (const [pid, p] of groupCpu(pgids)) {
      const s = seen.get(pid);
      if (s) s.lastS = p.cpuS;
      else seen.set(pid, { type: p.type, startS: initial ? p.cpuS : 0, lastS: p.cpuS });
    }
  };
  sample(true);
  const initial = new Set(seen.keys());
  const timer = setInterval(() => sample(false), 50);
  const bun0 = selfCpuS();
  await fn();
  const bunS = selfCpuS() - bun0;
  clearInterval(timer);
  sample(false);
  const byType = new Map<string, number>();
  let totalS = 0;
  let renderers = 0;
  for (const [pid, s] of seen) {
    byType.set(s.type, (byType.get(s.type) ?? 0) + s.lastS - s.startS);
    totalS += s.lastS - s.startS;
    if (!initial.has(pid) && s.type === "renderer") renderers++;
  }
  const ms = (x: number) => ((x / pages) * 1000).toFixed(0);
  const parts = [...byType].filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]).map(([t, v]) => `${t} ${ms(v)}`);
  return `CPU ms/page: Chromium ${ms(totalS)} (${parts.join(", ")}), Bun ${ms(bunS)}; renderers started ${renderers}`;
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
const cpuRows: string[] = [];
for (const c of LEVELS) {
  const pageMemoryLimitBytes = (PAGE_MEMORY_MB >= 0 ? PAGE_MEMORY_MB : defaultPageMemoryMb(c)) * 2 ** 20;
  const pool = new BrowserPool({ executablePath: chromium, proxyUrl: gate.proxyUrl, concurrency: c, retireAfterPages: 10_000, log: silentLogger, prepare: prepareWarmPage, pageMemoryLimitBytes });
  const engine = createBrowserEngine({ pool, gate });
  const router = createEngineRouter({ http: createHttpEngine({ gate }), browser: engine, closeBrowser: () => pool.close(), formatNeedsBrowser: () => false, formatIsBytesOnly: () => false, log: silentLogger });
  await pool.warmUp();
  for (const pid of pool.pids()) groups.add(pid);
  await run(4, c, () => engine.fetch(request)); // warm-up
  const eng = await run(REQUESTS, c, () => engine.fetch(request));
  const rtr = await run(REQUESTS, c, () => router.fetch(spec, 10 << 20));
  rows.push(`| ${c} | ${fmt(eng)} | ${fmt(rtr)} |`);
  console.log(`c=${c}  engine ${fmt(eng)}   router ${fmt(rtr)}`);
  const before = pool.stats;
  const cpu = await cpuOf(pool.pids(), REQUESTS, () => run(REQUESTS, c, () => engine.fetch(request)));
  const reused = pool.stats.reused - before.reused;
  cpuRows.push(`c=${c}  ${cpu}; ${reused}/${REQUESTS} in a reused context`);
  console.log(`      ${cpuRows.at(-1)!.slice(4)}`);
  await pool.close();
}

// Naive baseline: a Chromium per request.
const naiveRows: string[] = [];
for (const c of [1, 2, 4]) {
  const r = await run(NAIVE, c, async () => {
    const b = await puppeteer.launch({ executablePath: chromium, headless: true, pipe: true, args: [...CHROMIUM_ARGS, ...(wantsSandbox("auto") ? [] : [NO_SANDBOX_ARG]), `--proxy-server=${gate.proxyUrl}`, "--proxy-bypass-list=<-loopback>"] });
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
const reusedLat: number[] = [];
const freshLat: number[] = [];
async function pooled(lat: number[], tenant: string | undefined): Promise<void> {
  await Bun.sleep(30); // let the pool's warm page (or wipe) be ready, as between real requests
  const t = performance.now();
  const lease = await pool.acquire({ deadline: performance.now() + 30_000, tenant });
  await lease.page.goto(URL_, { waitUntil: "load" });
  await lease.page.content();
  lease.release({ reuse: true });
  lat.push(performance.now() - t);
}
for (let i = 0; i < REQUESTS; i++) {
  const t = performance.now();
  await bare.goto(URL_, { waitUntil: "load" });
  await bare.content();
  bareLat.push(performance.now() - t);
  await pooled(reusedLat, "bench");
  await pooled(freshLat, undefined);
}
await ctx.close();
await pool.close();
clearInterval(sampler);
const p50 = (xs: number[]) => pct(xs, 50).toFixed(0);
console.log(
  `bare warm page p50 ${p50(bareLat)} ms; pooled reused context p50 ${p50(reusedLat)} ms (overhead ${(pct(reusedLat, 50) - pct(bareLat, 50)).toFixed(0)} ms); ` +
    `pooled fresh context p50 ${p50(freshLat)} ms (overhead ${(pct(freshLat, 50) - pct(bareLat, 50)).toFixed(0)} ms)`,
);
console.log(`peak memory: Chromium trees ${peakChromeMb.toFixed(0)} MB PSS, with this process ${peakMb.toFixed(0)} MB`);
console.log("\n| concurrency | browser engine | router (HTTP, then browser) |\n|---|---|---|\n" + rows.join("\n"));
console.log("\n| concurrency | Chromium per request |\n|---|---|\n" + naiveRows.join("\n"));
console.log(`\n${cpuRows.join("\n")}`);
console.log(`load average after: ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
await gate.close();
site.stop();
