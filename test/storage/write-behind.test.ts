/**
 * storage/write-behind.ts: rows queued during a turn of the event loop are written together, in one transaction, on
 * the next turn (not while the request that queued them is still answering); a failed write keeps them for the next
 * try; inside another transaction nothing is written until it is over.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { WriteBehind } from "../../src/storage/write-behind.ts";

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function table() {
  const db = new Database(":memory:", { strict: true });
  db.exec("CREATE TABLE t (v INTEGER)");
  const insert = db.query("INSERT INTO t (v) VALUES (?)");
  const count = () => (db.query("SELECT COUNT(*) AS n FROM t").get() as { n: number }).n;
  return { db, insert, count };
}

describe("WriteBehind", () => {
  test("a turn's rows are written on the next turn, in one call of write, in order", async () => {
    const { db, insert, count } = table();
    const batches: number[][] = [];
    const q = new WriteBehind<number>(db, (rows) => {
      batches.push(rows);
      for (const v of rows) insert.run(v);
    });
    q.push(1);
    q.push(2);
    q.push(3);
    expect(count()).toBe(0);
    expect(q.pending()).toEqual([1, 2, 3]);
    await nextTurn();
    expect(batches).toEqual([[1, 2, 3]]);
    expect(count()).toBe(3);
    expect(q.pending()).toEqual([]);
    expect(db.inTransaction).toBe(false);
  });

  test("flush writes at once; a failed write keeps the rows, reports, and the next flush writes them", async () => {
    const { db, insert, count } = table();
    const errors: unknown[] = [];
    let fail = true;
    const q = new WriteBehind<number>(
      db,
      (rows) => {
        for (const v of rows) insert.run(v);
        if (fail) throw new Error("disk full");
      },
      (err) => errors.push(err),
    );
    q.push(1);
    expect(q.flush()).toBe(false);
    expect(errors.map(String)).toEqual(["Error: disk full"]);
    // Rolled back: nothing half-written, the row still queued.
    expect(count()).toBe(0);
    expect(q.pending()).toEqual([1]);
    q.push(2);
    fail = false;
    expect(q.flush()).toBe(true);
    expect(db.query("SELECT v FROM t ORDER BY rowid").all()).toEqual([{ v: 1 }, { v: 2 }]);
    await nextTurn();
    expect(count()).toBe(2);
  });

  test("a closed database is reported, not thrown, also from the next turn's write", async () => {
    const { db } = table();
    const errors: unknown[] = [];
    const q = new WriteBehind<number>(db, () => {}, (err) => errors.push(err));
    q.push(1);
    db.close();
    expect(q.flush()).toBe(false);
    await nextTurn();
    expect(errors.length).toBe(2);
    expect(q.pending()).toEqual([1]);
  });

  test("a failed write is tried again a second later without new rows (a quiet server after a locked database)", async () => {
    const { db, insert, count } = table();
    let fail = true;
    const written: number[][] = [];
    const q = new WriteBehind<number>(
      db,
      (rows) => {
        if (fail) throw new Error("database is locked");
        for (const v of rows) insert.run(v);
      },
      () => {
        fail = false;
      },
      (rows) => written.push(rows),
    );
    q.push(9);
    await nextTurn();
    expect(count()).toBe(0);
    await Bun.sleep(1_300);
    expect(count()).toBe(1);
    expect(written).toEqual([[9]]);
    expect(q.pending()).toEqual([]);
  });

  test("inside another transaction nothing is written; the next turn writes", async () => {
    const { db, insert, count } = table();
    const q = new WriteBehind<number>(db, (rows) => {
      for (const v of rows) insert.run(v);
    });
    q.push(7);
    db.exec("BEGIN");
    expect(q.flush()).toBe(false);
    db.exec("ROLLBACK");
    expect(q.pending()).toEqual([7]);
    await nextTurn();
    expect(count()).toBe(1);
  });
});
