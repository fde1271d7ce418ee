/**
 * @module change-tracking/history
 * The change-tracking history: one snapshot per scrape with the changeTracking format, kept per API key, URL
 * and tag (upstream needs its cloud database for this; crawlbox keeps it in its SQLite file). Also the URL set
 * of each crawl that tracked changes, for the next crawl's "hidden" re-checks.
 *
 * An answer that is an error (change-tracking/answer-status.ts: a 503 maintenance page, a 403 bot wall) is stored
 * too, marked as one: the next error answer is compared with the latest answer of any kind ({@link
 * ChangeHistory.latest}), the next good answer with the latest good one ({@link ChangeHistory.latestGood}), which the
 * trim keeps however many error answers came after it.
 *
 * Each snapshot holds a page's whole markdown, so besides the {@link MAX_SNAPSHOTS_PER_URL} trim per URL the history
 * has a retention (`CRAWLBOX_CHANGE_HISTORY_DAYS`, {@link ChangeHistory.prune} from the server's hourly upkeep),
 * counted from a URL's last scrape: a URL still monitored keeps its baseline however old, while URLs and tags no one
 * scrapes any more stop holding disk.
 */
import type { Database } from "bun:sqlite";
import { immediate } from "../storage/database.ts";

/** Snapshots kept per key, URL and tag; older ones are deleted as new ones arrive (but the latest good one). */
export const MAX_SNAPSHOTS_PER_URL = 20;

/** One stored scrape. */
export interface Snapshot {
  scrapedAt: number;
  statusCode: number;
  markdown: string;
  /** The json mode's extraction from `markdown` (with a schema), if one was made. */
  json?: unknown;
  /**
   * What `json` was extracted with (a hash of schema, prompt and model; see plugins/formats/change-tracking.ts): an
   * answer to another question is no baseline. Absent for a snapshot stored before it was recorded.
   */
  jsonKey?: string;
  /**
   * The `redactPII` options `markdown` was redacted with (a key: see plugins/formats/change-tracking.ts), when the
   * scrape that stored it redacted it; absent for markdown stored as the page gave it. A scrape redacting with the
   * same options compares with it as it is: redacting it again cost a model call and could redact it otherwise.
   */
  redaction?: string;
  /** The answer was an error (change-tracking/answer-status.ts isErrorAnswerStatus), not a version of the page. */
  error?: boolean;
}

interface Row {
  scraped_at: number;
  status_code: number;
  markdown: string;
  json: string | null;
  json_key: string | null;
  redaction: string | null;
  is_error: number;
}

const SNAPSHOT_COLUMNS = "scraped_at, status_code, markdown, json, json_key, redaction, is_error";

/** Strips the fragment: `#section` never names another page. */
export function historyUrl(url: string): string {
  const i = url.indexOf("#");
  return i < 0 ? url : url.slice(0, i);
}

/** Reads and writes change-tracking history. */
export class ChangeHistory {
  constructor(private readonly db: Database) {}

  /** The most recent snapshot for `keyId`, `url` and `tag`, of any kind (an error answer too), if any. */
  latest(keyId: string, url: string, tag: string | null): Snapshot | undefined {
    const row = this.db
      .query<Row, [string, string, string]>(`SELECT ${SNAPSHOT_COLUMNS} FROM change_snapshots WHERE key_id = ? AND url = ? AND tag = ? ORDER BY scraped_at DESC, id DESC LIMIT 1`)
      .get(keyId, historyUrl(url), tag ?? "");
    return row ? snapshotOf(row) : undefined;
  }

  /** The most recent snapshot for `keyId`, `url` and `tag` that is not an error answer, if any. */
  latestGood(keyId: string, url: string, tag: string | null): Snapshot | undefined {
    // The newest rows first over the (key_id, url, tag, scraped_at) index: at most the trim's 20 are error answers.
    const row = this.db
      .query<Row, [string, string, string]>(
        `SELECT ${SNAPSHOT_COLUMNS} FROM change_snapshots WHERE key_id = ? AND url = ? AND tag = ? AND is_error = 0 ORDER BY scraped_at DESC, id DESC LIMIT 1`,
      )
      .get(keyId, historyUrl(url), tag ?? "");
    return row ? snapshotOf(row) : undefined;
  }

  /**
   * Whether the snapshot scraped at `scrapedAt` (the time a document's `previousScrapeAt` gives) for `keyId`, `url`
   * and `tag` is an error answer; undefined when none was scraped then (or it was trimmed since). Tells a monitor
   * which of its earlier scrapes a page was compared with (monitor/store.ts comparedScrapeId).
   */
  errorAnswerAt(keyId: string, url: string, tag: string | null, scrapedAt: number): boolean | undefined {
    const row = this.db
      .query<{ is_error: number }, [string, string, string, number]>(
        "SELECT is_error FROM change_snapshots WHERE key_id = ? AND url = ? AND tag = ? AND scraped_at = ? ORDER BY id DESC LIMIT 1",
      )
      .get(keyId, historyUrl(url), tag ?? "", scrapedAt);
    return row ? row.is_error === 1 : undefined;
  }

  /**
   * Stores a snapshot and trims the history of that URL to its {@link MAX_SNAPSHOTS_PER_URL} latest, and its latest
   * good one: an outage of more checks than that must not lose the version the page's return is compared with.
   */
  record(keyId: string, url: string, tag: string | null, snap: Snapshot): void {
    const u = historyUrl(url);
    const t = tag ?? "";
    immediate(this.db, () => {
      this.db
        .query("INSERT INTO change_snapshots (key_id, url, tag, scraped_at, status_code, markdown, json, json_key, redaction, is_error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .run(
          keyId, u, t, snap.scrapedAt, snap.statusCode, snap.markdown,
          snap.json === undefined ? null : JSON.stringify(snap.json), snap.json === undefined ? null : (snap.jsonKey ?? null), snap.redaction ?? null, snap.error ? 1 : 0,
        );
      this.db
        .query(
          `DELETE FROM change_snapshots WHERE key_id = ? AND url = ? AND tag = ? AND id NOT IN
           (SELECT id FROM change_snapshots WHERE key_id = ? AND url = ? AND tag = ? ORDER BY scraped_at DESC, id DESC LIMIT ?)
           AND id IS NOT (SELECT id FROM change_snapshots WHERE key_id = ? AND url = ? AND tag = ? AND is_error = 0 ORDER BY scraped_at DESC, id DESC LIMIT 1)`,
        )
        .run(keyId, u, t, keyId, u, t, MAX_SNAPSHOTS_PER_URL, keyId, u, t);
    });
  }

  /**
   * Deletes the history of every key, URL and tag last scraped before `lastScrapedBeforeMs` (all of its snapshots),
   * and the URL sets of crawls finished before it. Returns how many snapshots went.
   */
  prune(lastScrapedBeforeMs: number): number {
    return immediate(this.db, () => {
      // One group at a time over the (key_id, url, tag, scraped_at) index: its newest row says whether it is stale.
      const gone = this.db
        .query(
          `DELETE FROM change_snapshots WHERE (key_id, url, tag) IN
           (SELECT key_id, url, tag FROM change_snapshots GROUP BY key_id, url, tag HAVING MAX(scraped_at) < ?)`,
        )
        .run(lastScrapedBeforeMs).changes;
      this.db.query("DELETE FROM change_crawls WHERE finished_at < ?").run(lastScrapedBeforeMs);
      return gone;
    });
  }

  /**
   * Records the URLs a crawl scraped (replacing an earlier record of the same job). A crawl records them each time it
   * runs out of work: `complete` only the last time, when it plans no more re-checks and so is done; until then the
   * record lacks the pages it is re-checking, and another crawl must not take it as the previous crawl.
   */
  recordCrawl(jobId: string, keyId: string, startUrl: string, tag: string | null, urls: string[], finishedAt: number, complete = true): void {
    this.db
      .query("INSERT OR REPLACE INTO change_crawls (job_id, key_id, start_url, tag, urls, finished_at, complete) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(jobId, keyId, startUrl, tag ?? "", JSON.stringify(urls), finishedAt, complete ? 1 : 0);
  }

  /**
   * The URLs of the latest complete crawl of `startUrl` by `keyId` and `tag`, other than `exceptJobId`: not one still
   * running its re-checks (two crawls of the same site at once: the second re-checked nothing), nor one stopped before
   * it was done.
   */
  previousCrawlUrls(keyId: string, startUrl: string, tag: string | null, exceptJobId: string): string[] {
    const row = this.db
      .query<{ urls: string }, [string, string, string, string]>(
        "SELECT urls FROM change_crawls WHERE key_id = ? AND start_url = ? AND tag = ? AND job_id <> ? AND complete = 1 ORDER BY finished_at DESC LIMIT 1",
      )
      .get(keyId, startUrl, tag ?? "", exceptJobId);
    return row ? (JSON.parse(row.urls) as string[]) : [];
  }
}

/** A snapshot as a row stores it. */
function snapshotOf(row: Row): Snapshot {
  const snap: Snapshot = { scrapedAt: row.scraped_at, statusCode: row.status_code, markdown: row.markdown };
  if (row.json !== null) snap.json = JSON.parse(row.json);
  if (row.json_key !== null) snap.jsonKey = row.json_key;
  if (row.redaction !== null) snap.redaction = row.redaction;
  if (row.is_error === 1) snap.error = true;
  return snap;
}
