/**
 * One server per data directory and per port (cli/data-dir-lock.ts, cli/serve.ts): a second `crawlbox serve` on
 * either exits 1 with a message instead of starting beside the first. Real processes.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const dirs: string[] = [];
const newDir = () => {
  const d = mkdtempSync(join(tmpdir(), "crawlbox-lock-"));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function serve(dataDir: string, port: number) {
  return Bun.spawn([process.execPath, "src/main.ts", "serve"], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", CRAWLBOX_AUTH: "off", CRAWLBOX_DATA_DIR: dataDir, CRAWLBOX_LOG_LEVEL: "error" },
    stdout: "pipe",
    stderr: "pipe",
  });
}

async function healthy(port: number) {
  for (let i = 0; i < 200; i++) {
    if (await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok).catch(() => false)) return;
    await Bun.sleep(50);
  }
  throw new Error("server did not start");
}

test("a second server on the same data directory or the same port exits 1 and says why; a stale lock is taken over", async () => {
  const dir = newDir();
  const port = 20000 + Math.floor(Math.random() * 20000);
  const first = serve(dir, port);
  try {
    await healthy(port);
    expect(readFileSync(join(dir, "serve.pid"), "utf8")).toBe(String(first.pid));
    const sameDir = serve(dir, port + 1);
    expect(await sameDir.exited).toBe(1);
    expect(await new Response(sameDir.stderr).text()).toContain(`another crawlbox (pid ${first.pid}) is serving ${dir}`);
    const samePort = serve(newDir(), port);
    expect(await samePort.exited).toBe(1);
    expect(await new Response(samePort.stderr).text()).toContain("the port is in use");
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200); // the first one is unharmed
  } finally {
    first.kill("SIGTERM");
    expect(await first.exited).toBe(0);
  }
  expect(existsSync(join(dir, "serve.pid"))).toBe(false); // released on a clean stop
  // A data directory that is a file: a plain message, not a stack trace.
  const file = join(newDir(), "not-a-folder");
  writeFileSync(file, "x");
  const bad = serve(file, port + 3);
  expect(await bad.exited).toBe(1);
  expect(await new Response(bad.stderr).text()).toStartWith(`crawlbox: cannot use ${file} as the data directory`);
  // A lock left by a process that no longer runs (a crash, kill -9) does not stop the next start.
  writeFileSync(join(dir, "serve.pid"), "2147483646");
  const next = serve(dir, port + 2);
  try {
    await healthy(port + 2);
  } finally {
    next.kill("SIGTERM");
    await next.exited;
  }
}, 30_000);
