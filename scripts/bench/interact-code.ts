/**
 * Browser code benchmark: what a script costs in each language, in one run on a local page, through the HTTP API
 * of a crawlbox server process (`POST /v2/browser/{id}/execute`). The same small script (load the page, read its
 * title and a heading, print both) in JavaScript (`node`) and Python, alternated round by round in one session, with
 * bash's agent-browser commands as the floor (no sandbox page at all). Python's first script is reported apart: it
 * waits for the start-up snapshot (interact/sandbox/python-snapshot.ts) to be made.
 *
 *   bun scripts/bench/interact-code.ts [--rounds 12]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const i = process.argv.indexOf("--rounds");
const ROUNDS = i >= 0 ? Number(process.argv[i + 1]) : 12;

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function main() {
  const site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => new Response("<!doctype html><html><head><title>Bench page</title></head><body><h1>Hello</h1><p>Text</p></body></html>", { headers: { "content-type": "text/html" } }),
  });
  const url = `http://127.0.0.1:${site.port}/`;
  const dataDir = mkdtempSync(join(tmpdir(), "crawlbox-bench-"));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const server = Bun.spawn([process.execPath, "src/main.ts", "serve"], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", CRAWLBOX_AUTH: "off", CRAWLBOX_ALLOW_PRIVATE_NETWORK: "true", CRAWLBOX_DATA_DIR: dataDir, CRAWLBOX_LOG_LEVEL: "error", CRAWLBOX_BROWSER_CONCURRENCY: "4" },
    stdout: "ignore",
    stderr: "inherit",
  });
  const api = `http://127.0.0.1:${port}`;
  const post = async (path: string, body: unknown) => (await (await fetch(`${api}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json()) as any;
  try {
    for (let n = 0; n < 200 && !(await fetch(`${api}/health`).then((r) => r.ok).catch(() => false)); n++) await Bun.sleep(50);
    const session = await post("/v2/browser", {});
    if (!session.success) throw new Error(`no session: ${JSON.stringify(session)}`);
    const scripts = {
      bash: `agent-browser open ${url}\nagent-browser get title\nagent-browser get text h1`,
      node: `await page.goto(${JSON.stringify(url)});\nconsole.log(await page.title(), await page.locator("h1").innerText());`,
      python: `await page.goto(${JSON.stringify(url)})\nprint(await page.title(), await page.locator("h1").inner_text())`,
    };
    const run = async (language: keyof typeof scripts) => {
      const t = performance.now();
      const r = await post(`/v2/browser/${session.id}/execute`, { code: scripts[language], language });
      const ms = performance.now() - t;
      if (r.exitCode !== 0 || !String(r.stdout).includes("Hello")) throw new Error(`${language} failed: ${JSON.stringify(r)}`);
      return ms;
    };
    const firstPython = await run("python");
    const times: Record<keyof typeof scripts, number[]> = { bash: [], node: [], python: [] };
    for (let r = 0; r < ROUNDS; r++) for (const language of ["bash", "node", "python"] as const) times[language].push(await run(language));
    await fetch(`${api}/v2/browser/${session.id}`, { method: "DELETE" });

    const f = (x: number) => x.toFixed(0);
    console.log(`# Browser code benchmark (${new Date().toISOString().slice(0, 10)}, ${ROUNDS} rounds, bun ${Bun.version})\n`);
    console.log("| language | p50 ms | p95 ms | p50 / JavaScript's |");
    console.log("|---|---|---|---|");
    for (const language of ["bash", "node", "python"] as const) {
      console.log(`| ${language} | ${f(percentile(times[language], 50))} | ${f(percentile(times[language], 95))} | ${(percentile(times[language], 50) / percentile(times.node, 50)).toFixed(2)}× |`);
    }
    console.log(`\nPython's first script (the start-up snapshot made first): ${f(firstPython)} ms.`);
  } finally {
    server.kill();
    await server.exited;
    site.stop(true);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
