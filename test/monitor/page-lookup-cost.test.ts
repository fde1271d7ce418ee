/**
 * A monitored page's previous page is found by walking the monitor's checks from the newest and looking its URL up in
 * each (monitor/store.ts lastPage, comparedScrapeId). Over the (check_id, seq) index that look-up read every page of the
 * check: each page of a check of N pages read N rows, O(N²) per check (5,000 pages: 3.4 s for comparedScrapeId and as
 * much for lastPage). Storage migration 37's (check_id, target_id, url) index makes it one index entry per check.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MonitorStore } from "../../src/monitor/store.ts";
import { openDatabase } from "../../src/storage/database.ts";

const PAGES = 4_000;
const CHECKS = 3;
let dir: string;
let db: Database;
let store: MonitorStore;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "monitor-lookup-"));
  db = openDatabase(dir);
  store = new MonitorStore(db);
  const check = db.query("INSERT INTO monitor_checks (id, monitor_id, key_id, status, trigger, summary, created_at, updated_at, credits) VALUES (?, 'm', 'k', 'completed', 'manual', '{}', ?, ?, 0)");
  const page = db.query("INSERT INTO monitor_pages (id, check_id, seq, target_id, url, status, scrape_id, status_code, credits, created_at) VALUES (?, ?, ?, 't', ?, 'same', ?, 200, 0, 0)");
  db.transaction(() => {
    for (let c = 0; c < CHECKS; c++) {
      check.run(`c${c}`, c * 1_000, c * 1_000);
      for (let p = 0; p < PAGES; p++) page.run(`c${c}p${p}`, `c${c}`, p, `https://shop.test/item/${p}`, `s${c}-${p}`);
    }
    check.run("now", CHECKS * 1_000, CHECKS * 1_000);
  })();
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe(`a check of ${PAGES} pages`, () => {
  test("the pages are looked up in the (check_id, target_id, url) index", () => {
    const indexes = db.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'monitor_pages'").all().map((r) => r.name);
    expect(indexes).toContain("monitor_pages_check_url");
  });

  test("each page's previous scrape, both look-ups, for all its pages in under 3 s (5.3 s over the (check_id, seq) index on an idle machine)", () => {
    const started = performance.now();
    let right = 0;
    for (let p = 0; p < PAGES; p++) {
      const url = `https://shop.test/item/${p}`;
      const compared = store.comparedScrapeId({ monitorId: "m", keyId: "k", targetId: "t", url, beforeCheckId: "now", errorAnswer: false, previousScrapeAt: 0 });
      const last = store.lastPage("m", "t", url, "now");
      if (compared === `s${CHECKS - 1}-${p}` && last?.scrapeId === compared) right++;
    }
    const ms = performance.now() - started;
    expect(right).toBe(PAGES);
    // ≈ 0.3 s idle and up to 2.2 s with both cores busy; the walk over (check_id, seq) took 5.3 s idle.
    expect(ms).toBeLessThan(3_000);
  });
});
