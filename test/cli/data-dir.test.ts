/**
 * The data directory from the command line (cli/data-dir.ts, main.ts): a folder crawlbox cannot use is one sentence
 * and exit 1 for every command, never a stack trace; and what crawlbox creates in it is private to its user
 * (0700 folders, 0600 files). Real processes on temporary folders.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const base = mkdtempSync(join(tmpdir(), "crawlbox-datadir-"));
const immutable: string[] = [];
afterAll(() => {
  for (const p of immutable) Bun.spawnSync(["chattr", "-i", p]);
  rmSync(base, { recursive: true, force: true });
});

let n = 0;
const newDir = () => join(base, `d${++n}`);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `bun src/main.ts ...args` on `dataDir`, as `uid` when given (setpriv), with a deadline. */
async function run(args: string[], dataDir: string, opts: { uid?: number; env?: Record<string, string> } = {}): Promise<Run> {
  const prefix = opts.uid === undefined ? [] : ["setpriv", `--reuid=${opts.uid}`, `--regid=${opts.uid}`, "--clear-groups"];
  const proc = Bun.spawn([...prefix, process.execPath, "src/main.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, CRAWLBOX_DATA_DIR: dataDir, CRAWLBOX_API_KEYS: "", CRAWLBOX_LOG_LEVEL: "error", HOST: "127.0.0.1", PORT: "0", CRAWLBOX_BROWSER: "false", ...opts.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

function expectPlainRefusal(r: Run, dataDir: string, code: RegExp): void {
  expect(r.code).toBe(1);
  expect(r.stderr).toStartWith(`crawlbox: cannot use ${dataDir} as the data directory (`);
  expect(r.stderr).toMatch(code);
  expect(r.stderr).not.toContain("    at ");
  expect(r.stderr).not.toContain(" | "); // Bun's source excerpt of an uncaught error
}

/** Whether `chattr +i` works here (root with CAP_LINUX_IMMUTABLE on a file system that has the flag). */
function makeImmutable(path: string): boolean {
  const ok = Bun.spawnSync(["chattr", "+i", path]).exitCode === 0;
  if (ok) immutable.push(path);
  return ok;
}

/** Starts `serve` on `dataDir`, waits until it listens, stops it (SIGTERM, exit 0); returns its log (stderr). */
async function serveOnce(dataDir: string): Promise<string> {
  const proc = Bun.spawn([process.execPath, "src/main.ts", "serve"], {
    cwd: ROOT,
    env: { ...process.env, CRAWLBOX_DATA_DIR: dataDir, CRAWLBOX_AUTH: "off", CRAWLBOX_API_KEYS: "", HOST: "127.0.0.1", PORT: "0", CRAWLBOX_BROWSER: "false", CRAWLBOX_LOG_LEVEL: "info" },
    stdout: "ignore",
    stderr: "pipe",
  });
  const reader = proc.stderr.getReader();
  const decoder = new TextDecoder();
  const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
  let log = "";
  while (!log.includes("listening on")) {
    const { value, done } = await reader.read();
    if (done) break;
    log += decoder.decode(value);
  }
  // Bun installs the SIGTERM handler a moment after the line is written: ask the server before stopping it.
  const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(log)?.[1];
  for (let i = 0; i < 100 && port; i++) {
    if (await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false)) break;
    await Bun.sleep(50);
  }
  await Bun.sleep(200);
  proc.kill("SIGTERM");
  expect(await proc.exited).toBe(0);
  clearTimeout(timer);
  return log;
}

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

describe("a data directory that cannot be used: one line, exit 1, for every command", () => {
  test("a path that cannot be made: keys create, keys list, scrape and serve", async () => {
    const dir = "/proc/crawlbox-cannot-exist";
    for (const args of [["keys", "create"], ["keys", "list"], ["scrape", "http://127.0.0.1:9/"], ["serve"]]) {
      expectPlainRefusal(await run(args, dir), dir, /\((ENOENT|EACCES|EPERM)\)/);
    }
  }, 60_000);

  test("a crawlbox.sqlite that is a folder, or not a database", async () => {
    const folder = newDir();
    mkdirSync(join(folder, "crawlbox.sqlite"), { recursive: true });
    expectPlainRefusal(await run(["keys", "list"], folder), folder, /\(SQLITE_CANTOPEN\)/);
    const garbage = newDir();
    mkdirSync(garbage);
    writeFileSync(join(garbage, "crawlbox.sqlite"), "not a database at all, just some text that is long enough\n".repeat(20));
    const r = await run(["keys", "list"], garbage);
    expectPlainRefusal(r, garbage, /\(SQLITE_NOTADB\)/);
    expect(r.stderr).toContain("not a crawlbox database");
  }, 30_000);

  test("an immutable folder (keys list), and a database that cannot be written (serve)", async () => {
    const dir = newDir();
    mkdirSync(dir);
    if (!makeImmutable(dir)) {
      console.warn("skipped: chattr +i is not possible here (needs root with CAP_LINUX_IMMUTABLE on ext4/xfs/btrfs)");
      return;
    }
    expectPlainRefusal(await run(["keys", "list"], dir), dir, /\(SQLITE_CANTOPEN\)/);
    const ro = newDir();
    expect((await run(["keys", "list"], ro)).stdout.trim()).toBe("no keys");
    expect(makeImmutable(join(ro, "crawlbox.sqlite"))).toBe(true);
    expectPlainRefusal(await run(["serve"], ro), ro, /\(SQLITE_READONLY[A-Z_]*\)/);
  }, 30_000);

  test("another user's data directory: SQLITE_READONLY_DIRECTORY / CANTOPEN said plainly, naming the uid", async () => {
    if (!isRoot || Bun.spawnSync(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "true"]).exitCode !== 0) {
      console.warn("skipped: needs root and setpriv to run crawlbox as nobody");
      return;
    }
    // The temporary folders must be reachable by nobody; the data directory is root's, readable by all.
    chmodSync(base, 0o755);
    const dir = newDir();
    expect((await run(["keys", "create"], dir)).code).toBe(0);
    chmodSync(dir, 0o755);
    for (const f of readdirSync(dir)) chmodSync(join(dir, f), 0o644);
    const r = await run(["keys", "create"], dir, { uid: NOBODY, env: { HOME: "/tmp" } });
    expectPlainRefusal(r, dir, /\(SQLITE_(READONLY_DIRECTORY|READONLY|CANTOPEN)\)/);
    expect(r.stderr).toContain(`uid ${NOBODY}`);
    expectPlainRefusal(await run(["keys", "list"], dir, { uid: NOBODY, env: { HOME: "/tmp" } }), dir, /\(SQLITE_[A-Z_]+\)/);
  }, 30_000);
});

describe("what crawlbox creates in the data directory is private to its user", () => {
  test("keys create: the folder (and the parents it makes) 0700, the database and its WAL 0600", async () => {
    const parent = newDir();
    const dir = join(parent, "nested", "data");
    expect((await run(["keys", "create"], dir)).code).toBe(0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(parent, "nested")).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(dir)) expect([f, statSync(join(dir, f)).mode & 0o777]).toEqual([f, statSync(join(dir, f)).isDirectory() ? 0o700 : 0o600]);
  }, 30_000);

  test("serve: files/, cache/, the lock and the database, none readable by others; a folder the operator made keeps its mode, with a warning", async () => {
    const dir = newDir();
    const log = await serveOnce(dir);
    expect(log).toContain("listening on");
    expect(log).not.toContain(" has mode ");
    const seen: string[] = [];
    const walk = (p: string) => {
      for (const e of readdirSync(p, { withFileTypes: true })) {
        const full = join(p, e.name);
        seen.push(e.name);
        expect([full, statSync(full).mode & 0o077]).toEqual([full, 0]);
        if (e.isDirectory()) walk(full);
      }
    };
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    walk(dir);
    expect(seen).toEqual(expect.arrayContaining(["crawlbox.sqlite", "files", "cache"]));

    // An operator's folder, world-readable: left as it is, and the server says so.
    const open = newDir();
    mkdirSync(open);
    chmodSync(open, 0o755);
    const out = await serveOnce(open);
    expect(out).toContain(`data directory ${open} has mode 755: every local user may read it`);
    expect(statSync(open).mode & 0o777).toBe(0o755);
    expect(statSync(join(open, "crawlbox.sqlite")).mode & 0o777).toBe(0o600);
  }, 60_000);
});
