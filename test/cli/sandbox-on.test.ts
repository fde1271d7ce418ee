/**
 * `CRAWLBOX_CHROMIUM_SANDBOX=on` (cli/sandbox-check.ts, engines/browser/chromium.ts): when the sandbox cannot be had,
 * `serve` and `scrape` refuse to start (exit 78, saying why) instead of answering every browser scrape with a 503
 * "Target closed"; and a Chromium that still fails to start with it names the sandbox. Real processes, real Chromium.
 */
import { afterAll, expect, test } from "bun:test";
import { chmodSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findChromium, launchChromium } from "../../src/engines/browser/chromium.ts";

const ROOT = join(import.meta.dir, "..", "..");
const base = mkdtempSync(join(tmpdir(), "crawlbox-sandbox-on-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

const chromium = findChromium(process.env.CHROME_PATH ?? "");
const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;

function spawn(args: string[], env: Record<string, string>, uid?: number) {
  const prefix = uid === undefined ? [] : ["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups"];
  return Bun.spawn([...prefix, process.execPath, "src/main.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, CRAWLBOX_API_KEYS: "", CRAWLBOX_LOG_LEVEL: "info", HOST: "127.0.0.1", PORT: "0", CRAWLBOX_CHROMIUM_SANDBOX: "on", CRAWLBOX_AUTH: "off", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
}

test("as root, serve and scrape with CRAWLBOX_CHROMIUM_SANDBOX=on exit 78 naming the reason; nothing is made", async () => {
  if (!isRoot || !chromium) {
    console.warn(`skipped: needs root and Chromium (root: ${isRoot}, chromium: ${chromium ?? "none"})`);
    return;
  }
  for (const args of [["serve"], ["scrape", "http://127.0.0.1:9/"]]) {
    const dataDir = join(base, `root-${args[0]}`);
    const proc = spawn(args, { CRAWLBOX_DATA_DIR: dataDir });
    const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
    const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    clearTimeout(timer);
    expect(code).toBe(78);
    expect(stderr).toContain("CRAWLBOX_CHROMIUM_SANDBOX=on cannot be honoured: crawlbox runs as root (uid 0)");
    expect(stderr).not.toContain("listening on");
    expect(await Bun.file(join(dataDir, "crawlbox.sqlite")).exists()).toBe(false);
  }
  // The setting is about Chromium: with the browser engine off, or for `keys`, it stands in no one's way.
  const keys = spawn(["keys", "list"], { CRAWLBOX_DATA_DIR: join(base, "root-keys") });
  expect(await keys.exited).toBe(0);
}, 60_000);

test("a Chromium that cannot start with its sandbox under `on` says so (the 503's message), not only 'Target closed'", async () => {
  if (!isRoot || !chromium) {
    console.warn("skipped: needs root (where Chromium refuses its sandbox) and Chromium");
    return;
  }
  const err = await launchChromium({ executablePath: chromium, proxyUrl: "http://127.0.0.1:9", sandbox: "on", timeoutMs: 15_000 }).then(
    async (b) => {
      await b.close();
      return undefined;
    },
    (e: Error) => e,
  );
  expect(err?.message).toContain("Chromium cannot start with its own sandbox, which CRAWLBOX_CHROMIUM_SANDBOX=on requires");
  expect(err?.message).toMatch(/root|sandbox/i);
}, 60_000);

test("as another user whose Chromium has its sandbox, serve with `on` starts (the probe passes)", async () => {
  if (!isRoot || !chromium || Bun.spawnSync(["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "true"]).exitCode !== 0) {
    console.warn("skipped: needs root, setpriv and Chromium to run crawlbox as nobody");
    return;
  }
  chmodSync(base, 0o755);
  const dataDir = join(base, "nobody");
  const home = join(base, "nobody-home");
  // Its Chromium's profile folder goes here, removed with `base`: killed, the server cannot remove it itself, and as
  // nobody's it stayed in the system's temporary folder after every run.
  const tmp = join(base, "nobody-tmp");
  for (const d of [dataDir, home, tmp]) {
    Bun.spawnSync(["mkdir", "-p", d]);
    chownSync(d, NOBODY, NOBODY);
  }
  const proc = spawn(["serve"], { CRAWLBOX_DATA_DIR: dataDir, HOME: home, TMPDIR: tmp }, NOBODY);
  const reader = proc.stderr.getReader();
  const decoder = new TextDecoder();
  const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
  let log = "";
  while (!log.includes("listening on")) {
    const { value, done } = await reader.read();
    if (done) break;
    log += decoder.decode(value);
  }
  clearTimeout(timer);
  proc.kill("SIGKILL");
  await proc.exited;
  if (log.includes("Chromium cannot start with its own sandbox here")) {
    console.warn("skipped: this system gives nobody's Chromium no sandbox (the refusal is the right answer here)");
    return;
  }
  expect(log).toContain("listening on");
  expect(log).toContain(`"sandbox":"chromium's own"`);
}, 60_000);
