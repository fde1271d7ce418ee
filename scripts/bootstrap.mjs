#!/usr/bin/env node
// Bootstrap for `npm start` and `npm test` on a machine that has only Node.js and npm.
// It installs what is missing — Bun (pinned), the project's dependencies, and Debian's Chromium when running as
// root — then hands over to Bun. Each step is skipped when already done, so later runs start at once.
// Plain Node, no dependencies: it must run before anything is installed.
import { spawnSync, spawn } from "node:child_process";
import { existsSync, statSync, writeFileSync, mkdirSync, readdirSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const BUN_VERSION = "1.4.5";
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const LOCAL_PREFIX = join(ROOT, ".tools");
// The server's own list (src/engines/browser/chromium.ts CHROMIUM_LOCATIONS): a browser it would use is not installed again.
const CHROMIUM_PATHS = ["/usr/bin/chromium", "/usr/lib/chromium/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome-stable", "/usr/bin/google-chrome"];

const say = (msg) => process.stderr.write(`[bootstrap] ${msg}\n`);

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: "inherit", cwd: ROOT, ...opts });
  return r.status === 0;
}

function bunVersionOf(path) {
  const r = spawnSync(path, ["--version"], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function findBun() {
  const candidates = [
    join(LOCAL_PREFIX, "bin", "bun"),
    join(ROOT, "node_modules", ".bin", "bun"),
    "bun",
    join(process.env.HOME ?? "/root", ".bun", "bin", "bun"),
  ];
  for (const c of candidates) {
    const v = bunVersionOf(c);
    if (v === BUN_VERSION) return c;
  }
  return undefined;
}

function ensureBun() {
  let bun = findBun();
  if (bun) return bun;
  say(`installing bun ${BUN_VERSION} from the npm registry into ${LOCAL_PREFIX}`);
  mkdirSync(LOCAL_PREFIX, { recursive: true });
  // --foreground-scripts + allow-scripts: bun's postinstall puts the native binary in place.
  const ok = run("npm", ["install", "-g", "--prefix", LOCAL_PREFIX, "--no-audit", "--no-fund", "--allow-scripts=bun", `bun@${BUN_VERSION}`]);
  if (!ok) run("npm", ["install", "-g", "--prefix", LOCAL_PREFIX, "--no-audit", "--no-fund", `bun@${BUN_VERSION}`]);
  bun = findBun();
  if (!bun) {
    say(`could not install bun ${BUN_VERSION}; install it with: npm install -g bun@${BUN_VERSION}`);
    process.exit(1);
  }
  return bun;
}

function ensureDependencies(bun) {
  const marker = join(ROOT, "node_modules", ".crawlbox-installed");
  const lock = join(ROOT, "bun.lock");
  const pkg = join(ROOT, "package.json");
  // A changed patch of a dependency (scripts/patches/, named in package.json) changes neither file: count its time too.
  const patches = join(ROOT, "scripts", "patches");
  const patchTimes = existsSync(patches) ? readdirSync(patches).map((f) => statSync(join(patches, f)).mtimeMs) : [];
  const stale =
    !existsSync(marker) ||
    statSync(marker).mtimeMs < Math.max(statSync(pkg).mtimeMs, existsSync(lock) ? statSync(lock).mtimeMs : 0, ...patchTimes);
  if (!stale) return;
  say("installing dependencies (bun install --frozen-lockfile)");
  if (!run(bun, ["install", "--frozen-lockfile"])) {
    say("bun install failed");
    process.exit(1);
  }
  writeFileSync(marker, new Date().toISOString());
}

function ensureChromium() {
  if (process.env.CHROME_PATH && existsSync(process.env.CHROME_PATH)) return;
  if (CHROMIUM_PATHS.some((p) => existsSync(p))) return;
  if (typeof process.getuid !== "function" || process.getuid() !== 0) {
    say("Chromium not found and not running as root: install Debian's chromium package for browser features");
    return;
  }
  say("installing Debian's chromium (apt-get), used by the browser engine");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  if (!run("apt-get", ["update", "-qq"], { env }) || !run("apt-get", ["install", "-y", "-qq", "chromium"], { env })) {
    say("could not install chromium; browser features will be unavailable");
  }
}

const mode = process.argv[2] ?? "start";
const bun = ensureBun();
ensureDependencies(bun);
ensureChromium();

const extra = process.argv.slice(3);
const args = mode === "test" ? ["test", "--timeout", "30000", ...extra] : ["src/main.ts", "serve", ...extra];
const child = spawn(bun, args, { stdio: "inherit", cwd: ROOT, env: { ...process.env, PATH: `${dirname(bun)}:${process.env.PATH}` } });
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
