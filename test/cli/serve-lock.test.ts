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

function serve(dataDir: string, port: number, auth: "on" | "off" = "off") {
  return Bun.spawn([process.execPath, "src/main.ts", "serve"], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", CRAWLBOX_AUTH: auth, CRAWLBOX_API_KEYS: "", CRAWLBOX_DATA_DIR: dataDir, CRAWLBOX_LOG_LEVEL: "error" },
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
    // With auth on and no key yet, a server that cannot listen creates and prints no "first key" for nothing.
    const keyless = newDir();
    const samePortAuth = serve(keyless, port, "on");
    expect(await samePortAuth.exited).toBe(1);
    expect(await new Response(samePortAuth.stdout).text()).not.toContain("No API key existed");
    const list = Bun.spawnSync([process.execPath, "src/main.ts", "keys", "list"], { cwd: ROOT, env: { ...process.env, CRAWLBOX_DATA_DIR: keyless, CRAWLBOX_API_KEYS: "" } });
    expect(list.stdout.toString().trim()).toBe("no keys");
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
  // A server killed outright (kill -9) leaves no lock behind: the operating system releases it with the process.
  const killed = serve(dir, port + 2);
  await healthy(port + 2);
  killed.kill("SIGKILL");
  await killed.exited;
  expect(existsSync(join(dir, "serve.pid"))).toBe(true); // its PID file stays, naming nobody
  const next = serve(dir, port + 4);
  try {
    await healthy(port + 4);
    expect(readFileSync(join(dir, "serve.pid"), "utf8")).toBe(String(next.pid));
  } finally {
    next.kill("SIGTERM");
    await next.exited;
  }
}, 30_000);

test("two servers started at the same moment on one folder: exactly one of them runs", async () => {
  const dir = newDir();
  const port = 20000 + Math.floor(Math.random() * 20000);
  const a = serve(dir, port);
  const b = serve(dir, port + 1);
  try {
    const first = await Promise.race([a.exited.then(() => "a"), b.exited.then(() => "b")]);
    const [loser, winner, winnerPort] = first === "a" ? [a, b, port + 1] : [b, a, port];
    expect(await loser.exited).toBe(1);
    await healthy(winnerPort);
    expect(readFileSync(join(dir, "serve.pid"), "utf8")).toBe(String(winner.pid));
  } finally {
    a.kill("SIGTERM");
    b.kill("SIGTERM");
    await Promise.all([a.exited, b.exited]);
  }
}, 30_000);
