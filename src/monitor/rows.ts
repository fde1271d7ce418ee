/**
 * @module monitor/rows
 * What the monitor store (monitor/store.ts) holds: the shapes of a monitor, a check and a check's page as the rest
 * of the code sees them, and how a row of `monitors`, `monitor_checks` or `monitor_pages` reads back as one. Apart
 * from the store's queries because most of the monitor code (the check, its notices and emails, the routes) uses
 * these shapes without touching the database.
 */
import type { MonitorNotification, MonitorWebhook } from "../api/monitor.ts";
import type { MonitorTarget } from "../api/monitor-targets.ts";
import type { MonitorSchedule } from "./schedule.ts";

/** Pages of a check by what happened to them. */
export interface MonitorSummary {
  totalPages: number;
  same: number;
  changed: number;
  new: number;
  removed: number;
  error: number;
}

export const EMPTY_SUMMARY: MonitorSummary = { totalPages: 0, same: 0, changed: 0, new: 0, removed: 0, error: 0 };

/** A stored monitor. */
export interface MonitorRow {
  id: string;
  keyId: string;
  name: string;
  status: "active" | "paused";
  schedule: MonitorSchedule;
  targets: MonitorTarget[];
  webhook?: MonitorWebhook;
  /** Email notification settings (`notification`). */
  notification?: MonitorNotification;
  retentionDays: number;
  goal?: string;
  judgeEnabled: boolean;
  lastRunAt?: number;
  currentCheckId?: string;
  lastSummary?: MonitorSummary;
  createdAt: number;
  updatedAt: number;
}

/** A target as a check records it: enough to answer its `targetResults` after the monitor's targets changed. */
export interface CheckTarget {
  id: string;
  type: MonitorTarget["type"];
}

export type CheckStatus = "queued" | "running" | "completed" | "partial" | "failed" | "skipped_overlap" | "skipped_no_credits";

/** A stored check. */
export interface CheckRow {
  id: string;
  monitorId: string;
  keyId: string;
  status: CheckStatus;
  trigger: "scheduled" | "manual";
  scheduledFor?: number;
  startedAt?: number;
  finishedAt?: number;
  credits: number;
  summary: MonitorSummary;
  /** What each crawl or search target did (its crawl's id; its search's counts), by target id. */
  targetResults?: Record<string, Record<string, unknown>>;
  /**
   * The targets the check ran, and what they were estimated to cost (`estimatedCredits`), kept with it because the
   * monitor's targets may be changed afterwards; absent on checks stored before migration 30.
   */
  targets?: CheckTarget[];
  estimatedCredits?: number;
  error?: string;
  createdAt: number;
  updatedAt: number;
}

/** One page of a check. */
export interface CheckPage {
  id: string;
  targetId: string;
  url: string;
  status: "same" | "new" | "changed" | "removed" | "error";
  scrapeId?: string;
  /**
   * `previousScrapeId`: the earlier check's scrape of this URL its changeTracking compared with (store.ts
   * comparedScrapeId); for a page that failed, the latest earlier one.
   */
  previousScrapeId?: string;
  statusCode?: number;
  error?: string;
  diff?: { text?: string; json?: unknown };
  judgment?: unknown;
  /** The page's current JSON extraction, on monitors whose formats ask for one (the SDK's `snapshot`). */
  snapshot?: { json: unknown };
  /** What the page's scrape cost. */
  credits: number;
  createdAt: number;
}

const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

/** A `monitors` row as a {@link MonitorRow}. */
export function monitorFrom(r: Record<string, any>): MonitorRow {
  const m: MonitorRow = {
    id: r.id,
    keyId: r.key_id,
    name: r.name,
    status: r.status,
    schedule: JSON.parse(r.schedule),
    targets: JSON.parse(r.targets),
    retentionDays: r.retention_days,
    judgeEnabled: r.judge_enabled === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
  if (r.webhook !== null) m.webhook = JSON.parse(r.webhook);
  if (r.notification !== null && r.notification !== undefined) m.notification = JSON.parse(r.notification);
  if (r.goal !== null) m.goal = r.goal;
  if (r.last_run_at !== null) m.lastRunAt = r.last_run_at;
  if (r.current_check_id !== null) m.currentCheckId = r.current_check_id;
  if (r.last_summary !== null) m.lastSummary = JSON.parse(r.last_summary);
  return m;
}

/** A `monitor_checks` row as a {@link CheckRow}. */
export function checkFrom(r: Record<string, any>): CheckRow {
  const c: CheckRow = { id: r.id, monitorId: r.monitor_id, keyId: r.key_id, status: r.status, trigger: r.trigger, credits: r.credits, summary: JSON.parse(r.summary), createdAt: r.created_at, updatedAt: r.updated_at };
  if (r.target_results !== null) c.targetResults = JSON.parse(r.target_results);
  if (r.targets !== null) c.targets = JSON.parse(r.targets);
  if (r.estimated_credits !== null) c.estimatedCredits = r.estimated_credits;
  for (const [k, col] of [["scheduledFor", "scheduled_for"], ["startedAt", "started_at"], ["finishedAt", "finished_at"], ["error", "error"]] as const) {
    const v = opt(r[col]);
    if (v !== undefined) (c as unknown as Record<string, unknown>)[k] = v;
  }
  return c;
}

/** A `monitor_pages` row as a {@link CheckPage}. */
export function pageFrom(r: Record<string, any>): CheckPage {
  const p: CheckPage = { id: r.id, targetId: r.target_id, url: r.url, status: r.status, credits: r.credits, createdAt: r.created_at };
  if (r.scrape_id !== null) p.scrapeId = r.scrape_id;
  if (r.status_code !== null) p.statusCode = r.status_code;
  if (r.error !== null) p.error = r.error;
  if (r.diff !== null) p.diff = JSON.parse(r.diff);
  if (r.judgment !== null) p.judgment = JSON.parse(r.judgment);
  if (r.previous_scrape_id !== null) p.previousScrapeId = r.previous_scrape_id;
  if (r.snapshot !== null) p.snapshot = JSON.parse(r.snapshot);
  return p;
}
