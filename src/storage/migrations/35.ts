/**
 * @module storage/migrations/35
 * Schema migration 35: what a changeTracking snapshot was redacted with, whether it is an error answer, and whether a
 * crawl's URL record is complete. A new file rather than a wider 33-34 (see
 * its note): storage/migrations.ts concatenates the files in order and storage/database.ts applies the list by
 * position. Never edit, reorder or remove a migration that has shipped.
 */

export const MIGRATIONS_35: readonly string[] = [
  // 35: a snapshot stored by a scrape with `redactPII` holds the redacted markdown; the next such scrape compared with
  // it redacted it again, a model call per scrape for nothing, and a model that redacted the text differently the
  // second time reported a change that was not one (change-tracking/history.ts). NULL: stored as the page gave it
  // (every row before this migration is read so, and redacted again as before).
  //
  // An error answer (401, 403, 408, 429, 5xx: change-tracking/answer-status.ts) is stored marked as one, apart from the
  // page's versions: compared with the latest answer when that was an error too, while a good answer is compared with
  // the latest good one (not storing them made every check of an outage a change). Rows stored before are marked by
  // their status, as crawlbox judges it now.
  //
  // A crawl records its URLs each time it runs out of work, before its re-checks run; `complete` marks the record of
  // a crawl that is done, the only one a later crawl takes as its previous one (a crawl running at the same time took
  // the partial record and re-checked nothing). Rows before this migration are of crawls done (or stopped) then.
  `
  ALTER TABLE change_snapshots ADD COLUMN redaction TEXT;   -- the redactPII options it was redacted with (JSON)
  ALTER TABLE change_snapshots ADD COLUMN is_error INTEGER NOT NULL DEFAULT 0;   -- 1: an error answer, not a version
  UPDATE change_snapshots SET is_error = 1 WHERE status_code IN (401, 403, 408, 429) OR status_code BETWEEN 500 AND 599;
  ALTER TABLE change_crawls ADD COLUMN complete INTEGER NOT NULL DEFAULT 1;   -- 0 while the crawl runs its re-checks
  `,
];
