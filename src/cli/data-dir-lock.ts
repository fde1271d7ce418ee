/**
 * @module cli/data-dir-lock
 * One server per data directory. A second `crawlbox serve` on the same folder (a mistake: a second terminal, a
 * service manager starting another copy) would take over the first server's running pages as if their process had
 * died (jobs/worker-pool.ts `recoverAll`): every page fetched and charged twice, and each counted as a stall.
 *
 * The lock is an exclusive SQLite transaction on `serve.lock`, held for the server's life. The operating system's
 * file lock behind it is atomic, and it is released when the process ends however it ends (kill -9 included), so
 * there is no stale lock to judge; `serve.pid` beside it only names the holder in the refusal. `crawlbox scrape` and
 * `crawlbox keys` do not take the lock: they may run beside a server.
 */
import { Database } from "bun:sqlite";
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The lock file, in the data directory. */
export const LOCK_FILE = "serve.lock";
/** The holder's PID, for the message a second server prints. */
export const PID_FILE = "serve.pid";

/** Another process serves the directory. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number | undefined,
  ) {
    super(`another crawlbox${pid ? ` (pid ${pid})` : ""} is serving ${dataDir}: stop it first, or give this one its own CRAWLBOX_DATA_DIR.`);
  }
}

function holderPid(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Takes `dataDir` for this process (creating the folder); returns the release. Throws {@link DataDirInUseError}. */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 }); // private, as openDatabase makes it
  const lock = new Database(join(dataDir, LOCK_FILE), { create: true });
  const pidPath = join(dataDir, PID_FILE);
  try {
    lock.exec("PRAGMA busy_timeout = 0");
    lock.exec("BEGIN EXCLUSIVE");
  } catch (err) {
    lock.close();
    if (/locked|busy/i.test(String(err))) throw new DataDirInUseError(dataDir, holderPid(pidPath));
    throw err;
  }
  const mine = String(process.pid);
  writeFileSync(pidPath, mine);
  return () => {
    try {
      if (readFileSync(pidPath, "utf8").trim() === mine) unlinkSync(pidPath);
    } catch {
      // Already gone.
    }
    try {
      lock.exec("ROLLBACK");
    } catch {
      // Nothing open.
    }
    lock.close();
  };
}
