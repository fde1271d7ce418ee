/**
 * @module storage/migrations/38
 * Schema migration 38: an index of a job's webhook events by owner, in enqueue order. Its own migration: a data
 * directory already at 37 would never run statements added to it (storage/database.ts applies the list by position).
 * Never edit, reorder or remove a migration that has shipped.
 */

export const MIGRATIONS_38: readonly string[] = [
  // 38: the deliveries listing (webhooks/deliveries.ts) reads a page of one job's events for one key in seq order.
  // The job's other indexes have `state` (and `failures`) before seq, so every page read all of the job's events and
  // sorted them, with each pending one's order look-up: with 20,000 events a page took 16-25 ms, the later the slower
  // (and 100-170 ms when the pages had interrupted attempts). Here the index is in the listing's order, and a page
  // reads its own rows: the ones skipped (`skip`) are stepped over in the index. seq is the rowid, which ends every
  // index entry, so (job_id, key_id) is ordered by seq within a job and key.
  `
  CREATE INDEX webhook_events_job_key ON webhook_events (job_id, key_id);
  `,
];
