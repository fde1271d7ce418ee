/**
 * What is deleted leaves the database file: the database zeroes deleted content (secure_delete), and `truncateWal`
 * empties the write-ahead log, whose old frames held it too. Without them a delivered webhook's body or an expired
 * zeroDataRetention job's pages stayed readable in the files after SQL no longer showed them.
 */
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
