/**
 * @module storage/migrations/36
 * Schema migration 36: whether a changeTracking snapshot is an error answer, and whether a crawl's URL record is
 * complete. Its own migration, not more statements in 35: a data directory that 35 had already brought to
 * `user_version` 35 would never have run them (storage/database.ts applies the list by position), and every
 * changeTracking scrape there failed on the missing column. Never edit, reorder or remove a migration that has shipped.
 */

export const MIGRATIONS_36: readonly string[] = [
  // 36: an error answer (401, 403, 408, 429, 5xx: change-tracking/answer-status.ts) is stored marked as one, apart from
  // the page's versions: compared with the latest answer when that was an error too, while a good answer is compared
  // with the latest good one (not storing them made every check of an outage a change). Rows stored before are marked
  // by their status, as crawlbox judges it now.
  //
  // A crawl records its URLs each time it runs out of work, before its re-checks run; `complete` marks the record of
  // a crawl that is done, the only one a later crawl takes as its previous one (a crawl running at the same time took
  // the partial record and re-checked nothing). Rows before this migration are of crawls done (or stopped) then.
  `
  ALTER TABLE change_snapshots ADD COLUMN is_error INTEGER NOT NULL DEFAULT 0;   -- 1: an error answer, not a version
  UPDATE change_snapshots SET is_error = 1 WHERE status_code IN (401, 403, 408, 429) OR status_code BETWEEN 500 AND 599;
  ALTER TABLE change_crawls ADD COLUMN complete INTEGER NOT NULL DEFAULT 1;   -- 0 while the crawl runs its re-checks
  `,
];
