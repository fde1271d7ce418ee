/**
 * Killing Chromium leaves nothing behind: a SIGKILLed browser cannot remove its ProcessSingleton directory
 * (`<tmp>/org.chromium.Chromium.XXXXXX`) itself, so `killProcess` does, also for a browser the pool kills while it
 * closes; and the cleanup never reaches a directory that is not exactly such a one in the OS temp dir.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { findChromium, killProcess, launchChromium, type LaunchOptions } from "../../src/engines/browser/chromium.ts";
import { BrowserPool } from "../../src/engines/browser/pool.ts";
import { chromiumSingletonDir } from "../../src/engines/browser/singleton-dir.ts";
import { silentLogger } from "../../src/log.ts";

const CHROMIUM = findChromium("")!;
let gate: EgressGate;
const made: string[] = [];

beforeAll(async () => {
  gate = await createEgressGate({ allowPrivateNetwork: true });
});
afterAll(async () => {
  await gate.close();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The directory a running Chromium's `SingletonSocket` link points to, read directly (not through the code under test). */
function linkedSingletonDir(spawnargs: readonly string[]): string {
  const profile = spawnargs.find((arg) => arg.startsWith("--user-data-dir="))!.slice("--user-data-dir=".length);
  return dirname(readlinkSync(join(profile, "SingletonSocket")));
}

/** A fake profile whose `SingletonSocket` link points to `target`, as spawn arguments. */
function profileLinkingTo(target: string): string[] {
  const profile = mkdtempSync(join(tmpdir(), "crawlbox-kill-test-profile-"));
  made.push(profile);
  symlinkSync(target, join(profile, "SingletonSocket"));
  return ["--no-first-run", `--user-data-dir=${profile}`];
}

describe("killProcess", () => {
  test("a killed Chromium leaves no ProcessSingleton directory behind", async () => {
    const browser = await launchChromium({ executablePath: CHROMIUM, proxyUrl: gate.proxyUrl });
    const proc = browser.process()!;
    let singletonDir = "";
    try {
      singletonDir = linkedSingletonDir(proc.spawnargs);
      expect(singletonDir).toMatch(/\/org\.chromium\.Chromium\.[A-Za-z0-9]+$/);
      expect(existsSync(singletonDir)).toBe(true);
    } finally {
      await killProcess(proc);
    }
    expect(alive(proc.pid!)).toBe(false);
    expect(existsSync(singletonDir)).toBe(false);
  });

  test("a Chromium that died on its own (a crash) leaves none either once killProcess sees it", async () => {
    const browser = await launchChromium({ executablePath: CHROMIUM, proxyUrl: gate.proxyUrl });
    const proc = browser.process()!;
    const singletonDir = linkedSingletonDir(proc.spawnargs);
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    process.kill(-proc.pid!, "SIGKILL");
    await exited;
    expect(existsSync(singletonDir)).toBe(true);
    await killProcess(proc);
    expect(existsSync(singletonDir)).toBe(false);
  });

  test("browsers the pool closes leave none: it kills on \"disconnected\", which a clean close fires too", async () => {
    const singletonDirs: string[] = [];
    const launch = async (options: LaunchOptions) => {
      const browser = await launchChromium(options);
      singletonDirs.push(linkedSingletonDir(browser.process()!.spawnargs));
      return browser;
    };
    const pool = new BrowserPool({ executablePath: CHROMIUM, proxyUrl: gate.proxyUrl, concurrency: 1, retireAfterPages: 1, log: silentLogger, launch });
    try {
      (await pool.acquire({ deadline: performance.now() + 20_000 })).release(); // retires the first browser
      (await pool.acquire({ deadline: performance.now() + 20_000 })).release();
    } finally {
      await pool.close();
    }
    await Bun.sleep(200); // the retired browser is closed in the background
    expect(singletonDirs).toHaveLength(2);
    expect(singletonDirs.filter((dir) => existsSync(dir))).toEqual([]);
  });
});

describe("chromiumSingletonDir", () => {
  test("only a directory named org.chromium.Chromium.* directly in the temp dir, reached through the link", () => {
    const real = mkdtempSync(join(tmpdir(), "org.chromium.Chromium."));
    made.push(real);
    expect(chromiumSingletonDir(profileLinkingTo(join(real, "SingletonSocket")))).toBe(real);

    // No flag, or no link in the profile: nothing.
    expect(chromiumSingletonDir(["--headless=new"])).toBeUndefined();
    const empty = mkdtempSync(join(tmpdir(), "crawlbox-kill-test-profile-"));
    made.push(empty);
    expect(chromiumSingletonDir([`--user-data-dir=${empty}`])).toBeUndefined();

    // Another name, another place, another file name, a relative link, a parent reached through "..": nothing.
    const other = mkdtempSync(join(tmpdir(), "crawlbox-kill-test-other-"));
    made.push(other);
    const nested = join(other, "org.chromium.Chromium.abc123");
    mkdirSync(nested);
    expect(chromiumSingletonDir(profileLinkingTo(join(other, "SingletonSocket")))).toBeUndefined();
    expect(chromiumSingletonDir(profileLinkingTo(join(nested, "SingletonSocket")))).toBeUndefined();
    expect(chromiumSingletonDir(profileLinkingTo(join(real, "SingletonCookie")))).toBeUndefined();
    expect(chromiumSingletonDir(profileLinkingTo("org.chromium.Chromium.abc123/SingletonSocket"))).toBeUndefined();
    expect(chromiumSingletonDir(profileLinkingTo(`${real}/../${basename(other)}/${basename(nested)}/SingletonSocket`))).toBeUndefined();

    // A symlink named like the directory (pointing elsewhere) is not it.
    const disguised = join(tmpdir(), `org.chromium.Chromium.${Date.now().toString(36)}`);
    symlinkSync(other, disguised);
    made.push(disguised);
    expect(chromiumSingletonDir(profileLinkingTo(join(disguised, "SingletonSocket")))).toBeUndefined();
    expect(existsSync(nested)).toBe(true);
  });
});
