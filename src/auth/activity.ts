/**
 * @module auth/activity
 * Each key's recent API activity, for `GET /v2/team/activity` (upstream's: the jobs of the last 24 hours, newest first,
 * each with the id its GET route takes). A successful request that starts or runs a job is noted with its id, the
 * endpoint, the API version it came through and what it was about (a URL, a query, a prompt, cut at 500 characters).
 * Nothing is noted for a zero-data-retention request. Entries older than 24 hours are pruned (hourly), and a listing
 * shows none of them. Entries are written behind the response (storage/write-behind.ts); a listing writes the queued
 * ones first.
 */
import type { Database } from "bun:sqlite";
import { WriteBehind } from "../storage/write-behind.ts";

/** How long activity is kept and listed. */
export const ACTIVITY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Characters of a target kept. */
const MAX_TARGET_CHARS = 500;

/**
 * The endpoints an entry can name: upstream's filter values, all of them accepted by `?endpoint=` so that a client
 * written for upstream gets a list (empty for llmstxt, deep_research and alexandria, which crawlbox never notes)
 * rather than a 400.
 */
export const ACTIVITY_ENDPOINTS = ["scrape", "crawl", "batch_scrape", "search", "extract", "llmstxt", "deep_research", "alexandria", "map", "agent", "browser", "interact"] as const;
export type ActivityEndpoint = (typeof ACTIVITY_ENDPOINTS)[number];

/** Entries listed when `?limit=` is absent, not a number, or below 1 (upstream's). */
export const DEFAULT_ACTIVITY_LIMIT = 50;
/** Most entries one page lists; a larger `?limit=` is lowered to it (upstream clamps, it does not refuse). */
export const MAX_ACTIVITY_LIMIT = 100;

/**
 * The page size `?limit=` asks for, read as upstream reads it (`parseInt`): {@link DEFAULT_ACTIVITY_LIMIT} when it is
 * absent, not a number or below 1; at most {@link MAX_ACTIVITY_LIMIT}.
 */
export function activityLimitOf(raw: string | undefined): number {
  const n = raw === undefined ? Number.NaN : Number.parseInt(raw, 10);
  if (!Number.isFinite(n) || n < 1) return DEFAULT_ACTIVITY_LIMIT;
  return Math.min(n, MAX_ACTIVITY_LIMIT);
}

/** One entry as listed. */
export interface ActivityEntry {
  id: string;
  endpoint: ActivityEndpoint;
  api_version: "v1" | "v2";
  created_at: string;
  target: string | null;
}

/** One entry as stored. */
type ActivityRow = [keyId: string, id: string, endpoint: ActivityEndpoint, apiVersion: "v1" | "v2", target: string | null, createdAt: number];

/** The activity store. */
export class ActivityLog {
  private readonly queue: WriteBehind<ActivityRow>;

  /** @param onWriteError told when queued entries cannot be written (they are kept and tried again) */
  constructor(
    private readonly db: Database,
    private readonly now: () => number = Date.now,
    onWriteError?: (err: unknown) => void,
  ) {
    const insert = db.query<unknown, ActivityRow>("INSERT INTO activity (key_id, id, endpoint, api_version, target, created_at) VALUES (?, ?, ?, ?, ?, ?)");
    this.queue = new WriteBehind(db, (rows) => {
      for (const r of rows) insert.run(...r);
    }, onWriteError);
  }

  /**
   * Notes a job of `keyId`: written on the next event-loop turn, and by a listing before it reads (an entry that
   * cannot be written yet, the database locked or its disk full, is listed once it is).
   */
  record(keyId: string, e: { id: string; endpoint: ActivityEndpoint; apiVersion: "v1" | "v2"; target?: string | null }): void {
    this.queue.push([keyId, e.id, e.endpoint, e.apiVersion, e.target ? e.target.slice(0, MAX_TARGET_CHARS) : null, this.now()]);
  }

  /** Writes the queued entries now (a graceful stop; tests). */
  flush(): void {
    this.queue.flush();
  }

  /**
   * `keyId`'s entries of the last 24 hours, newest first, `limit` of them after `cursor` (the previous page's), of
   * one endpoint if given; the next page's cursor, or null.
   */
  list(keyId: string, o: { endpoint?: ActivityEndpoint; limit: number; cursor?: number }): { data: ActivityEntry[]; cursor: string | null; has_more: boolean } {
    // Entries are ordered and paged by their row number, which only the write gives them.
    this.queue.flush();
    const rows = this.db
      .query<{ seq: number; id: string; endpoint: ActivityEndpoint; api_version: "v1" | "v2"; target: string | null; created_at: number }, [string, number, number, string | null, string | null, number]>(
        "SELECT seq, id, endpoint, api_version, target, created_at FROM activity WHERE key_id = ? AND seq < ? AND created_at > ? AND (? IS NULL OR endpoint = ?) ORDER BY seq DESC LIMIT ?",
      )
      .all(keyId, o.cursor ?? Number.MAX_SAFE_INTEGER, this.now() - ACTIVITY_WINDOW_MS, o.endpoint ?? null, o.endpoint ?? null, o.limit + 1);
    const page = rows.slice(0, o.limit);
    const more = rows.length > o.limit;
    return {
      data: page.map((r) => ({ id: r.id, endpoint: r.endpoint, api_version: r.api_version, created_at: new Date(r.created_at).toISOString(), target: r.target })),
      cursor: more ? String(page[page.length - 1]!.seq) : null,
      has_more: more,
    };
  }

  /** Drops entries older than 24 hours. */
  prune(): void {
    this.db.query("DELETE FROM activity WHERE created_at <= ?").run(this.now() - ACTIVITY_WINDOW_MS);
  }
}
