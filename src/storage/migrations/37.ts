/**
 * @module storage/migrations/37
 * Schema migration 37: an index of a check's pages by target and URL. Its own migration: a data directory already at
 * 36 would never run statements added to it (storage/database.ts applies the list by position). Never edit, reorder or
 * remove a migration that has shipped.
 */

export const MIGRATIONS_37: readonly string[] = [
  // 37: a monitored page's previous check is found by walking the monitor's checks from the newest and looking the
  // URL up in each (monitor/store.ts lastPage, comparedScrapeId). Over (check_id, seq) that look-up read every page
  // of the check: a check of 5,000 pages read 12.5 million rows, 3.3 s per look-up kind. A URL's fragment variants
  // (`p#a`, `p#b`: one page to the change history) sit next to it in this index, so one range reads them all.
  `
  CREATE INDEX monitor_pages_check_url ON monitor_pages (check_id, target_id, url);
  `,
];
