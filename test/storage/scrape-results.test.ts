/**
 * Scrape results are written behind the response (storage/scrape-results.ts): readable at once, in SQLite by the
 * next event-loop turn, never visible to another key, flushed by prune and on demand.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { migrate } from "../../src/storage/database.ts";
import { SCRAPE_RESULT_TTL_MS, ScrapeResults } from "../../src/storage/scrape-results.ts";

function setup() {
  const db = new Database(":memory:", { strict: true });
  migrate(db);
  const rows = () => (db.query("SELECT COUNT(*) AS n FROM scrapes").get() as { n: number }).n;
  return { db, results: new ScrapeResults(db), rows };
}

describe("scrape results", () => {
  test("a queued document is readable at once, as a copy, and only by its key", () => {
    const { results, rows } = setup();
    const doc = { markdown: "# hi", metadata: { statusCode: 200 } };
    results.put("id-1", "key-a", "http://x/", doc, 1000);
    expect(rows()).toBe(0); // not written yet
    const got = results.get("id-1", "key-a", 1000) as typeof doc;
    expect(got).toEqual(doc);
    got.markdown = "changed by the reader";
    expect((results.get("id-1", "key-a", 1000) as typeof doc).markdown).toBe("# hi");
    expect(results.get("id-1", "key-b", 1000)).toBeUndefined();
    expect(results.get("id-1", "key-a", 1000 + SCRAPE_RESULT_TTL_MS + 1)).toBeUndefined();
  });

  test("the queue is written in one transaction on the next event-loop turn", async () => {
    const { results, rows } = setup();
    for (let i = 0; i < 5; i++) results.put(`id-${i}`, "key-a", "http://x/", { markdown: `page ${i}` }, 1000);
    await new Promise((r) => setImmediate(r));
    expect(rows()).toBe(5);
    expect(results.get("id-3", "key-a", 1000)).toEqual({ markdown: "page 3" });
    expect(results.get("id-3", "key-b", 1000)).toBeUndefined();
  });

  test("a document JSON cannot write (nested too deep) is left out, not the batch with it", async () => {
    const { results, rows } = setup();
    let deep: unknown[] = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    results.put("ok-1", "key-a", "http://x/", { markdown: "one" }, 1000);
    results.put("deep", "key-a", "http://x/", { json: deep }, 1000);
    results.put("ok-2", "key-a", "http://x/", { markdown: "two" }, 1000);
    await new Promise((r) => setImmediate(r));
    expect(rows()).toBe(2);
    expect(results.get("ok-2", "key-a", 1000)).toEqual({ markdown: "two" });
    expect(results.get("deep", "key-a", 1000)).toBeUndefined();
  });

  test("prune writes the queue first, then drops what expired", () => {
    const { results, rows } = setup();
    results.put("old", "k", "http://x/", { a: 1 }, 0);
    results.put("new", "k", "http://x/", { a: 2 }, SCRAPE_RESULT_TTL_MS);
    expect(results.prune(SCRAPE_RESULT_TTL_MS + 1)).toBe(1);
    expect(rows()).toBe(1);
    expect(results.get("new", "k", SCRAPE_RESULT_TTL_MS + 1)).toEqual({ a: 2 });
  });

  test("trim keeps the newest results (the queue written first) and deletes the oldest beyond the cap", () => {
    const { results, rows } = setup();
    for (let i = 0; i < 10; i++) results.put(`id-${i}`, "k", "http://x/", { n: i }, 1000 + i);
    expect(results.trim(20)).toBe(0);
    expect(rows()).toBe(10);
    expect(results.trim(4)).toBe(6);
    expect(rows()).toBe(4);
    expect(results.get("id-5", "k", 2000)).toBeUndefined();
    expect(results.get("id-6", "k", 2000)).toEqual({ n: 6 });
    expect(results.get("id-9", "k", 2000)).toEqual({ n: 9 });
  });
});
