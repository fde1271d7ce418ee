/**
 * @module storage/database
 * Opens the one SQLite file of a crawlbox process and brings its schema up to date. WAL lets readers (status
 * polls, cache lookups) run beside the writer; `busy_timeout` makes a second writer wait instead of failing;
 * writes that span several statements use `BEGIN IMMEDIATE` (see `immediate`) so that they take the write lock
 * up front and cannot deadlock on an upgrade (reliability.md B3).
 */
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { MIGRATIONS } from "./migrations.ts";

/** File name of the database inside the data directory. */
export const DATABASE_FILE = "crawlbox.sqlite";

/**
 * Opens (creating when needed) the database in `dataDir` and runs pending migrations. A folder it creates is the
 * crawlbox user's alone (0700): it holds keys' hashes, results, cookies; one that exists keeps its mode.
 */
export function openDatabase(dataDir: string): Database {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(dataDir, DATABASE_FILE), { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA foreign_keys = ON");
  // Deleted and overwritten content is zeroed, not left in free pages: expired results, delivered webhook bodies
  // and a zeroDataRetention job's pages must not stay readable in the file after they are gone.
  db.exec("PRAGMA secure_delete = ON");
  migrate(db);
  return db;
}

/**
 * Copies the write-ahead log into the database and empties the log file. The log keeps old versions of pages until
 * it wraps around, deleted content among them; run after the hourly expiry, so that what expired leaves the disk.
 * It does not wait: with another process reading (a `crawlbox keys` command, a `sqlite3` shell) the busy timeout
 * would hold the event loop up to 5 s; the log is then emptied at the next run.
 */
export function truncateWal(db: Database): void {
  db.exec("PRAGMA busy_timeout = 0");
  try {
    db.query("PRAGMA wal_checkpoint(TRUNCATE)").get();
  } finally {
    db.exec("PRAGMA busy_timeout = 5000");
  }
}

/** Applies every migration newer than `PRAGMA user_version`, each in its own transaction. */
export function migrate(db: Database): void {
  const current = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  for (let v = current; v < MIGRATIONS.length; v++) {
    immediate(db, () => {
      db.exec(MIGRATIONS[v]!);
      db.exec(`PRAGMA user_version = ${v + 1}`);
    });
  }
}

/**
 * Runs `fn` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws. SQLite has already rolled back after
 * some errors (`SQLITE_FULL`, `SQLITE_IOERR`): a second `ROLLBACK` would throw "no transaction is active" and hide
 * the real error, so it is issued only while a transaction is still open.
 */
export function immediate<T>(db: Database, fn: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = fn();
    db.exec("COMMIT");
    return result;
  } catch (err) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw err;
  }
}
