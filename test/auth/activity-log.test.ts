/**
 * auth/activity.ts written behind the response: an entry is not in the table while the request that noted it is still
 * answering, a listing right after shows it (the queue is written first), and a graceful stop of the server writes
 * what is queued, as it does the credits charged (auth/credits.ts).
 */
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { ActivityLog } from "../../src/auth/activity.ts";
import { testConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import { createServices } from "../../src/server/services.ts";
import { migrate, openDatabase } from "../../src/storage/database.ts";

describe("activity written behind", () => {
  test("queued entries are not in the table yet, but a listing shows them, in order", () => {
    const db = new Database(":memory:", { strict: true });
    migrate(db);
    let t = Date.UTC(2026, 10, 23, 12);
    const log = new ActivityLog(db, () => t++);
    log.record("k", { id: "a", endpoint: "scrape", apiVersion: "v2", target: "https://a.example/" });
    log.record("k", { id: "b", endpoint: "map", apiVersion: "v1", target: null });
    expect((db.query("SELECT COUNT(*) AS n FROM activity").get() as { n: number }).n).toBe(0);
    const listed = log.list("k", { limit: 10 });
    expect(listed.data.map((e) => [e.id, e.endpoint, e.api_version, e.target])).toEqual([
      ["b", "map", "v1", null],
      ["a", "scrape", "v2", "https://a.example/"],
    ]);
    expect((db.query("SELECT COUNT(*) AS n FROM activity").get() as { n: number }).n).toBe(2);
  });

  test("a graceful stop writes the queued credits and activity to the data folder", async () => {
    const config = testConfig();
    try {
      const services = await createServices(config, { log: silentLogger });
      const who = services.keys.identityOf(services.keys.create("t").record.id);
      services.ledger.charge(who, 3, 7);
      services.activity.record(who.keyId, { id: "job-1", endpoint: "crawl", apiVersion: "v2", target: "https://x.example/" });
      await services.close();
      const db = openDatabase(config.dataDir);
      try {
        expect(db.query("SELECT key_id, credits, tokens FROM credit_usage").all()).toEqual([{ key_id: who.keyId, credits: 3, tokens: 7 }]);
        expect(db.query("SELECT key_id, id, endpoint FROM activity").all()).toEqual([{ key_id: who.keyId, id: "job-1", endpoint: "crawl" }]);
      } finally {
        db.close();
      }
    } finally {
      rmSync(config.dataDir, { recursive: true, force: true });
    }
  });
});
