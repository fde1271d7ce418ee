/**
 * @module cli/data-dir
 * The data directory as every command meets it: a folder crawlbox cannot use (a path that is a file, a read-only or
 * immutable folder, one owned by another user, a full disk, a `crawlbox.sqlite` that is no database) is said in one
 * sentence naming the folder and the reason, exit 1, instead of a stack trace from `mkdir` or SQLite. And a folder
 * other local users can read is worth a warning: it holds browser profiles (cookies), results and webhook secrets.
 */
import { statSync } from "node:fs";
import { relative, isAbsolute } from "node:path";

/** File-system error codes that mean "this path cannot be our data directory" (not a bug in crawlbox). */
const FS_CODES = new Set(["EACCES", "EPERM", "EROFS", "ENOSPC", "EDQUOT", "ENOTDIR", "EEXIST", "ENOENT", "ELOOP", "ENAMETOOLONG"]);

/** SQLite result codes (extended ones start with these) that mean the same of the database file or its folder. */
const SQLITE_CODES = /^SQLITE_(CANTOPEN|READONLY|PERM|IOERR|FULL|NOTADB|CORRUPT|AUTH)/;

/** The data directory cannot be used; main prints the message and exits 1. */
export class DataDirError extends Error {
  constructor(
    readonly dataDir: string,
    /** The system's or SQLite's code (`EACCES`, `SQLITE_READONLY_DIRECTORY`, …). */
    readonly code: string,
    reason: string,
    cause: unknown,
  ) {
    super(`cannot use ${dataDir} as the data directory (${code}): ${reason}`, { cause });
  }
}

/** What to do about `code`, for the user who reads the message. */
function hint(code: string): string {
  if (code === "ENOTDIR" || code === "EEXIST") return "the path, or a part of it, is a file: set CRAWLBOX_DATA_DIR to a folder";
  if (code === "ENOSPC" || code === "EDQUOT" || code.startsWith("SQLITE_FULL")) return "the disk (or this user's quota) is full: free space, or set CRAWLBOX_DATA_DIR to a folder on another disk";
  if (code.startsWith("SQLITE_NOTADB") || code.startsWith("SQLITE_CORRUPT")) return "crawlbox.sqlite in it is not a crawlbox database, or is damaged: set CRAWLBOX_DATA_DIR to another folder";
  const uid = process.getuid?.();
  return (
    `crawlbox${uid === undefined ? "" : ` (uid ${uid})`} must be able to create, read and write this folder and the files in it: ` +
    "fix their owner or permissions, or set CRAWLBOX_DATA_DIR to a writable folder"
  );
}

/** Whether `path` (of a file-system error) is `dataDir`, inside it, or one of the folders above it. */
function concerns(path: string, dataDir: string): boolean {
  const down = relative(dataDir, path);
  const up = relative(path, dataDir);
  return (!down.startsWith("..") && !isAbsolute(down)) || (!up.startsWith("..") && !isAbsolute(up));
}

/** `err` as a {@link DataDirError} when it says the data directory (or its database) cannot be used; else undefined. */
export function asDataDirError(err: unknown, dataDir: string): DataDirError | undefined {
  if (err instanceof DataDirError) return err;
  const { code, path } = (err ?? {}) as { code?: unknown; path?: unknown };
  if (typeof code !== "string") return undefined;
  const isFs = FS_CODES.has(code) && (typeof path !== "string" || concerns(path, dataDir));
  if (!isFs && !SQLITE_CODES.test(code)) return undefined;
  // fs messages repeat the code ("EACCES: permission denied, mkdir '…'"): keep the words only.
  const said = String((err as Error).message ?? err).replace(new RegExp(`^${code}:\\s*`), "");
  return new DataDirError(dataDir, code, `${said}; ${hint(code)}`, err);
}

/**
 * Runs `open` (whatever first creates or opens files in `dataDir`: the lock, the database, the services) and turns
 * its failure to use the folder into a {@link DataDirError}; other errors pass unchanged.
 */
export async function usingDataDir<T>(dataDir: string, open: () => T | Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (err) {
    throw asDataDirError(err, dataDir) ?? err;
  }
}

/**
 * A warning when every local user may read or enter `dataDir` (a folder the operator made, or one made before
 * crawlbox restricted its own): crawlbox does not change the permissions of a folder it did not create.
 */
export function dataDirExposure(dataDir: string): string | undefined {
  let mode: number;
  try {
    mode = statSync(dataDir).mode & 0o777;
  } catch {
    return undefined;
  }
  // Group access may be the operator's choice (a backup group); access for everyone is not worth keeping quiet about.
  if ((mode & 0o007) === 0) return undefined;
  return (
    `data directory ${dataDir} has mode ${mode.toString(8).padStart(3, "0")}: every local user may read it ` +
    `(browser profiles with cookies, results, webhook secrets). Restrict it with: chmod -R go-rwx ${dataDir}`
  );
}
