/**
 * @module cli/data-dir-lock
 * One server per data directory. A second `crawlbox serve` on the same folder (a mistake: a second terminal, a
 * service manager starting another copy) would take over the first server's running pages as if their process had
 * died (jobs/worker-pool.ts `recoverAll`): every page fetched and charged twice, and each counted as a stall. The
 * lock is a file holding the server's PID, taken before anything starts; a file left by a process that no longer
 * runs is taken over. `crawlbox scrape` and `crawlbox keys` do not take it: they may run beside a server.
 */
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The lock file, in the data directory. */
export const LOCK_FILE = "serve.pid";

/** Another live process serves the directory. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `another crawlbox (pid ${pid}) is serving ${dataDir}: stop it first, or give this one its own CRAWLBOX_DATA_DIR. ` +
        `If no such process is running, delete ${join(dataDir, LOCK_FILE)}.`,
    );
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as { code?: string }).code === "EPERM";
  }
}

/** Takes `dataDir` for this process (creating the folder); returns the release. Throws {@link DataDirInUseError}. */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const mine = String(process.pid);
  try {
    writeFileSync(path, mine, { flag: "wx" });
  } catch (err) {
    if ((err as { code?: string }).code !== "EEXIST") throw err;
    const holder = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
    // A PID equal to ours is a file left by an earlier process that had it (a container restarts as PID 1).
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isRunning(holder)) throw new DataDirInUseError(dataDir, holder);
    writeFileSync(path, mine);
  }
  return () => {
    try {
      if (readFileSync(path, "utf8").trim() === mine) unlinkSync(path);
    } catch {
      // Already gone.
    }
  };
}
