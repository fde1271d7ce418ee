/**
 * A data directory upgrades from every schema version crawlbox has been at: migrations apply by position
 * (storage/database.ts), so statements added to a migration after a directory ran it would never run there. The
 * changeTracking columns of migration 36 were first written into 35, which a directory already at 35 skipped, and every
 * changeTracking scrape there failed on `no such column: is_error`.
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DATABASE_FILE, migrate, openDatabase } from "../../src/storage/database.ts";
import { MIGRATIONS } from "../../src/storage/migrations.ts";
import { listWebhookDeliveries } from "../../src/webhooks/index.ts";

/** An in-memory database brought to `version` by the first `version` migrations, as that release left it. */
function databaseAt(version: number): Database {
  const db = new Database(":memory:");
  for (let v = 0; v < version; v++) {
    db.exec(MIGRATIONS[v]!);
    db.exec(`PRAGMA user_version = ${v + 1}`);
  }
  return db;
}

const columns = (db: Database, table: string) => (db.query(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);

describe("upgrading a data directory", () => {
  test("one at 35 (the redaction column only) gets the error-answer and crawl-record columns, its old error rows marked", () => {
    const db = databaseAt(35);
    expect(columns(db, "change_snapshots")).toContain("redaction");
    expect(columns(db, "change_snapshots")).not.toContain("is_error");
    const insert = db.query("INSERT INTO change_snapshots (key_id, url, tag, scraped_at, status_code, markdown) VALUES ('k', 'https://e.com/', '', ?, ?, 'm')");
    for (const [at, status] of [[1, 200], [2, 503], [3, 403], [4, 404]]) insert.run(at!, status!);
    migrate(db);
    const marked = db.query("SELECT status_code, is_error FROM change_snapshots ORDER BY scraped_at").all();
    expect(marked).toEqual([{ status_code: 200, is_error: 0 }, { status_code: 503, is_error: 1 }, { status_code: 403, is_error: 1 }, { status_code: 404, is_error: 0 }]);
    expect((db.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(MIGRATIONS.length);
    expect(columns(db, "change_snapshots")).toEqual(expect.arrayContaining(["redaction", "is_error"]));
    expect(columns(db, "change_crawls")).toContain("complete");
  });

  test("one at 36 gets migration 37's index of a check's pages by target and URL (monitor/store.ts walks checks by it)", () => {
    const db = databaseAt(36);
    const indexes = () => (db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'monitor_pages'").all() as { name: string }[]).map((r) => r.name);
    expect(indexes()).not.toContain("monitor_pages_check_url");
    migrate(db);
    expect(indexes()).toContain("monitor_pages_check_url");
    expect((db.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(MIGRATIONS.length);
  });

  test("a data directory at 37 gets migration 38's index of a job's webhook events on open, and lists them by it", () => {
    const dir = mkdtempSync(join(tmpdir(), "crawlbox-upgrade-"));
    try {
      // The file as the release at 37 left it, with a job's events in it.
      const old = new Database(join(dir, DATABASE_FILE), { create: true, strict: true });
      for (let v = 0; v < 37; v++) {
        old.exec(MIGRATIONS[v]!);
        old.exec(`PRAGMA user_version = ${v + 1}`);
      }
      const insert = old.query(
        `INSERT INTO webhook_events (id, job_id, key_id, type, url, headers, body, state, failures, created_at, next_attempt_at)
         VALUES (?, ?, 'key-1', ?, 'http://127.0.0.1:9/hook', '{}', '{}', 'pending', 0, ?, ?)`,
      );
      for (let i = 0; i < 30; i++) insert.run(`event-${i}`, i % 3 === 2 ? "job-2" : "job-1", i === 0 ? "crawl.started" : "crawl.page", 1000 + i, 1000 + i);
      old.close();

      const db = openDatabase(dir);
      const indexes = db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'webhook_events'").all() as { name: string }[];
      expect(indexes.map((r) => r.name)).toContain("webhook_events_job_key");
      expect((db.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(MIGRATIONS.length);
      const page = listWebhookDeliveries(db, "job-1", "key-1", { skip: 5, limit: 4 }, 2000);
      expect(page.total).toBe(20);
      expect(page.deliveries.map((d) => d.webhookId)).toEqual(["event-7", "event-9", "event-10", "event-12"]);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("every version from 30 on upgrades to the latest without an error", () => {
    for (let v = 30; v <= MIGRATIONS.length; v++) {
      const db = databaseAt(v);
      expect(() => migrate(db)).not.toThrow();
      expect(columns(db, "change_snapshots")).toEqual(expect.arrayContaining(["redaction", "is_error"]));
    }
  });
});
