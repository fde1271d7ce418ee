/**
 * Chromium profiles are crawlbox's own (src/engines/browser/singleton-dir.ts): each Chromium gets one inside a folder
 * named for the host and the server's pid, removed when it closes or is killed; a server killed with SIGKILL leaves
 * its folder, and the next launch (of any server on the host) removes it, never a folder of a server still running, of another
 * host, or that is not a directory.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import { createEgressGate, type EgressGate } from "../../src/egress/index.ts";
import { closeChromium, findChromium, killProcess, launchChromium } from "../../src/engines/browser/chromium.ts";
import { PROFILE_ROOT_PREFIX, sweepStaleProfileRoots } from "../../src/engines/browser/singleton-dir.ts";

const CHROMIUM = findChromium("")!;
const HOST = hostname().replace(/[^A-Za-z0-9.]/g, "_") || "host";
let gate: EgressGate;
const made: string[] = [];
const started: number[] = [];

beforeAll(async () => {
  gate = await createEgressGate({ allowPrivateNetwork: true });
});
afterAll(async () => {
  for (const pid of started) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  await gate.close();
  for (const dir of made) removeOwn(dir);
});

/**
 * Removes what this file made, and nothing else: only a path inside the OS temp dir whose own name, or whose folder's
 * name directly in the temp dir, is one of this test's (a path read from a Chromium's arguments could be anything).
 */
function removeOwn(path: string): void {
  const tmp = tmpdir();
  const own = (name: string) => name.startsWith(PROFILE_ROOT_PREFIX) || name.startsWith("crawlbox-sweep-test-");
  const top = relative(tmp, path).split(sep)[0] ?? "";
  if (path === tmp || top === "" || top === ".." || isAbsolute(relative(tmp, path)) || !own(top)) return;
  rmSync(path, { recursive: true, force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const profileOf = (spawnargs: readonly string[]) => spawnargs.find((a) => a.startsWith("--user-data-dir="))!.slice("--user-data-dir=".length);

/** A pid that ran and no longer does (a process started and waited for). */
async function deadPid(): Promise<number> {
  const p = Bun.spawn(["true"]);
  await p.exited;
  return p.pid;
}

/** A profile folder as a server would have left it, for `pid` on `host`. */
function leftFolder(pid: number, host = HOST): string {
  const dir = join(tmpdir(), `${PROFILE_ROOT_PREFIX}${host}-${pid}-Ab12Cd`);
  mkdirSync(join(dir, "profile-xyz"), { recursive: true });
  writeFileSync(join(dir, "profile-xyz", "Preferences"), "{}");
  made.push(dir);
  return dir;
}

describe("Chromium profiles", () => {
  test("a server killed with SIGKILL leaves its Chromium profile; the next launch removes it", async () => {
    const child = Bun.spawn([process.execPath, join(import.meta.dir, "fixtures", "launch-and-hang.ts")], { stdout: "pipe", stderr: "inherit" });
    started.push(child.pid);
    const reader = child.stdout.getReader();
    let line = "";
    while (!line.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      line += new TextDecoder().decode(value);
    }
    const { pid: chromiumPid, profile } = JSON.parse(line) as { pid: number; profile: string };
    started.push(chromiumPid);
    made.push(dirname(profile), profile);
    expect(basename(dirname(profile))).toStartWith(PROFILE_ROOT_PREFIX);
    expect(existsSync(profile)).toBe(true);
    child.kill("SIGKILL");
    await child.exited;
    // Chromium reads its commands through a pipe from the server: it ends with it, and its helpers (renderers, the
    // zygote: its process group) after it; a helper still writing in the profile would make the removal fail this time.
    for (let i = 0; i < 200 && (alive(chromiumPid) || alive(-chromiumPid)); i++) await Bun.sleep(50);
    expect(alive(chromiumPid)).toBe(false);
    expect(existsSync(profile)).toBe(true);

    const browser = await launchChromium({ executablePath: CHROMIUM, proxyUrl: gate.proxyUrl });
    try {
      expect(existsSync(profile)).toBe(false);
      expect(existsSync(dirname(profile))).toBe(false);
    } finally {
      await closeChromium(browser);
    }
  }, 60_000);

  test("each Chromium's profile is in this server's own folder, and goes when it closes or is killed", async () => {
    for (const end of ["close", "kill"] as const) {
      const browser = await launchChromium({ executablePath: CHROMIUM, proxyUrl: gate.proxyUrl });
      const proc = browser.process()!;
      const profile = profileOf(proc.spawnargs);
      made.push(profile);
      expect(basename(dirname(profile))).toMatch(new RegExp(`^${PROFILE_ROOT_PREFIX}${HOST.replace(/\./g, "\\.")}-${process.pid}-[A-Za-z0-9]{6}$`));
      expect(dirname(dirname(profile))).toBe(tmpdir());
      expect(existsSync(join(profile, "SingletonLock")) || existsSync(join(profile, "Default"))).toBe(true);
      if (end === "close") await closeChromium(browser);
      else await killProcess(proc);
      expect([end, existsSync(profile)]).toEqual([end, false]);
    }
  }, 60_000);

  test("the sweep removes only folders of this host's servers that no longer run, made by this user, that are directories", async () => {
    const dead = leftFolder(await deadPid());
    const sleeper = Bun.spawn(["sleep", "60"]);
    started.push(sleeper.pid);
    const live = leftFolder(sleeper.pid);
    const otherHost = leftFolder(await deadPid(), `${HOST}x`);
    // A link named as a folder would be, to a directory that must stay.
    const target = mkdtempSync(join(tmpdir(), "crawlbox-sweep-test-target-"));
    made.push(target);
    mkdirSync(join(target, "keep"));
    const link = join(tmpdir(), `${PROFILE_ROOT_PREFIX}${HOST}-${await deadPid()}-Zz99Yy`);
    rmSync(link, { force: true });
    symlinkSync(target, link);
    made.push(link);

    const removed = await sweepStaleProfileRoots();
    expect(removed).toContain(dead);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(otherHost)).toBe(true);
    expect(existsSync(join(target, "keep"))).toBe(true);
    expect(removed).not.toContain(link);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    sleeper.kill("SIGKILL");
    await sleeper.exited;
  }, 60_000);
});
