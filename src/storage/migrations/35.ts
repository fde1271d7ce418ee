/**
 * @module storage/migrations/35
 * Schema migration 35: what a changeTracking snapshot was redacted with. A new file rather than a wider 33-34 (see
 * its note): storage/migrations.ts concatenates the files in order and storage/database.ts applies the list by
 * position. Never edit, reorder or remove a migration that has shipped.
 */

export const MIGRATIONS_35: readonly string[] = [
  // 35: a snapshot stored by a scrape with `redactPII` holds the redacted markdown; the next such scrape compared with
  // it redacted it again, a model call per scrape for nothing, and a model that redacted the text differently the
  // second time reported a change that was not one (change-tracking/history.ts). NULL: stored as the page gave it
  // (every row before this migration is read so, and redacted again as before).
  `
  ALTER TABLE change_snapshots ADD COLUMN redaction TEXT;   -- the redactPII options it was redacted with (JSON)
  `,
];
