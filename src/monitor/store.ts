/**
 * @module monitor/store
 * Monitors, their checks and the pages each check looked at (`monitors`, `monitor_checks`, `monitor_pages`).
 * A check is stored `queued` when it is started, becomes `running` when it gets one of the process's check places,
 * and is updated once when it ends; a check a stopped server left queued or running is failed at the next start. Checks older than the monitor's `retentionDays` are deleted.
 * The shapes it stores, and how its rows read back as them, are monitor/rows.ts.
 */
import type { Database } from "bun:sqlite";
import { errorAnswerStatusSql, isErrorAnswerStatus } from "../change-tracking/answer-status.ts";
import { ChangeHistory, historyUrl } from "../change-tracking/history.ts";
import { monitorTag } from "./target-ids.ts";
import { checkFrom, EMPTY_SUMMARY, monitorFrom, pageFrom, type CheckPage, type CheckRow, type CheckStatus, type MonitorRow, type MonitorSummary } from "./rows.ts";

/**
 * The pages of a monitor's checks, its newest check first, each check's looked up by target and URL in the
 * (check_id, target_id, url) index (storage migration 37): the query's WHERE gives `c.monitor_id`, `p.check_id = c.id`
 * and the target and URL. Forced (CROSS JOIN, INDEXED BY): the URL index alone would sort the URL's whole history, and
 * the (check_id, seq) one read every page of each check.
 */
const PAGES_FROM_NEWEST_CHECK = "FROM monitor_checks c INDEXED BY monitor_checks_monitor CROSS JOIN monitor_pages p INDEXED BY monitor_pages_check_url";

/** Checks kept per monitor beyond its retention: the oldest go first. */
export const MAX_CHECKS_PER_MONITOR = 1_000;

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));

/** Reads and writes monitors and their checks. */
export class MonitorStore {
  /** The change history the monitors' scrapes keep (tag `monitor:<id>:<target>`), read to name a page's previous scrape. */
  private readonly history: ChangeHistory;

  constructor(private readonly db: Database) {
    this.history = new ChangeHistory(db);
  }

  /** Stores or replaces a monitor (all its fields). */
  save(m: MonitorRow): void {
    this.db
      .query(
        `INSERT INTO monitors (id, key_id, name, status, schedule, targets, webhook, notification, retention_days, goal, judge_enabled, last_run_at, current_check_id, last_summary, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name, status = excluded.status, schedule = excluded.schedule, targets = excluded.targets,
           webhook = excluded.webhook, notification = excluded.notification, retention_days = excluded.retention_days, goal = excluded.goal, judge_enabled = excluded.judge_enabled,
           updated_at = excluded.updated_at`,
      )
      .run(m.id, m.keyId, m.name, m.status, JSON.stringify(m.schedule), JSON.stringify(m.targets), json(m.webhook), json(m.notification), m.retentionDays, m.goal ?? null, m.judgeEnabled ? 1 : 0, m.lastRunAt ?? null, m.currentCheckId ?? null, json(m.lastSummary), m.createdAt, m.updatedAt);
  }

  get(id: string): MonitorRow | undefined {
    const r = this.db.query<Record<string, any>, [string]>("SELECT * FROM monitors WHERE id = ?").get(id);
    return r ? monitorFrom(r) : undefined;
  }

  /** `keyId`'s monitors, oldest first. */
  list(keyId: string, limit: number, offset: number): MonitorRow[] {
    return this.db.query<Record<string, any>, [string, number, number]>("SELECT * FROM monitors WHERE key_id = ? ORDER BY created_at, id LIMIT ? OFFSET ?").all(keyId, limit, offset).map(monitorFrom);
  }

  /** How many monitors `keyId` has. */
  count(keyId: string): number {
    return this.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM monitors WHERE key_id = ?").get(keyId)?.n ?? 0;
  }

  /** Every active monitor (scheduled at start). */
  active(): MonitorRow[] {
    return this.db.query<Record<string, any>, []>("SELECT * FROM monitors WHERE status = 'active'").all().map(monitorFrom);
  }

  /** Deletes a monitor with its checks and pages. */
  delete(id: string): void {
    this.db.query("DELETE FROM monitor_pages WHERE check_id IN (SELECT id FROM monitor_checks WHERE monitor_id = ?)").run(id);
    this.db.query("DELETE FROM monitor_checks WHERE monitor_id = ?").run(id);
    this.db.query("DELETE FROM monitors WHERE id = ?").run(id);
  }

  /** The monitor's check that has not ended (queued or running), if any. */
  runningCheck(monitorId: string): CheckRow | undefined {
    const r = this.db.query<Record<string, any>, [string]>("SELECT * FROM monitor_checks WHERE monitor_id = ? AND status IN ('queued', 'running')").get(monitorId);
    return r ? checkFrom(r) : undefined;
  }

  /** Stores a new check: `queued`, or a skipped one (already ended). */
  addCheck(c: CheckRow): void {
    this.db
      .query("INSERT INTO monitor_checks (id, monitor_id, key_id, status, trigger, scheduled_for, started_at, finished_at, credits, summary, error, targets, estimated_credits, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .run(c.id, c.monitorId, c.keyId, c.status, c.trigger, c.scheduledFor ?? null, c.startedAt ?? null, c.finishedAt ?? null, c.credits, JSON.stringify(c.summary), c.error ?? null, json(c.targets), c.estimatedCredits ?? null, c.createdAt, c.updatedAt);
    if (c.status === "queued" || c.status === "running") this.db.query("UPDATE monitors SET current_check_id = ?, last_run_at = ? WHERE id = ?").run(c.id, c.createdAt, c.monitorId);
  }

  /** A queued check gets its place: `running` from `now`; false when it is no longer queued (ended meanwhile). */
  markRunning(id: string, now: number): boolean {
    return this.db.query("UPDATE monitor_checks SET status = 'running', started_at = ?, updated_at = ? WHERE id = ? AND status = 'queued'").run(now, now, id).changes > 0;
  }

  /** Records one page of a running check. */
  addPage(checkId: string, seq: number, p: CheckPage): void {
    this.db
      .query("INSERT INTO monitor_pages (id, check_id, seq, target_id, url, status, scrape_id, previous_scrape_id, status_code, error, diff, judgment, snapshot, credits, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .run(p.id, checkId, seq, p.targetId, p.url, p.status, p.scrapeId ?? null, p.previousScrapeId ?? null, p.statusCode ?? null, p.error ?? null, json(p.diff), json(p.judgment), json(p.snapshot), p.credits, p.createdAt);
  }

  /**
   * What the monitor's latest earlier check recorded for a URL of a target, if it looked at it: its status, and
   * the latest earlier scrape id of that URL (its own, or, for a page that failed, the one it carried forward).
   * One row read: each page stores its predecessor's id, so no walk back through the history is needed.
   * A URL the monitor never recorded is answered from the URL index; one it did is found by walking its checks from
   * the newest ({@link PAGES_FROM_NEWEST_CHECK}).
   */
  lastPage(monitorId: string, targetId: string, url: string, beforeCheckId: string): { status: CheckPage["status"]; scrapeId?: string } | undefined {
    const seen = this.db
      .query<{ one: number }, [string, string, string, string]>(
        `SELECT 1 AS one FROM monitor_pages p JOIN monitor_checks c ON c.id = p.check_id
         WHERE p.url = ? AND p.target_id = ? AND c.monitor_id = ? AND c.id != ? LIMIT 1`,
      )
      .get(url, targetId, monitorId, beforeCheckId);
    if (!seen) return undefined;
    const row = this.db
      .query<{ status: CheckPage["status"]; scrape_id: string | null }, [string, string, string, string]>(
        `SELECT p.status, COALESCE(p.scrape_id, p.previous_scrape_id) AS scrape_id ${PAGES_FROM_NEWEST_CHECK}
         WHERE c.monitor_id = ?1 AND c.id != ?4 AND p.check_id = c.id AND p.target_id = ?2 AND p.url = ?3 ORDER BY c.created_at DESC, p.seq DESC LIMIT 1`,
      )
      .get(monitorId, targetId, url, beforeCheckId);
    if (!row) return undefined;
    return row.scrape_id ? { status: row.status, scrapeId: row.scrape_id } : { status: row.status };
  }

  /**
   * The scrape a page's changeTracking compared its answer with (its `previousScrapeId`), the one its
   * `previousScrapeAt` dates, among the earlier checks' pages of the URL in the target, by the rule the change history
   * follows (plugins/formats/change-tracking.ts, change-tracking/history.ts): an error answer
   * (change-tracking/answer-status.ts) is compared with the latest earlier answer, any other with the latest earlier
   * one that was not an error answer, or, when every answer was an error, with the latest. Only pages that were
   * scraped and compared count (a failed page recorded nothing). So after an outage the page's return names the last
   * good version, not the 503 before it. The history says which kind the compared answer was (`previousScrapeAt` is
   * its time): a good version whose check is no longer kept (`retentionDays`) is undefined, not the error after it.
   * URLs are matched as the history keys them, without their fragment (`p#a` and `p#b` are one page to it); two such
   * URLs of one target scraped in the same check are not told apart (either may be compared with the other's answer).
   */
  comparedScrapeId(o: { monitorId: string; keyId: string; targetId: string; url: string; beforeCheckId: string; errorAnswer: boolean; previousScrapeAt: number }): string | undefined {
    // From the newest check down, each looked up in the (check, target, URL) index: an outage of a thousand checks
    // reads a thousand index entries, a check of thousands of pages no more than one.
    const latest = (goodOnly: boolean) =>
      this.db
        .query<{ scrape_id: string; status_code: number | null }, [string, string, string, string]>(
          `SELECT p.scrape_id, p.status_code ${PAGES_FROM_NEWEST_CHECK}
           WHERE c.monitor_id = ?1 AND c.id != ?4 AND p.check_id = c.id AND p.target_id = ?2
             AND p.url >= ?3 AND p.url < ?3 || '$' AND (p.url = ?3 OR substr(p.url, length(?3) + 1, 1) = '#')
             AND p.scrape_id IS NOT NULL AND p.status != 'error'
             ${goodOnly ? `AND NOT ${errorAnswerStatusSql("COALESCE(p.status_code, 0)")}` : ""}
           ORDER BY c.created_at DESC, p.seq DESC LIMIT 1`,
        )
        .get(o.monitorId, o.targetId, historyUrl(o.url), o.beforeCheckId);
    const any = latest(false);
    if (!any || o.errorAnswer || !isErrorAnswerStatus(any.status_code ?? 0)) return any?.scrape_id;
    // A good answer after error answers: compared with the last good version, unless there was none.
    const good = latest(true);
    if (good) return good.scrape_id;
    const comparedWasError = this.history.errorAnswerAt(o.keyId, o.url, monitorTag(o.monitorId, o.targetId), o.previousScrapeAt);
    return comparedWasError === true ? any.scrape_id : undefined;
  }

  /** A check's summary and credits, from the pages it recorded (a check cut short keeps what it did). */
  tally(checkId: string): { summary: MonitorSummary; credits: number } {
    const summary: MonitorSummary = { ...EMPTY_SUMMARY };
    let credits = 0;
    for (const r of this.db.query<{ status: CheckPage["status"]; n: number; c: number }, [string]>("SELECT status, COUNT(*) AS n, SUM(credits) AS c FROM monitor_pages WHERE check_id = ? GROUP BY status").all(checkId)) {
      summary[r.status] += r.n;
      summary.totalPages += r.n;
      credits += r.c;
    }
    return { summary, credits };
  }

  /** Ends a queued or running check; false when it had already ended (failed meanwhile by a restart). */
  endCheck(id: string, end: { status: CheckStatus; summary: MonitorSummary; credits: number; targetResults?: Record<string, Record<string, unknown>>; error?: string }, now: number): boolean {
    const changed = this.db
      .query("UPDATE monitor_checks SET status = ?, summary = ?, credits = ?, target_results = COALESCE(?, target_results), error = ?, finished_at = ?, updated_at = ? WHERE id = ? AND status IN ('queued', 'running')")
      .run(end.status, JSON.stringify(end.summary), end.credits, json(end.targetResults), end.error ?? null, now, now, id).changes;
    if (changed > 0) this.db.query("UPDATE monitors SET current_check_id = NULL, last_summary = ? WHERE current_check_id = ?").run(JSON.stringify(end.summary), id);
    return changed > 0;
  }

  getCheck(monitorId: string, checkId: string): CheckRow | undefined {
    const r = this.db.query<Record<string, any>, [string, string]>("SELECT * FROM monitor_checks WHERE id = ? AND monitor_id = ?").get(checkId, monitorId);
    return r ? checkFrom(r) : undefined;
  }

  /** A monitor's checks, newest first. */
  checks(monitorId: string, limit: number, offset: number): CheckRow[] {
    return this.db.query<Record<string, any>, [string, number, number]>("SELECT * FROM monitor_checks WHERE monitor_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?").all(monitorId, limit, offset).map(checkFrom);
  }

  /** A check's pages in order, optionally only those with `status`. */
  pages(checkId: string, limit: number, skip: number, status?: string): CheckPage[] {
    const rows = status
      ? this.db.query<Record<string, any>, [string, string, number, number]>("SELECT * FROM monitor_pages WHERE check_id = ? AND status = ? ORDER BY seq LIMIT ? OFFSET ?").all(checkId, status, limit, skip)
      : this.db.query<Record<string, any>, [string, number, number]>("SELECT * FROM monitor_pages WHERE check_id = ? ORDER BY seq LIMIT ? OFFSET ?").all(checkId, limit, skip);
    return rows.map(pageFrom);
  }

  /**
   * The pages of a check that are news (`new`, `changed`, `removed`) as its webhook lists them, in order: read back
   * when the check ends, so a check a stopped server left is announced as one that ran to its end.
   */
  changedPages(checkId: string): { url: string; status: string }[] {
    return this.db
      .query<{ url: string; status: string }, [string]>("SELECT url, status FROM monitor_pages WHERE check_id = ? AND status IN ('new', 'changed', 'removed') ORDER BY seq")
      .all(checkId)
      .map((r) => ({ url: r.url, status: r.status }));
  }

  /** The checks not ended, queued or running (after a restart: those a stopped server left). */
  runningChecks(): CheckRow[] {
    return this.db.query<Record<string, any>, []>("SELECT * FROM monitor_checks WHERE status IN ('queued', 'running')").all().map(checkFrom);
  }

  /**
   * Deletes checks (and their pages) older than their monitor's retention, and beyond the newest
   * {@link MAX_CHECKS_PER_MONITOR} of a monitor; returns how many checks.
   */
  prune(now: number): number {
    const old = `SELECT c.id FROM monitor_checks c JOIN monitors m ON m.id = c.monitor_id WHERE c.status NOT IN ('queued', 'running') AND (c.created_at < ? - m.retention_days * 86400000
      OR c.id IN (SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY monitor_id ORDER BY created_at DESC) AS n FROM monitor_checks) WHERE n > ${MAX_CHECKS_PER_MONITOR}))`;
    this.db.query(`DELETE FROM monitor_pages WHERE check_id IN (${old})`).run(now);
    return this.db.query(`DELETE FROM monitor_checks WHERE id IN (${old})`).run(now).changes;
  }

  /** Deletes the change-tracking history a monitor kept for its pages (tag `monitor:<id>:<target>`). */
  deleteHistory(monitorId: string): void {
    this.db.query("DELETE FROM change_snapshots WHERE tag LIKE ? ESCAPE '\\'").run(`monitor:${monitorId.replace(/[\\%_]/g, (c) => `\\${c}`)}:%`);
  }
}
