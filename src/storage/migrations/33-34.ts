/**
 * @module storage/migrations/33-34
 * Schema migrations 33–34: pending task rows held while a request still stores them, and crawls' spare pages. A new
 * file rather than a wider 14-32 (see its note): storage/migrations.ts concatenates the files in order and
 * storage/database.ts applies the list by position. Never edit, reorder or remove a migration that has shipped.
 */

export const MIGRATIONS_33_34: readonly string[] = [
  // 33: a large batch or append is stored a row per transaction (jobs/task-intake.ts): its rows name the request
  // (`intake`), and are held while its `job_intakes` row is open; its last transaction closes it, with the append's
  // options index, known only then. (Marking the ~130 rows themselves rewrote their 20 MB: ~60 ms.) Writing the whole
  // list in the request's one transaction held every other request ~0.3–0.6 s.
  `
  ALTER TABLE job_pending_tasks ADD COLUMN intake TEXT;   -- the request that stored the row a row per transaction
  CREATE INDEX job_pending_tasks_intake ON job_pending_tasks (intake) WHERE intake IS NOT NULL;
  CREATE TABLE job_intakes (
    intake TEXT PRIMARY KEY,
    job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    open INTEGER NOT NULL,          -- 1 while the request stores its rows: held (not loaded, not counted)
    options_index INTEGER           -- appendToId: its tasks' index in the job's options.appended
  );
  CREATE INDEX job_intakes_job ON job_intakes (job_id);
  `,
  // 34: pages a crawl found while at its limit, which take the places its failed pages give back (jobs/spare-tasks.ts).
  // In memory they were lost on a restart, and one taken by a refill whose transaction rolled back was lost too.
  `
  CREATE TABLE job_spare_tasks (
    job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    dedup_key TEXT NOT NULL,
    position INTEGER NOT NULL,        -- the order found; a page given back goes before the first
    url TEXT NOT NULL,
    source_url TEXT,
    depth INTEGER NOT NULL,
    host TEXT NOT NULL,               -- passed over while the host fails to answer
    not_before INTEGER,
    options_index INTEGER,
    PRIMARY KEY (job_id, dedup_key)
  );
  CREATE UNIQUE INDEX job_spare_tasks_order ON job_spare_tasks (job_id, position);
  CREATE TABLE job_spare_counts (
    job_id TEXT PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
    enqueued INTEGER NOT NULL         -- spare pages the job has enqueued (bounded by refillBudget)
  );
  `,
];
