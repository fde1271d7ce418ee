/**
 * What is deleted leaves the database file: the database zeroes deleted content (secure_delete), and `truncateWal`
 * empties the write-ahead log, whose old frames held it too. Without them a delivered webhook's body or an expired
 * zeroDataRetention job's pages stayed readable in the files after SQL no longer showed them.
 */
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DATABASE_FILE, openDatabase, truncateWal } from "../../src/storage/database.ts";

test("deleted and overwritten rows are gone from the database file and its log", () => {
  const dir = mkdtempSync(join(tmpdir(), "crawlbox-secure-delete-"));
  try {
    const db = openDatabase(dir);
    const marker = "ZDR-MARKER-7f3a";
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)");
    // A small row (inside a table page) and a large one (in overflow pages), then one overwritten in place.
    db.query("INSERT INTO t (body) VALUES (?), (?), (?)").run(`small ${marker}-a`, `${marker}-b `.repeat(2000), `kept ${marker}-c`);
    truncateWal(db);
    db.query("DELETE FROM t WHERE id IN (1, 2)").run();
    db.query("UPDATE t SET body = 'nothing left' WHERE id = 3").run();
    truncateWal(db);
    const bytes = (name: string) => {
      try {
        return readFileSync(join(dir, name)).toString("latin1");
      } catch {
        return "";
      }
    };
    for (const name of [DATABASE_FILE, `${DATABASE_FILE}-wal`]) expect(bytes(name).includes(marker)).toBe(false);
    expect(db.query("SELECT body FROM t").all()).toEqual([{ body: "nothing left" }]);
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("emptying the log does not wait for another process's reader", async () => {
  const dir = mkdtempSync(join(tmpdir(), "crawlbox-secure-delete-"));
  try {
    const db = openDatabase(dir);
    db.exec("CREATE TABLE t (v TEXT)");
    db.query("INSERT INTO t VALUES ('x')").run();
    // A reader in another process (here: another connection holding a read transaction open).
    const reader = new Database(join(dir, DATABASE_FILE));
    reader.exec("BEGIN");
    reader.query("SELECT * FROM t").all();
    db.query("INSERT INTO t VALUES ('y')").run();
    const t0 = performance.now();
    truncateWal(db);
    expect(performance.now() - t0).toBeLessThan(1000);
    // The busy timeout is back for everything else.
    expect(db.query("PRAGMA busy_timeout").get()).toEqual({ timeout: 5000 });
    reader.exec("COMMIT");
    reader.close();
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
