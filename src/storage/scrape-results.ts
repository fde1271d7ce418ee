/**
 * @module storage/scrape-results
 * Stored scrape documents for `GET /v2/scrape/{id}`. Rows belong to the key that made them: another key gets
 * 404 rather than 403 so ids cannot be probed. Rows expire (default 24 h) and are pruned.
 */
import type { Database } from "bun:sqlite";

/** How long a scrape result stays retrievable. */
export const SCRAPE_RESULT_TTL_MS = 24 * 60 * 60 * 1000;

/** Scrape documents by id. */
export class ScrapeResults {
  private readonly putStmt;
  private readonly getStmt;
  private readonly pruneStmt;

  constructor(db: Database) {
    this.putStmt = db.query(
      "INSERT OR REPLACE INTO scrapes (id, key_id, url, created_at, expires_at, document) VALUES (?, ?, ?, ?, ?, ?)",
    );
    this.getStmt = db.query<{ key_id: string; expires_at: number; document: string }, [string]>(
      "SELECT key_id, expires_at, document FROM scrapes WHERE id = ?",
    );
    this.pruneStmt = db.query("DELETE FROM scrapes WHERE expires_at < ?");
  }

  /** Stores a document under its scrape id. */
  put(id: string, keyId: string, url: string, document: unknown, now: number): void {
    this.putStmt.run(id, keyId, url, now, now + SCRAPE_RESULT_TTL_MS, JSON.stringify(document));
  }

  /** The document with `id` made by `keyId`, unless expired. */
  get(id: string, keyId: string, now: number): unknown | undefined {
    const row = this.getStmt.get(id);
    if (!row || row.key_id !== keyId || row.expires_at < now) return undefined;
    return JSON.parse(row.document);
  }

  /** Deletes expired rows; returns how many. */
  prune(now: number): number {
    return this.pruneStmt.run(now).changes;
  }
}
