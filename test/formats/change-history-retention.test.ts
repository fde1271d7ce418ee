/**
 * Retention of the change-tracking history (change-tracking/history.ts): a URL's snapshots (per key and tag) are
 * deleted once its last scrape is older than CRAWLBOX_CHANGE_HISTORY_DAYS, all of them together, so a URL still
 * scraped keeps its baseline however old that is; crawl URL sets older than it go too. And the settings this
 * round of limits added, as loadConfig reads them.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChangeHistory } from "../../src/change-tracking/history.ts";
import { loadConfig } from "../../src/config.ts";
import { openDatabase } from "../../src/storage/database.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
const dir = mkdtempSync(join(tmpdir(), "crawlbox-change-retention-"));
const db = openDatabase(dir);
const history = new ChangeHistory(db);
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const snap = (scrapedAt: number, markdown = "# Page") => ({ scrapedAt, statusCode: 200, markdown });
const count = (url: string, tag = "") => (db.query("SELECT COUNT(*) AS n FROM change_snapshots WHERE url = ? AND tag = ?").get(url, tag) as { n: number }).n;

describe("change history retention", () => {
  test("URLs not scraped within the retention lose their snapshots; URLs still scraped keep all of theirs", () => {
    const t0 = Date.UTC(2030, 0, 1);
    history.record("k", "https://a.test/active", null, snap(t0, "baseline"));
    history.record("k", "https://a.test/active", null, snap(t0 + 400 * DAY_MS, "recent"));
    history.record("k", "https://a.test/gone", null, snap(t0));
    history.record("k", "https://a.test/gone", null, snap(t0 + 10 * DAY_MS));
    // Per tag: the same URL under another tag has its own last scrape.
    history.record("k", "https://a.test/active", "weekly", snap(t0));
    history.record("other", "https://a.test/gone", null, snap(t0 + 390 * DAY_MS));
    history.recordCrawl("old-job", "k", "https://a.test/", null, ["https://a.test/gone"], t0);
    history.recordCrawl("new-job", "k", "https://a.test/", null, ["https://a.test/active"], t0 + 400 * DAY_MS);

    const now = t0 + 401 * DAY_MS;
    expect(history.prune(now - 365 * DAY_MS)).toBe(3);
    expect(count("https://a.test/active")).toBe(2);
    expect(history.latest("k", "https://a.test/active", null)?.markdown).toBe("recent");
    expect(count("https://a.test/active", "weekly")).toBe(0);
    expect(history.latest("k", "https://a.test/gone", null)).toBeUndefined();
    expect(history.latest("other", "https://a.test/gone", null)).toBeDefined();
    expect(history.previousCrawlUrls("k", "https://a.test/", null, "none")).toEqual(["https://a.test/active"]);
    expect((db.query("SELECT job_id FROM change_crawls").all() as { job_id: string }[]).map((r) => r.job_id)).toEqual(["new-job"]);
  });
});

describe("retention and limit settings", () => {
  test("defaults, environment values and refusals", () => {
    const d = loadConfig({});
    expect(d.changeHistoryRetentionMs).toBe(365 * DAY_MS);
    expect(d.profileRetentionMs).toBe(30 * DAY_MS);
    expect(d.maxWatchersPerKey).toBe(50);
    const set = loadConfig({ CRAWLBOX_CHANGE_HISTORY_DAYS: "30", CRAWLBOX_PROFILE_RETENTION_DAYS: "7", CRAWLBOX_MAX_WATCHERS_PER_KEY: "5" });
    expect([set.changeHistoryRetentionMs, set.profileRetentionMs, set.maxWatchersPerKey]).toEqual([30 * DAY_MS, 7 * DAY_MS, 5]);
    expect(() => loadConfig({ CRAWLBOX_CHANGE_HISTORY_DAYS: "0" })).toThrow("CRAWLBOX_CHANGE_HISTORY_DAYS");
    expect(() => loadConfig({ CRAWLBOX_PROFILE_RETENTION_DAYS: "x" })).toThrow("CRAWLBOX_PROFILE_RETENTION_DAYS");
    expect(() => loadConfig({ CRAWLBOX_MAX_WATCHERS_PER_KEY: "0" })).toThrow("CRAWLBOX_MAX_WATCHERS_PER_KEY");
  });
});
