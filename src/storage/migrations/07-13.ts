/**
 * @module storage/migrations/07-13
 * Schema migrations 7–13: the tasks seq index; page-cache bodies moved to files, then to segment files;
 * idempotency keys; extract jobs; agent runs; monitors, their checks and pages.
 * Only the order matters: storage/migrations.ts concatenates the files in order and storage/database.ts applies
 * the list by position (the migration at index N sets `user_version` to N+1). Never edit, reorder or remove a
 * migration that has shipped.
 */

export const MIGRATIONS_07_13: readonly string[] = [
  // 7: adding tasks reads the job's highest `seq`; without this index that was a scan of every task of the job on
  // each completed page, so crawls slowed down as they grew.
  `
  CREATE INDEX tasks_job_seq ON tasks (job_id, seq);
  `,
  // 8: cached page bodies move out of SQLite into files (<dataDir>/cache/): writing ~100 KB blobs through the
  // WAL, and again at every checkpoint, cost more than rendering the page. The cache is only a cache: its old
  // rows are dropped.
  `
  DROP TABLE page_cache;
  CREATE TABLE page_cache (
    cache_key TEXT PRIMARY KEY,       -- hex SHA-256 of URL + the options that change what is fetched
    url TEXT NOT NULL,
    cached_at INTEGER NOT NULL,
    meta TEXT NOT NULL,               -- JSON: status, headers, final URL, content type, charset, engine
    size INTEGER NOT NULL             -- bytes of the body file <dataDir>/cache/<cache_key>
  );
  CREATE INDEX page_cache_cached_at ON page_cache (cached_at);
  `,
  // 9: cached bodies are appended to segment files instead of one file each (creating a file cost ≈ 0.25 ms of
  // kernel time per page, storage/page-cache.ts). The rows now say where the bytes are; old rows are dropped
  // (a cache), and the next prune deletes their files.
  `
  DROP TABLE page_cache;
  CREATE TABLE page_cache (
    cache_key TEXT PRIMARY KEY,       -- hex SHA-256 of URL + the options that change what is fetched
    url TEXT NOT NULL,
    cached_at INTEGER NOT NULL,
    meta TEXT NOT NULL,               -- JSON: status, headers, final URL, content type, charset, engine
    segment TEXT NOT NULL,            -- body segment file under <dataDir>/cache/
    offset INTEGER NOT NULL,          -- where the body starts in it
    size INTEGER NOT NULL             -- body bytes
  );
  CREATE INDEX page_cache_cached_at ON page_cache (cached_at);
  CREATE INDEX page_cache_segment ON page_cache (segment);
  `,
  // 10: the `Idempotency-Key` header of POST /v2/scrape, /v2/crawl and /v2/batch/scrape (src/idempotency): the
  // first request's hash and, once it succeeded, its response, kept 24 h so a retry is answered without running
  // the request again.
  `
  CREATE TABLE idempotency_keys (
    key_id TEXT NOT NULL,             -- the API key the header was sent with; keys never see each other's
    idem_key TEXT NOT NULL,           -- the header's value
    request_hash TEXT NOT NULL,       -- hex SHA-256 of method, path and the canonical JSON body
    state TEXT NOT NULL,              -- in-flight | done
    claim TEXT NOT NULL,              -- random id of the request that claimed the key; only it may settle the row
    status INTEGER,                   -- done: the HTTP status answered
    response TEXT,                    -- done: the body answered; NULL when it was not kept (zeroDataRetention)
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (key_id, idem_key)
  );
  CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);
  `,
  // 11: extract jobs (`POST /v2/extract`, src/extract): the validated request, then the answer. A job left
  // `processing` by a stopped server is run again when `crawlbox serve` starts.
  `
  CREATE TABLE extract_jobs (
    id TEXT PRIMARY KEY,
    key_id TEXT NOT NULL,
    status TEXT NOT NULL,             -- processing | completed | failed
    owner TEXT,                       -- the process running it (a random id per start); only it may finish it
    attempts INTEGER NOT NULL DEFAULT 0, -- runs started; a job that stopped the server 3 times is failed
    request TEXT NOT NULL,            -- JSON of the validated request
    data TEXT,                        -- completed: JSON of the extracted data
    sources TEXT,                     -- completed with showSources: JSON list of the pages used
    warning TEXT,
    error TEXT,                       -- failed: why
    tokens INTEGER NOT NULL DEFAULT 0,
    credits INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL       -- counted from the end; a processing job never expires
  );
  CREATE INDEX extract_jobs_expires ON extract_jobs (expires_at);
  CREATE INDEX extract_jobs_processing ON extract_jobs (status) WHERE status = 'processing';
  `,  // 12: agent runs (`POST /v2/agent`, src/agent): the validated request, then the answer. Runs of one thread share
  // its id and are numbered by turn. A run left `processing` by a stopped server is run again at the next start.
  `
  CREATE TABLE agent_jobs (
    id TEXT PRIMARY KEY,
    key_id TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    turn INTEGER NOT NULL,            -- 1-based position in the thread
    status TEXT NOT NULL,             -- processing | completed | failed | cancelled
    owner TEXT,                       -- the process running it (a random id per start); only it may finish it
    attempts INTEGER NOT NULL DEFAULT 0,
    request TEXT NOT NULL,            -- JSON of the validated request
    data TEXT,                        -- completed, extract mode: JSON of the answer
    message TEXT,                     -- completed, chat mode: the answer's text
    sources TEXT,                     -- JSON list of the pages read
    warning TEXT,
    error TEXT,                       -- failed: why
    tokens INTEGER NOT NULL DEFAULT 0,
    credits INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    finished_at INTEGER,
    expires_at INTEGER NOT NULL,      -- counted from the end; a processing run never expires
    UNIQUE (thread_id, turn)
  );
  CREATE INDEX agent_jobs_key_created ON agent_jobs (key_id, created_at);
  CREATE INDEX agent_jobs_expires ON agent_jobs (expires_at);
  CREATE INDEX agent_jobs_processing ON agent_jobs (status) WHERE status = 'processing';
  `,  // 13: monitors (`/v2/monitor`, src/monitor): scheduled checks of pages for changes. A check has one row per page
  // it looked at; the pages' previous versions are change-tracking history (tag `monitor:<id>:<target>`).
  `
  CREATE TABLE monitors (
    id TEXT PRIMARY KEY,
    key_id TEXT NOT NULL,
    name TEXT NOT NULL,
    status TEXT NOT NULL,             -- active | paused (deleted monitors are removed)
    schedule TEXT NOT NULL,           -- JSON {cron, text?, timezone}
    targets TEXT NOT NULL,            -- JSON of the validated scrape targets
    webhook TEXT,                     -- JSON of the normalised webhook
    retention_days INTEGER NOT NULL,
    goal TEXT,
    judge_enabled INTEGER NOT NULL DEFAULT 0,
    last_run_at INTEGER,
    current_check_id TEXT,
    last_summary TEXT,                -- JSON of the last finished check's summary
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX monitors_key ON monitors (key_id, created_at);
  CREATE TABLE monitor_checks (
    id TEXT PRIMARY KEY,
    monitor_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    status TEXT NOT NULL,             -- (queued, since 15) running | completed | partial | failed | skipped_overlap | skipped_no_credits
    trigger TEXT NOT NULL,            -- scheduled | manual
    scheduled_for INTEGER,
    started_at INTEGER,
    finished_at INTEGER,
    credits INTEGER NOT NULL DEFAULT 0,
    summary TEXT NOT NULL,            -- JSON {totalPages, same, changed, new, removed, error}
    target_results TEXT,              -- JSON {targetId: {crawlId} | {resultCount, matches, …}} per crawl or search target
    error TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX monitor_checks_monitor ON monitor_checks (monitor_id, created_at);
  CREATE INDEX monitor_checks_running ON monitor_checks (status) WHERE status = 'running';
  CREATE TABLE monitor_pages (
    id TEXT PRIMARY KEY,
    check_id TEXT NOT NULL,
    seq INTEGER NOT NULL,             -- order within the check
    target_id TEXT NOT NULL,
    url TEXT NOT NULL,
    status TEXT NOT NULL,             -- same | new | changed | removed | error
    scrape_id TEXT,
    status_code INTEGER,
    error TEXT,
    diff TEXT,                        -- JSON {text, json} when changed
    judgment TEXT,                    -- JSON of the model's judgment (judgeEnabled) when changed
    credits INTEGER NOT NULL DEFAULT 0, -- what the page's scrape cost
    created_at INTEGER NOT NULL
  );
  CREATE INDEX monitor_pages_check ON monitor_pages (check_id, seq);
  `,
];
