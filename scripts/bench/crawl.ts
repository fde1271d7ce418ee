/**
 * Crawl benchmark (issue 5), in one run on a local site of `--pages` interlinked pages (half small generated
 * pages, half article pages from the article-extraction dataset; see lib/crawl-site.ts), served by its own
 * process. Three crawlers, each in its own fresh process per round, at the same concurrency:
 *  1. crawlbox: `bun src/main.ts serve` (auth off, temp data dir, job and per-host concurrency = `--concurrency`),
 *     `POST /v2/crawl` from `/` (`limit`, `crawlEntireDomain`, `sitemap: "skip"`, markdown), polled to the end.
 *  2. Crawlee's `CheerioCrawler` + turndown, in-memory storage (lib/crawl-crawlee.ts).
 *  3. A bare loop: fetch + parse + extractLinks + cleanHtml + htmlToMarkdown (lib/crawl-bare.ts).
 * For each: pages/s, peak RSS (`VmHWM`) and RSS at 25/50/75/100 % of the pages. The machine is shared and
 * noisy: the order of the runs rotates every round, medians over rounds and ratios are reported.
 *
 *   bun scripts/bench/crawl.ts [--pages 2000] [--concurrency 8] [--rounds 3]
 *   bun scripts/bench/crawl.ts --profile <dir> [--pages 2000] [--concurrency 8]
 *   bun scripts/bench/crawl.ts --without crawlee   (quick rounds while iterating: Crawlee takes minutes a round)
 *
 * `--profile <dir>` measures nothing against the peers: it runs the two crawlbox crawls once each under
 * `bun --cpu-prof --cpu-prof-md` and the wall-clock accounting of lib/crawl-timing.ts, and leaves the CPU
 * profiles and `timing-*.json` in `<dir>` (summarised on stdout).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readCpuMs, readLines, readMem, sampleRss } from "./lib/crawl-proc.ts";

const ROOT = join(import.meta.dir, "..", "..");
const argv = process.argv;
const arg = (name: string, def: number) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : def;
};
const PAGES = arg("pages", 2000);
const CONCURRENCY = arg("concurrency", 8);
const ROUNDS = arg("rounds", 3);
const PROFILE_DIR = argv.includes("--profile") ? argv[argv.indexOf("--profile") + 1] : undefined;
/** Peers left out of this run (comma-separated), e.g. `--without crawlee`. */
const WITHOUT = new Set(argv.includes("--without") ? argv[argv.indexOf("--without") + 1]!.split(",") : []);
/** Status polling interval: short against a crawl of tens of seconds, cheap with `limit=1`. */
const POLL_MS = 100;
const QUARTERS = [0.25, 0.5, 0.75, 1];

/** One crawler's run. */
interface Run {
  pages: number;
  ms: number;
  markdownChars: number;
  startRssKb: number;
  /** RSS when 25/50/75/100 % of the pages were done. */
  quarterRssKb: number[];
  peakRssKb: number;
  /** CPU time of the crawler's process (all threads) over the timed crawl. */
  cpuMs: number;
  notFound: number;
  missing: string[];
}

type Peer = "crawlbox" | "crawlbox-norobots" | "crawlee" | "bare";

async function startSite(): Promise<{ proc: ReturnType<typeof Bun.spawn>; base: string; bytes: number }> {
  const proc = Bun.spawn([process.execPath, "scripts/bench/lib/crawl-site.ts", "--pages", String(PAGES)], { cwd: ROOT, stdout: "pipe", stderr: "inherit" });
  let ready: RegExpExecArray | null = null;
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  let out = "";
  while (!(ready = /PORT (\d+) PAGES (\d+) BYTES (\d+)/.exec(out))) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`site server exited before it was ready:\n${out}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  if (Number(ready[2]) !== PAGES) throw new Error(`site has ${ready[2]} pages, expected ${PAGES}`);
  return { proc, base: `http://127.0.0.1:${ready[1]}`, bytes: Number(ready[3]) };
}

interface SiteStats {
  served: number;
  notFound: number;
  missing: string[];
}

async function siteStats(site: string, reset = false): Promise<SiteStats> {
  return (await (await fetch(`${site}/__stats${reset ? "/reset" : ""}`)).json().catch(() => ({ served: 0, notFound: 0, missing: [] }))) as SiteStats;
}

/** crawlbox as a server process; the crawl goes through the API. */
async function runCrawlbox(site: string, ignoreRobotsTxt: boolean, profile?: { dir: string; name: string }): Promise<Run> {
  const dataDir = mkdtempSync(join(tmpdir(), "crawlbox-crawl-bench-"));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const flags = profile
    ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${profile.dir}`, `--cpu-prof-name=${profile.name}`, "--preload", "./scripts/bench/lib/crawl-timing.ts"]
    : [];
  const proc = Bun.spawn([process.execPath, ...flags, "src/main.ts", "serve"], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      CRAWLBOX_AUTH: "off",
      CRAWLBOX_ALLOW_PRIVATE_NETWORK: "true",
      CRAWLBOX_DATA_DIR: dataDir,
      CRAWLBOX_LOG_LEVEL: "error",
      CRAWLBOX_JOB_CONCURRENCY: String(CONCURRENCY),
      CRAWLBOX_PER_HOST_CONCURRENCY: String(CONCURRENCY),
      ...(profile ? { CRAWLBOX_BENCH_TIMING_FILE: join(profile.dir, `timing-${profile.name}.json`) } : {}),
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  const api = `http://127.0.0.1:${port}`;
  try {
    let healthy = false;
    for (let i = 0; i < 400 && !healthy; i++) {
      healthy = await fetch(`${api}/health`).then((r) => r.ok).catch(() => false);
      if (!healthy) await Bun.sleep(50);
    }
    if (!healthy) throw new Error("crawlbox did not become healthy");
    const startRssKb = (await readMem(proc.pid)).rssKb;
    await siteStats(site, true);
    const sampler = sampleRss(proc.pid);
    const cpu0 = await readCpuMs(proc.pid);
    const t0 = performance.now();
    const res = await fetch(`${api}/v2/crawl`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: `${site}/`, limit: PAGES, crawlEntireDomain: true, sitemap: "skip", ignoreRobotsTxt, scrapeOptions: { formats: ["markdown"] } }),
    });
    const started = (await res.json()) as { success: boolean; id: string; error?: string };
    if (!started.success) throw new Error(`crawl refused: ${started.error}`);
    const quarterRssKb: number[] = [];
    let status: { status: string; completed: number; total: number };
    for (;;) {
      status = (await (await fetch(`${api}/v2/crawl/${started.id}?limit=1`)).json()) as typeof status;
      while (quarterRssKb.length < QUARTERS.length - 1 && status.completed >= QUARTERS[quarterRssKb.length]! * PAGES) {
        quarterRssKb.push((await readMem(proc.pid)).rssKb);
      }
      if (status.status !== "scraping") break;
      await Bun.sleep(POLL_MS);
    }
    const ms = performance.now() - t0;
    const cpuMs = (await readCpuMs(proc.pid)) - cpu0;
    const mem = await readMem(proc.pid);
    quarterRssKb.push(mem.rssKb);
    sampler.stop();
    if (status.status !== "completed") throw new Error(`crawl ended ${status.status}`);
    const { notFound, missing } = await siteStats(site);
    // Untimed: read every result back, to check the pages and count the markdown.
    let markdownChars = 0;
    let docs = 0;
    let next: string | undefined = `${api}/v2/crawl/${started.id}`;
    while (next) {
      const page = (await (await fetch(next)).json()) as { data: { markdown?: string }[]; next?: string };
      for (const d of page.data) markdownChars += d.markdown?.length ?? 0;
      docs += page.data.length;
      next = page.next;
    }
    if (docs !== status.completed) console.error(`crawlbox: ${docs} documents for ${status.completed} completed pages`);
    return { pages: status.completed, ms, markdownChars, startRssKb, quarterRssKb, peakRssKb: mem.hwmKb, cpuMs, notFound, missing };
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A peer process speaking the protocol of lib/crawl-peer.ts. */
async function runChild(script: string, site: string): Promise<Run> {
  await siteStats(site, true);
  const proc = Bun.spawn([process.execPath, script, "--url", `${site}/`, "--concurrency", String(CONCURRENCY), "--limit", String(PAGES)], {
    cwd: ROOT,
    env: { ...process.env, CRAWLEE_STORAGE_DIR: mkdtempSync(join(tmpdir(), "crawlee-bench-")) },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  let startRssKb = 0;
  let cpu0 = 0;
  const quarterRssKb: number[] = [];
  let done: { pages: number; ms: number; markdownChars: number; peakRssKb: number; cpuMs: number } | undefined;
  await readLines(proc.stdout as ReadableStream<Uint8Array>, async (line) => {
    const [word, ...rest] = line.trim().split(" ");
    if (word === "START") {
      startRssKb = (await readMem(proc.pid)).rssKb;
      cpu0 = await readCpuMs(proc.pid);
    }
    else if (word === "PROGRESS") quarterRssKb.push((await readMem(proc.pid)).rssKb);
    else if (word === "DONE") {
      const [pages, ms, chars] = rest.map(Number) as [number, number, number];
      done = { pages, ms, markdownChars: chars, peakRssKb: (await readMem(proc.pid)).hwmKb, cpuMs: (await readCpuMs(proc.pid)) - cpu0 };
      (proc.stdin as import("bun").FileSink).end();
    } else if (line.trim()) console.error(`${script}: ${line}`);
  });
  await proc.exited;
  if (!done) throw new Error(`${script} exited (${proc.exitCode}) without DONE`);
  const { notFound, missing } = await siteStats(site);
  return { ...done, startRssKb, quarterRssKb, notFound, missing };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const mb = (kb: number) => (kb / 1024).toFixed(0);

/** `--profile`: both crawlbox crawls once, profiled; a summary of where the wall-clock time went. */
async function profile(dir: string) {
  const site = await startSite();
  try {
    for (const [name, ignoreRobotsTxt] of [["robots", false], ["norobots", true]] as const) {
      const run = await runCrawlbox(site.base, ignoreRobotsTxt, { dir, name });
      const t = JSON.parse(await Bun.file(join(dir, `timing-${name}.json`)).text()) as {
        totals: Record<string, { calls: number; ms: number }>;
        robotsFetches: { local: number; external: number };
      };
      const ms = (k: string) => t.totals[k]?.ms ?? 0;
      const worker = CONCURRENCY * run.ms;
      const pct = (x: number) => `${((x / worker) * 100).toFixed(1)} %`;
      console.log(`\n## crawlbox, ${ignoreRobotsTxt ? "ignoreRobotsTxt: true" : "robots.txt honoured"}: ${run.pages} pages in ${(run.ms / 1000).toFixed(1)} s (${(run.pages / (run.ms / 1000)).toFixed(1)} pages/s)\n`);
      console.log(`Worker time = ${CONCURRENCY} workers × crawl time = ${(worker / 1000).toFixed(0)} s.\n`);
      console.log("| where | calls | total s | share of worker time |\n|---|---|---|---|");
      for (const [k, v] of Object.entries(t.totals).sort((a, b) => b[1].ms - a[1].ms)) {
        console.log(`| ${k} | ${v.calls} | ${(v.ms / 1000).toFixed(1)} | ${pct(v.ms)} |`);
      }
      const discovery = ms("task") - ms("scrapePage") - ms("store.complete");
      console.log(`| discovery (task − scrapePage − store.complete) | | ${(discovery / 1000).toFixed(1)} | ${pct(discovery)} |`);
      console.log(`| idle (no claimable task) | | ${((worker - ms("task")) / 1000).toFixed(1)} | ${pct(worker - ms("task"))} |`);
      console.log(`\nrobots.txt fetched for ${t.robotsFetches.local} local and ${t.robotsFetches.external} external origins.`);
    }
    console.log(`\nCPU profiles (and their .md summaries) in ${dir}.`);
  } finally {
    site.proc.kill();
  }
}

async function main() {
  const site = await startSite();
  const runs: Record<Peer, Run[]> = { crawlbox: [], "crawlbox-norobots": [], crawlee: [], bare: [] };
  const order = (["crawlbox", "crawlee", "crawlbox-norobots", "bare"] as Peer[]).filter((p) => !WITHOUT.has(p));
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < order.length; k++) {
        const peer = order[(r + k) % order.length]!;
        const run =
          peer === "crawlbox" || peer === "crawlbox-norobots"
            ? await runCrawlbox(site.base, peer === "crawlbox-norobots")
            : await runChild(peer === "crawlee" ? "scripts/bench/lib/crawl-crawlee.ts" : "scripts/bench/lib/crawl-bare.ts", site.base);
        runs[peer].push(run);
        const pps = run.pages / (run.ms / 1000);
        console.error(`round ${r + 1} ${peer}: ${run.pages} pages in ${(run.ms / 1000).toFixed(1)} s = ${pps.toFixed(1)} pages/s, CPU ${(run.cpuMs / run.pages).toFixed(2)} ms/page, peak ${mb(run.peakRssKb)} MB, RSS@quarters ${run.quarterRssKb.map(mb).join("/")} MB, 404s ${run.notFound}${run.missing.length ? ` (${run.missing.join(" ")})` : ""}`);
      }
    }
  } finally {
    site.proc.kill();
  }

  const pps = (p: Peer) => median(runs[p].map((x) => x.pages / (x.ms / 1000)));
  const row = (p: Peer, label: string) => {
    const rs = runs[p];
    const quarters = QUARTERS.map((_, i) => mb(median(rs.map((x) => x.quarterRssKb[i] ?? 0)))).join(" / ");
    return `| ${label} | ${median(rs.map((x) => x.pages))} | ${pps(p).toFixed(1)} | ${median(rs.map((x) => x.cpuMs / x.pages)).toFixed(2)} | ${mb(median(rs.map((x) => x.peakRssKb)))} | ${mb(median(rs.map((x) => x.startRssKb)))} | ${quarters} | ${(median(rs.map((x) => x.markdownChars)) / 1e6).toFixed(1)} |`;
  };
  console.log(`# Crawl benchmark (${new Date().toISOString().slice(0, 10)}, ${PAGES} pages, ${(site.bytes / 1024 / 1024).toFixed(0)} MB of HTML, concurrency ${CONCURRENCY}, ${ROUNDS} rounds, bun ${Bun.version})\n`);
  console.log("| crawler | pages | pages/s (median) | CPU ms per page (all threads) | peak RSS MB | RSS at start MB | RSS at 25 / 50 / 75 / 100 % MB | markdown M chars |");
  console.log("|---|---|---|---|---|---|---|---|");
  const labels: Record<Peer, string> = {
    crawlbox: "crawlbox `POST /v2/crawl` (server process, robots.txt honoured)",
    "crawlbox-norobots": "crawlbox `POST /v2/crawl`, `ignoreRobotsTxt: true`",
    crawlee: "Crawlee `CheerioCrawler` + turndown",
    bare: "bare loop (fetch + parse + links + clean + markdown)",
  };
  for (const p of Object.keys(labels) as Peer[]) if (runs[p].length > 0) console.log(row(p, labels[p]));
  const perRound = (a: Peer, b: Peer) => runs[a].map((x, i) => (x.pages / x.ms) / (runs[b][i]!.pages / runs[b][i]!.ms)).map((x) => x.toFixed(2)).join(", ");
  for (const p of ["crawlbox", "crawlbox-norobots"] as const) {
    if (runs[p].length === 0) continue;
    if (runs.crawlee.length > 0) console.log(`\n${p} / Crawlee: ${(pps(p) / pps("crawlee")).toFixed(2)}× (per round ${perRound(p, "crawlee")}; target ≥ 2×)`);
    if (runs.bare.length > 0) console.log(`${p} / bare loop: ${((pps(p) / pps("bare")) * 100).toFixed(0)} % (per round ${perRound(p, "bare")}; target ≥ 60 %)`);
  }
}

if (PROFILE_DIR) await profile(PROFILE_DIR);
else await main();
