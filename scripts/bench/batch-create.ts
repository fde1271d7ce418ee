/**
 * Batch creation benchmark: how long `POST /v2/batch/scrape` with a large list of URLs takes to answer, and how
 * long the server keeps everyone else waiting meanwhile (the slowest `GET /health`, polled every 10 ms from the
 * moment the batch is posted until its tasks are all queued). Each round posts the batch, waits until the server's
 * database (read beside it, read-only) holds a task for every URL, and cancels it. With `--baseline DIR` (another checkout of crawlbox, with its own
 * node_modules or a link to these), the same rounds run against a server from that tree too, alternating, in one
 * run: the machine is shared and noisy, so compare within a run.
 *
 *   bun scripts/bench/batch-create.ts [--urls 100000] [--rounds 3] [--baseline DIR]
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const URLS = Number(arg("urls") ?? 100_000);
const ROUNDS = Number(arg("rounds") ?? 3);
const BASELINE = arg("baseline");

interface Server {
  name: string;
  api: string;
  proc: ReturnType<typeof Bun.spawn>;
  dataDir: string;
}

async function startServer(name: string, tree: string): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), "crawlbox-batch-bench-"));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const proc = Bun.spawn([process.execPath, "src/main.ts", "serve"], {
    cwd: tree,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", CRAWLBOX_AUTH: "off", CRAWLBOX_ALLOW_PRIVATE_NETWORK: "true", CRAWLBOX_DATA_DIR: dataDir, CRAWLBOX_LOG_LEVEL: "error" },
    stdout: "ignore",
    stderr: "inherit",
  });
  const api = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 400; i++) {
    if (await fetch(`${api}/health`).then((r) => r.ok).catch(() => false)) return { name, api, proc, dataDir };
    await Bun.sleep(50);
  }
  throw new Error(`${name} did not become healthy`);
}

/** One round: post, poll /health until every task is queued, cancel. */
async function round(server: Server, body: string): Promise<{ postMs: number; queuedMs: number; worstHealthMs: number }> {
  let stop = false;
  let worst = 0;
  const poller = (async () => {
    while (!stop) {
      const t = performance.now();
      await fetch(`${server.api}/health`);
      worst = Math.max(worst, performance.now() - t);
      await Bun.sleep(10);
    }
  })();
  const t0 = performance.now();
  const res = await fetch(`${server.api}/v2/batch/scrape`, { method: "POST", headers: { "content-type": "application/json" }, body });
  const { id } = (await res.json()) as { id: string };
  const postMs = performance.now() - t0;
  // `total` counts a large batch's URLs from the start now: the tasks themselves say when all are queued.
  const db = new Database(join(server.dataDir, "crawlbox.sqlite"), { readonly: true });
  try {
    while ((db.query("SELECT COUNT(*) AS n FROM tasks WHERE job_id = ?").get(id) as { n: number }).n < URLS) await Bun.sleep(20);
  } finally {
    db.close();
  }
  const queuedMs = performance.now() - t0;
  stop = true;
  await poller;
  await fetch(`${server.api}/v2/batch/scrape/${id}`, { method: "DELETE" });
  return { postMs, queuedMs, worstHealthMs: worst };
}

async function main() {
  // Pages that answer slowly, so that the workers scraping the batch do not compete with what is measured.
  const site = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: async () => (await Bun.sleep(5000), new Response("<p>x</p>", { headers: { "content-type": "text/html" } })) });
  const urls = Array.from({ length: URLS }, (_, i) => `http://127.0.0.1:${site.port}/h${i % 7}/page-${i}?q=${i}`);
  const body = JSON.stringify({ urls, formats: ["markdown"] });
  const servers = [await startServer("this tree", ROOT)];
  if (BASELINE) servers.push(await startServer("baseline", BASELINE));
  const results = new Map(servers.map((s) => [s.name, [] as Awaited<ReturnType<typeof round>>[]]));
  try {
    for (let r = 0; r < ROUNDS; r++) for (const s of r % 2 === 0 ? servers : [...servers].reverse()) results.get(s.name)!.push(await round(s, body));
  } finally {
    for (const s of servers) {
      s.proc.kill("SIGTERM");
      await s.proc.exited;
      rmSync(s.dataDir, { recursive: true, force: true });
    }
    site.stop(true);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
  console.log(`# Batch creation (${new Date().toISOString().slice(0, 10)}, ${URLS} URLs, ${(body.length / 1e6).toFixed(1)} MB body, ${ROUNDS} rounds, bun ${Bun.version})\n`);
  console.log("| server | answered in ms | all tasks queued in ms | slowest /health meanwhile, ms |");
  console.log("|---|---|---|---|");
  for (const [name, rs] of results) {
    const f = (k: keyof (typeof rs)[number]) => `${median(rs.map((x) => x[k])).toFixed(0)} (${rs.map((x) => x[k].toFixed(0)).join(", ")})`;
    console.log(`| ${name} | ${f("postMs")} | ${f("queuedMs")} | ${f("worstHealthMs")} |`);
  }
  console.log("\nMedian of the rounds, each round in brackets.");
}

await main();
