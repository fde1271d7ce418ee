/**
 * @module engines/browser/singleton-dir
 * The directories a Chromium leaves behind when it is killed: its ProcessSingleton directory and its profile.
 *
 * Chromium's ProcessSingleton directory, `<tmp>/org.chromium.Chromium.XXXXXX`: it holds the socket that the
 * profile's `SingletonSocket` symlink points to, and Chromium removes it only on a clean exit. A SIGKILLed Chromium
 * leaves it behind (one directory per killed browser on a server that replaces hung ones), and puppeteer removes
 * only the profile, so crawlbox removes it once the process has exited (see `killProcess` in chromium.ts).
 *
 * The directory is found at launch and remembered: during a clean `browser.close()` Chromium deletes the symlink
 * well before the directory, and the pool SIGKILLs a browser on `"disconnected"`, which a clean close fires too;
 * read then, the symlink is already gone and the directory would stay.
 *
 * Profiles: puppeteer's own temporary profile (`<tmp>/puppeteer_dev_chrome_profile-XXXXXX`) is removed by puppeteer,
 * in the server's process, when its Chromium exits; a server killed with SIGKILL leaves it for ever, and nothing says
 * whose it was. So each Chromium gets a profile of crawlbox's own ({@link newProfileDir}) inside a folder named for
 * the host and the server's pid (`<tmp>/crawlbox-chromium-<host>-<pid>-XXXXXX`), removed when that Chromium exits,
 * and each launch first removes the folders of servers on this host that no longer run
 * ({@link sweepStaleProfileRoots}).
 */
import type { ChildProcess } from "node:child_process";
import { lstatSync, mkdtempSync, readdirSync, readlinkSync, realpathSync } from "node:fs";
import { rm, rmdir } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join } from "node:path";

/** The flag through which puppeteer gives Chromium its (temporary) profile directory. */
const USER_DATA_DIR_FLAG = "--user-data-dir=";

/** The name Chromium's `base::CreateNewTempDirectory` gives the ProcessSingleton directory in the temp dir. */
const SINGLETON_DIR_NAME = /^org\.chromium\.Chromium\.[A-Za-z0-9]+$/;

/** The directories found at launch, per Chromium process. */
const launchedDirs = new WeakMap<ChildProcess, string>();

/**
 * The ProcessSingleton directory of a running Chromium started with `spawnargs`, read through the profile's
 * `SingletonSocket` symlink now. Undefined unless the link leads to exactly such a directory directly in the OS
 * temp dir, so that a cleanup never removes anything else. Never throws.
 */
export function chromiumSingletonDir(spawnargs: readonly string[]): string | undefined {
  try {
    const flag = spawnargs.find((arg) => arg.startsWith(USER_DATA_DIR_FLAG));
    if (!flag) return undefined;
    const socket = readlinkSync(join(flag.slice(USER_DATA_DIR_FLAG.length), "SingletonSocket"));
    const dir = dirname(socket);
    if (!isAbsolute(socket) || basename(socket) !== "SingletonSocket" || !SINGLETON_DIR_NAME.test(basename(dir))) {
      return undefined;
    }
    if (realpathSync(dirname(dir)) !== realpathSync(tmpdir())) return undefined;
    return lstatSync(dir).isDirectory() ? dir : undefined; // lstat: a symlink named like it is not it
  } catch {
    return undefined;
  }
}

/** Finds and remembers the directory of a Chromium that has just launched (its symlink exists by then). */
export function rememberSingletonDir(proc: ChildProcess): void {
  const dir = chromiumSingletonDir(proc.spawnargs);
  if (dir) launchedDirs.set(proc, dir);
}

/** The directory of `proc`: the one found at launch, else (a browser launched elsewhere) the one linked now. */
export function singletonDirOf(proc: ChildProcess): string | undefined {
  return launchedDirs.get(proc) ?? chromiumSingletonDir(proc.spawnargs);
}

/**
 * Removes the directory of a Chromium that has exited (the names are unique, so no other process uses it; a clean
 * exit has removed it already). Never throws: a leftover is not worth an error.
 */
export async function removeSingletonDir(dir: string | undefined): Promise<void> {
  if (dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
}

/** What the folders of crawlbox's Chromium profiles start with, in the OS temp dir. */
export const PROFILE_ROOT_PREFIX = "crawlbox-chromium-";

/** This host's name as it is put in a folder name. */
const hostTag = (host = hostname()) => host.replace(/[^A-Za-z0-9.]/g, "_") || "host";

/** `<prefix><host>-<pid>-<random>`: the host and the pid of the server that made it. */
const PROFILE_ROOT_NAME = /^crawlbox-chromium-(.+)-(\d+)-[A-Za-z0-9]{6}$/;

/** This process's folder of profiles, made on first use (mkdtemp: private, and not a name anyone could take first). */
let profileRoot: string | undefined;

/**
 * A new, empty profile directory for one Chromium, in this server's folder (made again if something removed it). The
 * caller removes it once that Chromium has exited ({@link removeProfileDir}).
 */
export function newProfileDir(): string {
  for (let attempt = 0; ; attempt++) {
    profileRoot ??= mkdtempSync(join(tmpdir(), `${PROFILE_ROOT_PREFIX}${hostTag()}-${process.pid}-`));
    try {
      return mkdtempSync(join(profileRoot, "profile-"));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" || attempt > 0) throw err;
      profileRoot = undefined;
    }
  }
}

/**
 * Removes a profile made by {@link newProfileDir} (its Chromium has exited), and the server's folder with its last
 * one, so that nothing is left once every Chromium has closed (the next launch makes a new folder). Never throws.
 */
export async function removeProfileDir(dir: string | undefined): Promise<void> {
  if (!dir) return;
  await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  const root = dirname(dir);
  if (root !== profileRoot) return;
  // Fails while another Chromium's profile is in it. Once removed, the name is never used again: someone could make
  // a folder of that name, which must not receive the next profile.
  await rmdir(root).then(
    () => {
      if (profileRoot === root) profileRoot = undefined;
    },
    () => undefined,
  );
}

/** Whether process `pid` runs (on this host, as far as this process can see). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM"; // someone else's: it runs
  }
}

/**
 * Removes the profile folders that servers on this host left when they were killed: only folders of this exact
 * name, made by this user, of this host (a temp dir shared between hosts or containers keeps the others' folders),
 * whose pid no longer runs. Their Chromium exited with them (it reads its commands through a pipe from the server).
 * Never throws; returns the folders removed.
 */
export async function sweepStaleProfileRoots(dir = tmpdir(), host = hostname()): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  const uid = process.getuid?.();
  for (const name of names) {
    const m = PROFILE_ROOT_NAME.exec(name);
    if (!m || m[1] !== hostTag(host)) continue;
    const pid = Number(m[2]);
    if (pid === process.pid || running(pid)) continue;
    const path = join(dir, name);
    try {
      const st = lstatSync(path); // lstat: a symlink named like it is not it
      if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
    } catch {
      continue;
    }
    await rm(path, { recursive: true, force: true }).then(() => removed.push(path), () => undefined);
  }
  return removed;
}
