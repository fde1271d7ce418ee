/**
 * The transaction helper under a full disk: SQLite rolls back by itself after SQLITE_FULL, and the error the
 * caller sees must be that one (it was "cannot rollback - no transaction is active").
 */
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { immediate } from "../../src/storage/database.ts";

test("a full database: the caller gets SQLITE_FULL, the transaction is gone, and the next one works", () => {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE t (v BLOB)");
  const pages = (db.query("PRAGMA page_count").get() as { page_count: number }).page_count;
  db.exec(`PRAGMA max_page_count = ${pages + 2}`); // a full disk, in miniature
  const err = (() => {
    try {
      immediate(db, () => db.query("INSERT INTO t VALUES (?)").run(new Uint8Array(1 << 20)));
    } catch (e) {
      return e as Error & { code?: string };
    }
  })();
  expect(err?.message).toMatch(/full/i);
  expect(err?.message).not.toContain("cannot rollback");
  expect(db.inTransaction).toBe(false);
  // A write that fits still works, and a throwing callback is rolled back as before.
  immediate(db, () => db.query("INSERT INTO t VALUES (?)").run(new Uint8Array(10)));
  expect(() => immediate(db, () => { db.query("INSERT INTO t VALUES (?)").run(new Uint8Array(10)); throw new Error("no"); })).toThrow("no");
  expect((db.query("SELECT COUNT(*) AS n FROM t").get() as { n: number }).n).toBe(1);
});
