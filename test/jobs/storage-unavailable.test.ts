/**
 * crawlbox's own database locked by another process past its busy timeout (a backup tool, an operator's `sqlite3`
 * holding a transaction): a transient failure, not a page's. The error is `503 STORAGE_UNAVAILABLE`, retryable,
 * so a job's page that hit it (here: storing its changeTracking baseline) is tried again and ends with its
 * document; it failed for good as `UNKNOWN_ERROR` before (the batch `completed` with no data), its cause logged
 * nowhere. Against a real server process: the lock is held by another process, as it would be.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { toCrawlboxError } from "../../src/errors.ts";
import { restartableServer, type RestartableServer } from "./restart-helpers.ts";

let server: RestartableServer;
let site: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  site = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch() {
      await Bun.sleep(800);
      return new Response("<html><body><main><h1>Prices</h1><p>Today's prices, updated every morning.</p></main></body></html>", { headers: { "content-type": "text/html" } });
    },
  });
  server = restartableServer({ CRAWLBOX_RETRY_BASE_DELAY_MS: "200" });
  await server.start();
});
afterAll(async () => {
  await server.cleanup();
  site.stop(true);
});

/** Holds the database's write lock for `ms` from this (another) process. */
async function lockFor(ms: number): Promise<void> {
  const db = new Database(join(server.dataDir, "crawlbox.sqlite"));
  db.exec("PRAGMA busy_timeout = 10000");
  db.exec("BEGIN IMMEDIATE");
  await Bun.sleep(ms);
  db.exec("COMMIT");
  db.close();
}

describe("the database locked by another process", () => {
  test("a SQLite busy, locked, full or I/O error is 503 STORAGE_UNAVAILABLE, retryable; other errors stay unknown", () => {
    const a = new Database(":memory:");
    let failure: unknown;
    try {
      a.exec("SELECT * FROM missing_table");
    } catch (err) {
      failure = err;
    }
    expect(toCrawlboxError(failure)).toMatchObject({ code: "UNKNOWN_ERROR", retryable: false });
    for (const code of ["SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_FULL", "SQLITE_IOERR_WRITE"]) {
      const e = toCrawlboxError(Object.assign(new Error("x"), { code }));
      expect([e.code, e.status, e.retryable]).toEqual(["STORAGE_UNAVAILABLE", 503, true]);
    }
  });

  test("a batch page storing its changeTracking baseline during a lock is retried and ends with its document", async () => {
    const { id } = await server.call("POST", "/v2/batch/scrape", { urls: [`http://127.0.0.1:${site.port}/prices`], formats: ["markdown", "changeTracking"], storeInCache: false, maxAge: 0 });
    await Bun.sleep(200);
    await lockFor(6_000); // past the 5 s busy timeout, while the page is fetched and its baseline stored
    let status: any;
    for (let i = 0; i < 300; i++) {
      status = await server.call("GET", `/v2/batch/scrape/${id}`);
      if (status.status !== "scraping") break;
      await Bun.sleep(100);
    }
    expect(status.status).toBe("completed");
    expect(status.data.length).toBe(1);
    expect(status.data[0].changeTracking.changeStatus).toBe("new");
  }, 60_000);
});
