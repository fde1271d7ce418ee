/**
 * @module llm/deterministic/store
 * The extractors an LLM wrote for the `deterministicJson` format, kept in SQLite (migration 21) so that the next
 * scrape of the same URL with the same schema, prompt and model, for the same API key, runs the same code instead of
 * asking the model again: that is what makes the format deterministic. Only an extractor whose result passed the
 * schema is kept. Unused ones are dropped after {@link EXTRACTOR_TTL_MS}; a key keeps at most
 * {@link MAX_EXTRACTORS_PER_KEY} (its least recently used go when it writes one more), so one key's crawl cannot push
 * out another's; the server keeps at most {@link MAX_EXTRACTORS} (pruned hourly).
 */
import type { Database } from "bun:sqlite";

/** How long an extractor nobody used is kept. */
export const EXTRACTOR_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** Extractors one API key keeps at most. */
export const MAX_EXTRACTORS_PER_KEY = 1_000;
/** Extractors kept at most in all (each a function of up to {@link MAX_EXTRACTOR_CHARS} characters). */
export const MAX_EXTRACTORS = 10_000;
/** Longest extractor source accepted from the model. */
export const MAX_EXTRACTOR_CHARS = 100_000;

/** Stored extractors, by key (llm/deterministic/extract.ts `extractorKey`). */
export class ExtractorStore {
  private readonly getStmt;
  private readonly putStmt;
  private readonly touchStmt;
  private readonly deleteStmt;
  private readonly pruneKeyStmt;
  private readonly pruneOldStmt;
  private readonly pruneExtraStmt;

  constructor(db: Database) {
    this.getStmt = db.query<{ code: string }, [string]>("SELECT code FROM deterministic_extractors WHERE key = ?");
    this.putStmt = db.query(
      "INSERT INTO deterministic_extractors (key, key_id, url, model, code, created_at, used_at) VALUES (?, ?, ?, ?, ?, ?, ?) " +
        "ON CONFLICT (key) DO UPDATE SET code = excluded.code, url = excluded.url, model = excluded.model, created_at = excluded.created_at, used_at = excluded.used_at",
    );
    this.touchStmt = db.query("UPDATE deterministic_extractors SET used_at = ? WHERE key = ?");
    this.deleteStmt = db.query("DELETE FROM deterministic_extractors WHERE key = ? AND code = ?");
    this.pruneKeyStmt = db.query(
      "DELETE FROM deterministic_extractors WHERE key IN (SELECT key FROM deterministic_extractors WHERE key_id = ? ORDER BY used_at DESC LIMIT -1 OFFSET ?)",
    );
    this.pruneOldStmt = db.query("DELETE FROM deterministic_extractors WHERE used_at < ?");
    this.pruneExtraStmt = db.query(
      "DELETE FROM deterministic_extractors WHERE key IN (SELECT key FROM deterministic_extractors ORDER BY used_at DESC LIMIT -1 OFFSET ?)",
    );
  }

  /** The stored extractor for `key`, marking it used. */
  get(key: string, nowMs = Date.now()): string | undefined {
    const row = this.getStmt.get(key);
    if (row) this.touchStmt.run(nowMs, key);
    return row?.code;
  }

  /** Keeps `code` as `keyId`'s extractor for `key` (replacing one that stopped working), within the key's limit. */
  put(key: string, keyId: string, url: string, model: string, code: string, nowMs = Date.now()): void {
    this.putStmt.run(key, keyId, url, model, code, nowMs, nowMs);
    this.pruneKeyStmt.run(keyId, MAX_EXTRACTORS_PER_KEY);
  }

  /** Forgets the extractor for `key` if it is still `code` (it failed, and no other scrape replaced it meanwhile). */
  delete(key: string, code: string): void {
    this.deleteStmt.run(key, code);
  }

  /** Drops extractors unused for {@link EXTRACTOR_TTL_MS} and all but the {@link MAX_EXTRACTORS} most recently used. */
  prune(nowMs = Date.now()): void {
    this.pruneOldStmt.run(nowMs - EXTRACTOR_TTL_MS);
    this.pruneExtraStmt.run(MAX_EXTRACTORS);
  }
}
