/**
 * @module engines/browser/singleton-dir
 * Chromium's ProcessSingleton directory, `<tmp>/org.chromium.Chromium.XXXXXX`: it holds the socket that the
 * profile's `SingletonSocket` symlink points to, and Chromium removes it only on a clean exit. A SIGKILLed Chromium
 * leaves it behind (one directory per killed browser on a server that replaces hung ones), and puppeteer removes
 * only the profile, so crawlbox removes it once the process has exited (see `killProcess` in chromium.ts).
 *
 * The directory is found at launch and remembered: during a clean `browser.close()` Chromium deletes the symlink
 * well before the directory, and the pool SIGKILLs a browser on `"disconnected"`, which a clean close fires too;
 * read then, the symlink is already gone and the directory would stay.
 */
import type { ChildProcess } from "node:child_process";
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
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
